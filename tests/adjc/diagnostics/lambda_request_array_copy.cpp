#include <adjoint/ad.hpp>
void request() {
  double v[2] = {0.5, 1.5};
  auto dot = [v](double t) { return v[0] * t + v[1] * t * t; };  // error: a gradient request cannot pass the lambda's copy of array 'v'; capture it by reference ([&v])
  auto g = adjoint::gradient(dot);
  (void)g;
}
