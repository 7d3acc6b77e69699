#include <adjoint/ad.hpp>
#include <vector>
void f(const double* x, int n, std::vector<double>& out) {
  out.resize(n);  // error: 'std::vector::resize' on a std::vector that is not a local variable is not supported; the caller sizes it, and the function assigns its elements
  for (int i = 0; i < n; i++) out[i] = x[i] * x[i];
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
