#include <adjoint/ad.hpp>
double f(double x) {
  double scale = 1;
  auto grow = [scale](double v) mutable {  // error: the mutable lambda changes its copy of 'scale', which a gradient request cannot follow; request the gradient of a function that declares and calls the lambda
    scale *= 2;
    return v * scale;
  };
  auto g = adjoint::gradient(grow);
  (void)g;
  return grow(x);
}
