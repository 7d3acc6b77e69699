#include <adjoint/ad.hpp>
double f(double x);
void request() { auto g = adjoint::gradient(f); (void)g; }  // error: 'f' has no body in this translation unit
