#include <adjoint/ad.hpp>
double f(double x) {
  double scale = 1, s = 0;
  auto grow = [&scale](double v) {  // error: the lambda both writes and reads 'scale', which it captures by reference; this is not supported: return the new value from the lambda and assign it where the lambda is called
    scale *= 2;
    return v * scale;
  };
  for (int i = 0; i < 2; i++) s += grow(x * (i + 1));
  return s;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
