#include <adjoint/ad.hpp>
// A pointer member null where its struct is declared, given a target in a branch only: after the
// `if` it is null or points at `a`, one variable for two regions.
struct Cell {
  double w = 0;
  Cell* prev = nullptr;
};
double f(double x) {
  Cell a;
  a.w = x;
  Cell b;
  if (x > 0) {
    b.prev = &a;  // error: local pointer 'b.prev' must keep pointing into the same array here; give it another array only by a statement of the block that declares it
  }
  return b.w + a.w * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
