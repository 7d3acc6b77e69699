// The tokenizer's encoder.json and vocab.bpe: the input is encoder.json, a zero byte, then
// vocab.bpe. A tokenizer that loads then encodes and decodes a short text.
#include <algorithm>
#include <exception>

#include "adjoint/tokenizer.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t* end = data + size;
  const std::uint8_t* zero = std::find(data, end, 0);
  adjoint::fuzz::write_file("encoder.json", data, zero - data);
  adjoint::fuzz::write_file("vocab.bpe", zero == end ? end : zero + 1, zero == end ? 0 : end - zero - 1);
  try {
    const adjoint::GPT2Tokenizer tokenizer(adjoint::fuzz::work_dir());
    tokenizer.decode(tokenizer.encode("the cat's 42 caf\xc3\xa9s  \n"));
  } catch (const std::exception&) {
  }
  return 0;
}
