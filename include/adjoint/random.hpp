// A small, portable random number generator: the same stream on every platform and
// standard library, so that runs, initialisations and samples are reproducible from a seed
// and the whole state fits in one integer (saved in training-state files).
#pragma once
#include <cmath>
#include <cstdint>

namespace adjoint {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) : state_(seed) {}
  std::uint64_t state() const { return state_; }
  void set_state(std::uint64_t state) { state_ = state; }

  // splitmix64: passes BigCrush and needs no warm-up for any seed.
  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return (next_u64() >> 11) * (1.0 / 9007199254740992.0); }
  // Standard normal by Box-Muller (one draw per call: simple, stateless between calls).
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t state_;
};

}  // namespace adjoint
