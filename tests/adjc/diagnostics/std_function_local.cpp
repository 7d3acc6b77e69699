#include <adjoint/ad.hpp>
#include <functional>
double sq(double a) { return a * a; }
double f(double x) {
  std::function<double(double)> g = sq;  // error: local variable 'g' has type 'std::function<double (double)>', a std::function, which hides from adjc the function it holds; take a function pointer ('double (*)(double)')
  return g(x);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
