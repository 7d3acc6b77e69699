// A program in Clad's API only: the energy of a pendulum, with a custom derivative in
// clad::custom_derivatives, differentiated with clad::gradient and checked against central
// finite differences (exit status 1 on a mismatch).
#include "clad/Differentiator/Differentiator.h"

#include <cmath>
#include <cstdio>

// A function whose derivative the program supplies (as if it had no body adjc could read).
double smooth_cos(double a) { return std::cos(a); }

namespace clad {
namespace custom_derivatives {
// Inside clad::custom_derivatives, std:: names Clad's namespace of derivatives: ::std:: is the library.
void smooth_cos_pullback(double a, double d_y, double* d_a) { *d_a += -::std::sin(a) * d_y; }
}  // namespace custom_derivatives
}  // namespace clad

// Kinetic plus potential energy of a pendulum of length l at angle a, angular speed w.
double energy(double l, double a, double w) {
  const double g = 9.81;
  return 0.5 * l * l * w * w + g * l * (1 - smooth_cos(a));
}

int main() {
  double l = 1.5, a = 0.3, w = 2.0;
  double d_l = 0, d_a = 0, d_w = 0;
  auto g = clad::gradient(energy, "l, a, w");
  g.execute(l, a, w, &d_l, &d_a, &d_w);
  const double analytic[3] = {d_l, d_a, d_w};
  double* inputs[3] = {&l, &a, &w};
  const char* names[3] = {"l", "a", "w"};
  int mismatches = 0;
  for (int i = 0; i < 3; ++i) {
    const double h = 1e-6, saved = *inputs[i];
    *inputs[i] = saved + h;
    const double up = energy(l, a, w);
    *inputs[i] = saved - h;
    const double down = energy(l, a, w);
    *inputs[i] = saved;
    const double fd = (up - down) / (2 * h);
    const bool ok = std::fabs(analytic[i] - fd) <= 1e-5 * std::fmax(1.0, std::fabs(fd));
    std::printf("dE/d%s = %.6f (finite differences %.6f)%s\n", names[i], analytic[i], fd, ok ? "" : "  MISMATCH");
    mismatches += !ok;
  }
  return mismatches != 0;
}
