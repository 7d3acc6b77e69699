// An element of a pointer parameter: adjc does not know the array's length to seed it.
#include <adjoint/ad.hpp>
double f(const double* a) { return a[0] * a[1]; }
void request() {
  auto d = adjoint::derivative(f, "a[1]");  // error: 'a' is a pointer, whose length adjc does not know; request the whole array ('a') and pass execute a direction with a 1 at the element
  (void)d;
}
