#include <adjoint/ad.hpp>
// A member function pointer variable assigned after its initialisation holds whichever function
// the program last put there: not one function adjc can differentiate.
struct S {
  double a;
  double f(double x) const { return a * x; }
  double g(double x) const { return a * x * x; }
};
void request(bool second) {
  auto m = &S::f;
  if (second) m = &S::g;
  auto d = adjoint::gradient(m);  // error: the first argument of adjoint::gradient does not resolve to one member function: 'm' is assigned after its initialisation
  (void)d;
}
