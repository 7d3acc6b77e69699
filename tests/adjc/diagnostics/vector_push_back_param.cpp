#include <adjoint/ad.hpp>
#include <vector>
void f(const std::vector<double>& x, std::vector<double>& out) {
  for (std::size_t i = 0; i < x.size(); i++) out.push_back(x[i] * x[i]);  // error: push_back on a std::vector that is not a local variable is not supported; size it before the call (resize) and assign its elements
}
void request() { auto g = adjoint::gradient(f); (void)g; }
