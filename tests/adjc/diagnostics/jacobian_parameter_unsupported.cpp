// A struct output: its members would each be rows, which Jacobians do not lay out yet.
#include <adjoint/ad.hpp>
struct Pair {
  double a, b;
};
void split(double x, Pair& p) {
  p.a = x * x;
  p.b = 2 * x;
}
void request() {
  auto j = adjoint::jacobian(split, "x");  // error: a Jacobian's inputs and outputs are floating scalars, arrays of them, std::vector and std::array of them; parameter 'p' has type 'Pair &'
  (void)j;
}
