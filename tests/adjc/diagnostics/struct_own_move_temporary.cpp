#include <adjoint/ad.hpp>
// A move constructor that does more than copy the members (and reset the source's).
int moves = 0;
struct Cell {
  double v;
  explicit Cell(double a) : v(a) {}
  Cell(const Cell&) = default;
  Cell(Cell&& o) noexcept : v(o.v) { ++moves; }
};
double square(Cell c) { return c.v * c.v; }
double f(double x) {
  return square(Cell(x));  // error: a temporary of struct 'Cell', which has a move constructor of its own that does more than copy members, is not supported
}
void request() { auto g = adjoint::gradient(f); (void)g; }
