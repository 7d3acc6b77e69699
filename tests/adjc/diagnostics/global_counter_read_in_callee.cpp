#include <adjoint/ad.hpp>
int calls = 0;
double scale(double x) { return calls > 0 ? 2 * x : x; }  // error: global 'calls' is written (line 5) and its value read here
double f(double x) {
  calls += 1;
  return scale(x) * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
