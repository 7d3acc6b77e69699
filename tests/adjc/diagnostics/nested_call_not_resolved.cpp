// A member function's derivative, called with its object inside a function an outer request
// differentiates, is not followed yet.
#include <adjoint/ad.hpp>
struct S {
  double k = 2;
  double f(double x) const { return k * x * x; }
};
double slope(double x) {
  S s;
  return adjoint::derivative(&S::f, "x").execute(s, x);  // error: an outer request cannot differentiate this call of the generated derivative 'f_darg0'
}
double second(double x) { return adjoint::derivative(slope, "x").execute(x); }
