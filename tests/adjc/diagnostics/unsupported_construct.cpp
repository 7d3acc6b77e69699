#include <adjoint/ad.hpp>
#include <algorithm>
#include <functional>
// A construct adjc has no rule for is named in words, with its Clang class.
double f(double x, double y) {
  return std::max(x, y, std::function<bool(double, double)>());  // error: constructing a 'std::function<bool (double, double)>' here is not supported (CXXTemporaryObjectExpr)
}
void request() { auto g = adjoint::gradient(f); (void)g; }
