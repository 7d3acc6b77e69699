#include <adjoint/ad.hpp>
double square_of(double v) { return v * v; }
void request() {
  auto g = adjoint::gradient(reinterpret_cast<double (*)(float)>(square_of), "v");  // error: the first argument of adjoint::gradient does not resolve to one function: the cast to 'double (*)(float)' is not to the type of 'square_of'
  (void)g;
}
