#include <adjoint/ad.hpp>
double total = 0;
double f(double x) {
  return x * total;  // error: non-const global variable 'total' is not supported (code adjc does not see could change it between the forward and the reverse sweep); make it const, or pass it as a parameter
}
void request() { auto g = adjoint::gradient(f); (void)g; }
