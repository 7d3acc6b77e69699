// bf16 frozen weights: the registry of their fp32 address ranges, handed to our few-row kernel as
// they are or converted panel-wise for the fp32 GEMM (adjoint/bf16.hpp).
#include "adjoint/bf16.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>

#include "adjoint/gemm.hpp"

namespace adjoint {
namespace {

struct Bf16Range {
  const float* begin;
  const float* end;
  const std::uint16_t* values;
};

// Every live Bf16Parameters' ranges, sorted by begin. Lookups happen once per GEMM (not per
// element); the count lets models without bf16 weights skip the lock.
std::mutex registry_mutex;
std::vector<Bf16Range> registry;
std::atomic<std::size_t> registry_size{0};

void add_range(const Bf16Range& range) {
  std::lock_guard lock(registry_mutex);
  const auto at = std::upper_bound(registry.begin(), registry.end(), range.begin,
                                   [](const float* p, const Bf16Range& r) { return p < r.begin; });
  registry.insert(at, range);
  registry_size = registry.size();
}

void remove_range(const float* begin) {
  std::lock_guard lock(registry_mutex);
  std::erase_if(registry, [begin](const Bf16Range& r) { return r.begin == begin; });
  registry_size = registry.size();
}

// The range holding `at`, if any (a copy: the registry may change after the lock).
bool find_range(const float* at, Bf16Range& found) {
  if (registry_size.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard lock(registry_mutex);
  const auto after = std::upper_bound(registry.begin(), registry.end(), at,
                                      [](const float* p, const Bf16Range& r) { return p < r.begin; });
  if (after == registry.begin() || at >= std::prev(after)->end) return false;
  found = *std::prev(after);
  return true;
}

// dst (rows, cols; row stride ld_dst) = src (rows, cols; row stride ld_src) in fp32.
void convert_block(const std::uint16_t* src, std::size_t ld_src, int rows, int cols, float* dst, std::size_t ld_dst) {
#pragma omp parallel for schedule(static)
  for (int r = 0; r < rows; r++) bf16_to_float(src + r * ld_src, cols, dst + r * ld_dst);
}

}  // namespace

void bf16_to_float(const std::uint16_t* in, std::size_t count, float* out) {
  for (std::size_t i = 0; i < count; i++) out[i] = bf16_to_float(in[i]);
}

const std::uint16_t* registered_bf16(const float* at) {
  Bf16Range range;
  return find_range(at, range) ? range.values + (at - range.begin) : nullptr;
}

bool gemm_registered_bf16(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                          const float* b, int ldb, float beta, float* c, int ldc) {
  Bf16Range range;
  if (!find_range(b, range)) {
    if (registered_bf16(a)) throw std::logic_error("gemm: a bf16 weight as the A operand is not supported");
    return false;
  }
  // B is (n, k) rows of ldb when transposed (the forward's inp·Wᵀ), else (k, n) (dinp = dout·W).
  const std::size_t last = trans_b ? std::size_t(n - 1) * ldb + k : std::size_t(k - 1) * ldb + n;
  if (n <= 0 || k <= 0 || b + last > range.end) throw std::logic_error("gemm: B runs past its bf16 weight");
  const std::uint16_t* b16 = range.values + (b - range.begin);
  const GemmLibrary direct = bf16_weight_library(trans_a, trans_b, m, n, k);
  if (direct != GemmLibrary::openblas) {  // our kernel reads the bf16 values as they are
    gemm_with_bf16(direct, trans_a, trans_b, m, n, k, alpha, a, lda, b16, ldb, beta, c, ldc);
    return true;
  }
  // W's rows (n of them when transposed, else k) a panel at a time, contiguous in the stand-in.
  // Transposed, a panel is a block of C's columns; else a slice of the sum over k, added to C
  // after the first. (Panels small enough to stay in cache between conversion and product measured
  // slower: OpenBLAS's cost per call.)
  const int rows = trans_b ? n : k, row_length = trans_b ? k : n;
  const int panel = std::clamp(int(kBf16PanelFloats / std::size_t(row_length)), 16, rows);
  thread_local std::vector<float> scratch;
  scratch.resize(std::size_t(panel) * row_length);
  for (int r = 0; r < rows; r += panel) {
    const int height = std::min(panel, rows - r);
    convert_block(b16 + std::size_t(r) * ldb, ldb, height, row_length, scratch.data(), row_length);
    if (trans_b) {
      gemm(trans_a, true, m, height, k, alpha, a, lda, scratch.data(), k, beta, c + r, ldc);
    } else {
      const float* a_slice = trans_a ? a + std::size_t(r) * lda : a + r;
      gemm(trans_a, false, m, n, height, alpha, a_slice, lda, scratch.data(), n, r == 0 ? beta : 1.0f, c, ldc);
    }
  }
  return true;
}

Bf16Parameters::~Bf16Parameters() {
  for (const float* begin : registered_) remove_range(begin);
}

void Bf16Parameters::map(const float* view, std::size_t count, const std::uint16_t* values) {
  add_range({view, view + count, values});
  registered_.push_back(view);
}

std::uint16_t* Bf16Parameters::copy(const float* view, std::size_t count) {
  owned_.push_back({view, count, std::make_unique_for_overwrite<std::uint16_t[]>(count)});
  owned_bytes_ += count * sizeof(std::uint16_t);
  map(view, count, owned_.back().values.get());
  return owned_.back().values.get();
}

std::uint16_t* Bf16Parameters::owned(const float* at) const {
  for (const OwnedBlock& block : owned_)
    if (at >= block.view && at < block.view + block.count) return block.values.get() + (at - block.view);
  return nullptr;
}

}  // namespace adjoint
