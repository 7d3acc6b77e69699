#include <adjoint/ad.hpp>
// A copy constructor of the user's own: generated code would copy the value member by member
// instead of running it.
struct Cell {
  double v;
  explicit Cell(double a) : v(a) {}
  Cell(const Cell& o) : v(o.v) {}
};
Cell grow(double a) { return Cell(a * a); }
double f(double x) {
  return grow(x).v * x;  // error: calling a function that returns a value of struct 'Cell', which has a copy constructor of its own, is not supported: generated code copies and tapes struct values member by member, as the compiler's own would; remove it (or declare it '= default')
}
void request() { auto g = adjoint::gradient(f); (void)g; }
