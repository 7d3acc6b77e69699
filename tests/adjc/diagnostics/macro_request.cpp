#include <adjoint/ad.hpp>
double f(double x) { return x * x; }
#define GRAD(fn) adjoint::gradient(fn)
void request() { auto g = GRAD(f); (void)g; }  // error: adjoint::gradient cannot be requested inside a macro
