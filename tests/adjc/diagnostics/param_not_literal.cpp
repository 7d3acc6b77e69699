#include <adjoint/ad.hpp>
double f(double x, double y) { return x * y; }
const char* which = "x";
void request() { auto g = adjoint::gradient(f, which); (void)g; }  // error: must be a string literal
