#include <adjoint/ad.hpp>
#include <cmath>
// std::lerp has a body in <cmath>, but adjc differentiates library functions only by its rule table.
double blend(double x, double y) {
  return std::lerp(x, y, 0.25);  // error: no derivative for this call: library function 'std::lerp' has no derivative rule in adjc (it never differentiates a library's code; docs/adjc.md, "Library functions"); define adjoint::custom_derivatives::lerp_pullback
}
void request() { auto g = adjoint::gradient(blend); (void)g; }
