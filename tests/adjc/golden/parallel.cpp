// An OpenMP loop: the reverse loop runs on the same threads with the same iterations; the
// adjoint of w, shared by all iterations, is summed in per-thread copies.
#include <adjoint/ad.hpp>

void scale_rows(double* out, const double* x, const double* w, int rows, int cols) {
#pragma omp parallel for
  for (int r = 0; r < rows; r++) {
    const double* in = x + r * cols;
    for (int c = 0; c < cols; c++) out[r * cols + c] = in[c] * w[c];
  }
}

const char* request() { return adjoint::gradient(scale_rows, "out,x,w").source(); }
