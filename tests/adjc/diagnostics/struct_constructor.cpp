#include <adjoint/ad.hpp>
struct Scaled {
  double value;
  explicit Scaled(double v) {
    double twice = v * 2;
    value = twice;
  }
};
double f(double x) {
  Scaled s(x);  // error: initialising struct 's' this way is not supported; use an initialiser list ({a, b} or {.x = a}), or a constructor whose parameters are numbers or pointers and whose body declares no variables
  return s.value * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
