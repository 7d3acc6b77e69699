// Our products of a few dozen to a hundred-odd rows against a weight-sized matrix, neither packed:
// the forward's out (m,n) = alpha · a (m,k) · W (n,k)ᵀ + beta · out (projections, LM head) and the
// backward's dinp (m,n) = alpha · a (m,k) · W (k,n) + beta · dinp (the input gradient, the only
// product a LoRA backward runs on a frozen weight). BLAS libraries pack W into their panel layout
// first, which at a few rows costs as much as the multiplication (each weight is used by only m
// rows); here W is read once, straight from the weight, in fp32 or bf16 (widened in registers:
// exact, so a bf16 W gives the bits its fp32 conversion would) (docs/performance.md, "Few-row
// products"). One kernel body (few_rows_kernel.inc) compiled once per instruction set, each in a
// file of its own with that file's target flags; gemm.cpp picks one by cpuid and splits n over the
// threads.
#pragma once

namespace adjoint::kernels {

struct FewRowsProduct {
  int m, n, k;
  float alpha;
  const float* a;  // (m,k), row i at a + i·lda
  int lda;
  const float* b;             // W in fp32, or null when b16 holds it
  const unsigned short* b16;  // W in bf16 (the upper half of each fp32 value), or null
  int ldb;                    // W's row stride, in elements
  float beta;                 // 0: c is written without being read
  float* c;                   // (m,n), row i at c + i·ldc
  int ldc;
};

// Columns [n_begin, n_end) of c, on the calling thread. Each element is one sum over k in a fixed
// order, whatever the range, so the result does not depend on how n is split.
// few_rows_product: c = alpha · a · Wᵀ + beta · c, W (n,k). rows_times_weight: c = alpha · a · W +
// beta · c, W (k,n).
namespace avx512 {
void few_rows_product(const FewRowsProduct& p, int n_begin, int n_end);
void rows_times_weight(const FewRowsProduct& p, int n_begin, int n_end);
}  // namespace avx512
namespace avx2 {
void few_rows_product(const FewRowsProduct& p, int n_begin, int n_end);
void rows_times_weight(const FewRowsProduct& p, int n_begin, int n_end);
}  // namespace avx2
// Ranges split at multiples of these keep every ISA's register blocks whole (a split elsewhere is
// as exact, only slower at its edges): W's rows for a · Wᵀ, c's columns for a · W.
constexpr int kFewRowsColumnBlock = 12;
constexpr int kRowsTimesWeightColumnBlock = 64;

}  // namespace adjoint::kernels
