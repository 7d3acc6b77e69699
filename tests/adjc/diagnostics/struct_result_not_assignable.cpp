#include <adjoint/ad.hpp>
// Generated code assigns a call's result to a temporary: a struct whose copy assignment is deleted
// (here by its const member) cannot be a result.
struct Fixed {
  const double scale;
  double value;
};
Fixed make(double x) { return {2.0, x * x}; }
double f(double x) {
  return make(x).value * x;  // error: calling a function that returns struct 'Fixed', which cannot be copy-assigned or moved, is not supported (generated code assigns and moves results); make its members non-const and let the compiler declare its copy and move members
}
void request() { auto g = adjoint::gradient(f); (void)g; }
