#include <adjoint/ad.hpp>
#include <array>
void f(double* y, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    std::array<double, 3> a;
    a.fill(x[i]);  // error: 'std::array::fill' inside an OpenMP parallel loop is not supported; assign the elements in a for loop
    y[i] = a[0] * a[1] + a[2];
  }
}
void request() { auto g = adjoint::gradient(f, "y, x"); (void)g; }
