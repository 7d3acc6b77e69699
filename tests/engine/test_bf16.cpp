// bf16 frozen weights (adjoint/bf16.hpp): gemm() on a registered bf16 weight
// against the same values in fp32, the registry's lifetime, the reserved arena, and the misuse
// that must fail loudly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "adjoint/arena_model.hpp"
#include "adjoint/bf16.hpp"
#include "adjoint/gemm.hpp"
#include "adjoint/kernels.hpp"
#include "adjoint/random.hpp"

namespace adjoint {
namespace {

std::vector<std::uint16_t> random_bf16(std::size_t count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::uint16_t> values(count);
  for (auto& v : values) {
    const float f = float(rng.normal());
    std::uint32_t bits;
    __builtin_memcpy(&bits, &f, sizeof(bits));
    v = std::uint16_t(bits >> 16);
  }
  return values;
}

std::vector<float> random_floats(std::size_t count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> values(count);
  for (float& v : values) v = float(rng.normal());
  return values;
}

std::vector<float> to_float(const std::vector<std::uint16_t>& values) {
  std::vector<float> out(values.size());
  bf16_to_float(values.data(), values.size(), out.data());
  return out;
}

// max |a - b| / max |b|
double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); i++) {
    diff = std::max(diff, double(std::abs(a[i] - b[i])));
    scale = std::max(scale, double(std::abs(b[i])));
  }
  return diff / scale;
}

// A weight (rows, row stride ld) at `offset` floats into a reserved arena, its bf16 values
// registered for the arena's range.
struct RegisteredWeight {
  RegisteredWeight(int rows, int ld, std::size_t offset)
      : arena(FloatArena::reserved(offset + std::size_t(rows) * ld)),
        values(random_bf16(arena.size(), 7)),
        stand_ins(std::make_unique<Bf16Parameters>(nullptr)),
        weight(arena.data() + offset),
        dense(to_float(values)) {
    stand_ins->map(arena.data(), arena.size(), values.data());
  }
  const float* fp32() const { return dense.data() + (weight - arena.data()); }

  FloatArena arena;
  std::vector<std::uint16_t> values;
  std::unique_ptr<Bf16Parameters> stand_ins;
  const float* weight;
  std::vector<float> dense;  // the same values in fp32, unregistered
};

// The forward's out = alpha·inp·Wᵀ + beta·out and the backward's dinp += dout·W, with an odd
// leading dimension and offset: read directly by our kernel (few rows), and converted with k large
// enough that W goes in several panels (kBf16PanelFloats) (more rows than the kernel takes).
TEST(Bf16, GemmOnARegisteredWeightEqualsTheFp32Weight) {
  const int n = 2500, k = 4001, ld = 4003;
  ASSERT_GT(std::size_t(n) * k, 2 * kBf16PanelFloats);  // three panels at least
  RegisteredWeight w(n, ld, 13);
  for (const auto& [m, trans_b] : {std::pair{5, true}, std::pair{5, false}, std::pair{kBf16DirectMaxRows + 1, true},
                                  std::pair{kBf16DirectMaxRows + 1, false}}) {
    // trans_b: B = W (n, k) rows (inp·Wᵀ); else B = W (depth = n rows, k columns) (dout·W).
    const int rows_out = m, cols_out = trans_b ? n : k, depth = trans_b ? k : n;
    const std::vector<float> a = random_floats(std::size_t(m) * depth, 1);
    std::vector<float> c = random_floats(std::size_t(rows_out) * cols_out, 2), want = c;
    gemm(false, trans_b, m, cols_out, depth, 0.5f, a.data(), depth, w.fp32(), ld, 1.0f, want.data(), cols_out);
    gemm(false, trans_b, m, cols_out, depth, 0.5f, a.data(), depth, w.weight, ld, 1.0f, c.data(), cols_out);
    EXPECT_LE(relative_error(c, want), 1e-6) << (trans_b ? "inp·Wᵀ" : "dout·W") << " m=" << m;
    EXPECT_GT(relative_error(c, random_floats(c.size(), 2)), 1e-2);  // the product changed c
  }
}

TEST(Bf16, RangesAreRegisteredWhileTheirOwnerLives) {
  FloatArena arena = FloatArena::reserved(100);
  auto stand_ins = std::make_unique<Bf16Parameters>(nullptr);
  std::uint16_t* owned = stand_ins->copy(arena.data() + 10, 50);
  owned[5] = 0x3f80;  // 1.0f
  EXPECT_EQ(registered_bf16(arena.data() + 15), owned + 5);
  EXPECT_EQ(stand_ins->owned(arena.data() + 15), owned + 5);
  EXPECT_EQ(registered_bf16(arena.data() + 9), nullptr);
  EXPECT_EQ(registered_bf16(arena.data() + 60), nullptr);
  EXPECT_EQ(stand_ins->owned_bytes(), 100u);
  stand_ins.reset();
  EXPECT_EQ(registered_bf16(arena.data() + 15), nullptr);
}

TEST(Bf16, ReservedArenaIsUsableWhereAsked) {
  FloatArena arena = FloatArena::reserved(1 << 20);
  arena.make_usable(arena.data() + 5000, 10);
  for (int i = 0; i < 10; i++) EXPECT_EQ(arena.data()[5000 + i], 0.0f);
  arena.data()[5009] = 3.0f;
  EXPECT_EQ(arena.data()[5009], 3.0f);
  EXPECT_DEATH(static_cast<void>(*static_cast<volatile float*>(arena.data() + 900000)), "");
}

TEST(Bf16, MisuseIsALogicError) {
  RegisteredWeight w(64, 64, 0);
  std::vector<float> x(64 * 64, 1.0f), out(64 * 64);
  // B running past the registered weight.
  EXPECT_THROW(gemm(false, true, 2, 65, 64, 1.0f, x.data(), 64, w.weight, 64, 0.0f, out.data(), 65), std::logic_error);
  // A bf16 weight as A (a product nothing in the models runs).
  EXPECT_THROW(gemm(false, false, 64, 64, 64, 1.0f, w.weight, 64, x.data(), 64, 0.0f, out.data(), 64),
               std::logic_error);
}

}  // namespace
}  // namespace adjoint
