#include <adjoint/ad.hpp>
int f(int a, int b) { return a * b; }
void request() { auto g = adjoint::gradient(f); (void)g; }  // error: 'f' has no differentiable parameters
