#include <adjoint/ad.hpp>
template <class F>
double twice(F f, double x) { return f(f(x)); }
double f(double x, double k) {
  auto scaled = [k](double v) { return v * k; };
  return twice(scaled, x);  // error: lambda 'scaled' has captures and is used other than by calling it (copied or passed), which is not supported; call it in the function that declares it
}
void request() { auto g = adjoint::gradient(f); (void)g; }
