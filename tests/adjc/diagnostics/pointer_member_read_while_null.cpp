#include <adjoint/ad.hpp>
// A local struct's pointer member, null by its default initialiser, read through before any
// statement gives it a target: it points at nothing adjc could give an adjoint.
struct Cell {
  double w = 0;
  Cell* prev = nullptr;
};
double f(double x) {
  Cell c;
  c.w = x;
  return c.prev->w * x;  // error: 'c.prev' is read through here while it is null: give it a target (`c.prev = &x;`) by a statement of the block that declares it, before this read
}
void request() { auto g = adjoint::gradient(f); (void)g; }
