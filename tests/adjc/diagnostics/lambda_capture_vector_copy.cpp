#include <adjoint/ad.hpp>

#include <vector>
double f(double x) {
  std::vector<double> v = {x, 2 * x, x * x};
  auto product = [v] { return v[0] * v[2]; };  // error: the lambda captures 'v' (of type 'std::vector<double>') by copy, which is not supported; capture it by reference ([&v])
  return product();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
