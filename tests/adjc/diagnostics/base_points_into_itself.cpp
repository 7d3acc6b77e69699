#include <adjoint/ad.hpp>
// A base class whose constructor points one of its members at another, built by a derived class's
// constructor: adjc does not model the base's part of the object as memory of its own.
struct Base {
  Base(double v) noexcept : x(v), px(&x) {}
  double x;
  double* px;
};
struct Derived : Base {
  Derived(double v, double w) noexcept : Base(v), y(w) { y *= v; }  // error: this constructor of 'Base' points 'px' at its own member 'x', which adjc does not support
  double y;
};
double f(double i, double j) {
  Derived d(i, j);
  return d.y * *d.px;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
