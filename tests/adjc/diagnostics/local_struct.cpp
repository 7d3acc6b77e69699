#include <adjoint/ad.hpp>
struct Layer {
  const double* w;
  double scale;
};
double f(const double* p, double x) {
  Layer layer = {p + 1, 2.0};  // error: local struct 'layer' of type 'Layer' is not supported (structs are supported as parameters); use a local variable per member
  return layer.w[0] * layer.scale * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
