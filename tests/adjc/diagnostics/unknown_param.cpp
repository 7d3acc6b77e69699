#include <adjoint/ad.hpp>
double f(double x, double y) { return x * y; }
void request() { auto g = adjoint::gradient(f, "x,z"); (void)g; }  // error: 'f' has no parameter named 'z'
