#include <adjoint/ad.hpp>
void layer(double* out, const double* in, int n);
namespace adjoint::custom_derivatives {
void layer_pullback(double* out, const double* in, int n, double* d_out, double* d_in) {
  for (int i = 0; i < n; i++) d_in[i] += d_out[i] * (1 - out[i] * out[i]), d_out[i] = 0;
}
}
// Without ADJOINT_WRITE_ONCE adjc cannot know the layer slices never overlap.
double stack(double* acts, int L, int n) {
  for (int l = 0; l < L; l++) layer(acts + (l + 1) * n, acts + l * n, n);  // error: 'acts' is overwritten by the call to 'layer' but the derivative needs its earlier value
  return acts[L * n];
}
void request() { auto g = adjoint::gradient(stack, "acts"); (void)g; }
