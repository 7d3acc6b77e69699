// A call to a user function (its pullback is generated) and to one with a custom pullback.
#include <adjoint/ad.hpp>
#include <cmath>

double square(double v) { return v * v; }
double clip(double v) { return v / (1 + std::fabs(v)); }
namespace adjoint::custom_derivatives {
void clip_pullback(double v, double d_result, double* d_v) {
  double a = 1 + std::fabs(v);
  *d_v += d_result / (a * a);
}
}  // namespace adjoint::custom_derivatives

double model(const double* w, double x) { return clip(square(w[0] * x) + w[1]); }

const char* request() { return adjoint::gradient(model, "w").source(); }
