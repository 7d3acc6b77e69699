// The few-row product out (m,n) = alpha · a (m,k) · b (n,k)ᵀ + beta · out, for m of a few dozen rows
// against a weight-sized b (the forward's projections and LM head at small B·T). BLAS libraries
// pack b into their panel layout first, which at 16 rows costs more than the multiplication (each
// weight is used by only m rows); here each row of b is read once, straight from the weight, and
// dotted with every row of a while it sits in L1 (docs/performance.md, "Few-row products").
// One kernel body (few_rows_kernel.inc) compiled once per instruction set, each in a file of its
// own with that file's target flags; gemm.cpp picks one by cpuid and splits n over the threads.
#pragma once

namespace adjoint::kernels {

struct FewRowsProduct {
  int m, n, k;
  float alpha;
  const float* a;  // (m,k), row i at a + i·lda
  int lda;
  const float* b;  // (n,k), row j at b + j·ldb
  int ldb;
  float beta;  // 0: out is written without being read
  float* c;    // (m,n), row i at c + i·ldc
  int ldc;
};

// Columns [n_begin, n_end) of the product, on the calling thread. Each element is one sum over k in
// a fixed order, whatever the range, so the result does not depend on how n is split.
namespace avx512 {
void few_rows_product(const FewRowsProduct& p, int n_begin, int n_end);
}
namespace avx2 {
void few_rows_product(const FewRowsProduct& p, int n_begin, int n_end);
}
// Ranges split at multiples of this keep every ISA's register blocks whole (a split elsewhere is
// as exact, only slower at its edges).
constexpr int kFewRowsColumnBlock = 12;

}  // namespace adjoint::kernels
