#include <adjoint/ad.hpp>
// A lambda called in a member initialiser runs in place, which a second construction would repeat.
struct Spring {
  double rest, stretch;
  Spring(double length, double k)
      : rest(length),
        stretch([&] {  // error: a lambda called in a member initialiser must capture by reference only, declare no variables and end in its one return
          double t = rest * k;
          return t - rest;
        }()) {}
};
double f(double x, double k) {
  Spring s(x, k);
  return s.stretch;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
