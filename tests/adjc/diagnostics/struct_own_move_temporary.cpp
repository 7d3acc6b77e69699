#include <adjoint/ad.hpp>
// A move constructor that also clears what it moves from: not a copy by members.
struct Cell {
  double v;
  explicit Cell(double a) : v(a) {}
  Cell(const Cell&) = default;
  Cell(Cell&& o) noexcept : v(o.v) { o.v = 0; }
};
double square(Cell c) { return c.v * c.v; }
double f(double x) {
  return square(Cell(x));  // error: a temporary of struct 'Cell', which has a move constructor of its own, is not supported: generated code copies and tapes struct values member by member, as the compiler's own would; remove it (or declare it '= default')
}
void request() { auto g = adjoint::gradient(f); (void)g; }
