// Token files, read and loaded into a data loader (which checks every id against a vocabulary).
#include <exception>

#include "adjoint/dataloader.hpp"
#include "adjoint/token_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("tokens.bin", data, size);
  try {
    adjoint::read_token_file(path);
    adjoint::DataLoader loader(path, 1, 2, 50257);
    loader.next_batch();
  } catch (const std::exception&) {
  }
  return 0;
}
