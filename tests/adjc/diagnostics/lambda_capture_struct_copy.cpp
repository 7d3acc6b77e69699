#include <adjoint/ad.hpp>
struct Params {
  double a, b;
};
double f(const Params& p, double x) {
  auto line = [p](double v) { return p.a * v + p.b; };  // error: the lambda captures 'p' (of type 'Params') by copy, which is not supported; capture it by reference ([&p])
  return line(x) * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
