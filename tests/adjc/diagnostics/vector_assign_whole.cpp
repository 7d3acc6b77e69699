#include <adjoint/ad.hpp>
#include <vector>
void f(const std::vector<double>& x, std::vector<double>& y) {
  y = x;  // error: operator= on std::vector 'y' is not supported (a copy or comparison of the whole container)
}
void request() { auto g = adjoint::gradient(f); (void)g; }
