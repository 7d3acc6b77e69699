#include <adjoint/ad.hpp>
double f(double x, int n) { return x * n; }
void request() { auto g = adjoint::gradient(f, "n"); (void)g; }  // error: parameter 'n' of 'f' is not differentiable
