#include <adjoint/ad.hpp>
double checked(double v);  // may throw: its handlers could run
struct Guarded {
  double a;
  explicit Guarded(double v) try : a(v * v) {
    a += checked(v);
  } catch (...) {
  }
};
double f(double x) {
  Guarded g(x);  // error: this constructor of 'Guarded' is a function-try-block that may throw, which adjc does not differentiate (exceptions are not supported); remove the try and its handlers
  return g.a * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
