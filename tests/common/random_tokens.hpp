// Token ids for the model tests: n uniform in [0, vocab), the same for the same seed.
#pragma once
#include <cstdint>
#include <vector>

#include "adjoint/random.hpp"

inline std::vector<int> random_tokens(std::size_t n, int vocab, std::uint64_t seed) {
  adjoint::Rng rng(seed);
  std::vector<int> tokens(n);
  for (int& token : tokens) token = int(rng.next_u64() % std::uint64_t(vocab));
  return tokens;
}
