// Token files, read and loaded into a data loader (which checks every id against a vocabulary:
// GPT-2's for uint16 files, Llama 3's for uint32 ones).
#include <cstring>
#include <exception>

#include "adjoint/dataloader.hpp"
#include "adjoint/token_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("tokens.bin", data, size);
  try {
    adjoint::read_token_file(path);
    const bool uint32 = size >= 8 && (std::memcmp(data, &adjoint::token_file_uint32.magic, 4) == 0 ||
                                      std::memcmp(data + 4, &adjoint::masked_token_file_uint32.version, 4) == 0);
    adjoint::DataLoader loader(path, 1, 2, uint32 ? 128256 : 50257);
    loader.next_batch();
  } catch (const std::exception&) {
  }
  return 0;
}
