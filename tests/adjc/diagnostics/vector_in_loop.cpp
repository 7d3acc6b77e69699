#include <adjoint/ad.hpp>
#include <vector>
double f(const double* x, double* y, int n) {
#pragma omp parallel for
  for (int r = 0; r < n; r++) {
    std::vector<double> row(3);  // error: std::vector 'row' declared inside an OpenMP parallel loop is not supported; each thread needs its own: declare a std::array or a local array in the loop (double row[N];)
    for (int i = 0; i < 3; i++) row[i] = x[r] * (i + 1);
    y[r] = row[0] * row[2];
  }
  return y[0];
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
