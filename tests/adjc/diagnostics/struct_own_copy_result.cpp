#include <adjoint/ad.hpp>
// A copy constructor of the user's own that does more than copy members: generated code copies
// results member by member, and would not double.
struct Cell {
  double v;
  explicit Cell(double a) : v(a) {}
  Cell(const Cell& o) : v(2 * o.v) {}
};
Cell grow(double a) { return Cell(a * a); }
double f(double x) {
  return grow(x).v * x;  // error: calling a function that returns a value of struct 'Cell', which has a copy constructor of its own that does more than copy members, is not supported
}
void request() { auto g = adjoint::gradient(f); (void)g; }
