#include <adjoint/ad.hpp>
#include <functional>
double sq(double a) { return a * a; }
double apply(const std::function<double(double)>& fn, double v) { return fn(v); }
double f(double x) {
  return apply(sq, x);  // error: parameter 'fn' of 'apply' has type 'const std::function<double (double)> &', a std::function, which hides from adjc the function it holds; take a function pointer ('double (*)(double)') and pass the function by name
}
void request() { auto g = adjoint::gradient(f); (void)g; }
