// Corpus: activations written once per layer into slices of one buffer marked
// ADJOINT_WRITE_ONCE, by calls with custom pullbacks (the shape of a network's layer loop): no
// snapshot of the buffer, nothing on the tape per element.
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

// out (n) = tanh(w · in (n))
void layer(double* out, const double* in, double w, int n) {
  for (int i = 0; i < n; i++) out[i] = std::tanh(w * in[i]);
}
namespace adjoint::custom_derivatives {
void layer_pullback(double* out, const double* in, double w, int n, double* d_out, double* d_in, double* d_w) {
  for (int i = 0; i < n; i++) {
    const double g = d_out[i] * (1 - out[i] * out[i]);
    if (d_in) d_in[i] += g * w;
    *d_w += g * in[i];
    d_out[i] = 0;
  }
}
}  // namespace adjoint::custom_derivatives

// acts (L+1, n): slot 0 the input, slot l+1 layer l's output.
double layer_stack(const double* w, ADJOINT_WRITE_ONCE double* acts, const double* x, int L, int n) {
  for (int i = 0; i < n; i++) acts[i] = x[i];
  for (int l = 0; l < L; l++) layer(acts + (l + 1) * n, acts + l * n, w[l], n);
  double s = 0;
  for (int i = 0; i < n; i++) s += acts[L * n + i] * acts[L * n + i];
  return s;
}

TEST(WriteOnce, layer_stack) {
  const int L = 3, n = 4;
  std::vector<double> w = {0.9, -1.3, 0.7}, x = {0.2, -0.5, 0.8, 0.1}, acts((L + 1) * n);
  std::vector<double> dw(L), dx(n), dacts((L + 1) * n);
  auto g = adjoint::gradient(layer_stack, "w, acts, x");
  g.execute(w.data(), acts.data(), x.data(), L, n, dw.data(), dacts.data(), dx.data());
  auto f = [&] { return layer_stack(w.data(), acts.data(), x.data(), L, n); };
  auto fd = [&](double& v) {
    const double saved = v, h = 1e-6;
    v = saved + h;
    const double up = f();
    v = saved - h;
    const double down = f();
    v = saved;
    return (up - down) / (2 * h);
  };
  for (int l = 0; l < L; l++) EXPECT_NEAR(dw[l], fd(w[l]), 1e-6) << "w[" << l << "]";
  for (int i = 0; i < n; i++) EXPECT_NEAR(dx[i], fd(x[i]), 1e-6) << "x[" << i << "]";
  for (double d : dacts) EXPECT_EQ(d, 0.0);  // every consumed adjoint was cleared
}
