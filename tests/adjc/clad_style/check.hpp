#pragma once
// The checks of the Clad-style suite: each program prints its gradients and the central
// differences they are compared with, and exits non-zero on a mismatch.
//   |adjc - fd| <= tol * max(1, |fd|), fd = (f(x + h) - f(x - h)) / 2h
// h = 1e-6, tol = 1e-6 for double; h = 1e-3, tol = 1e-2 when the variable or the result is a float.
#include <cmath>
#include <cstdio>
#include <type_traits>

namespace clad_style {

inline int failures = 0;

// `f` evaluates the function with the current value of `x`, which is perturbed in place.
template <class T, class F>
void expect_gradient(const char* what, double analytic, T& x, F f) {
  const bool single = std::is_same_v<T, float> || std::is_same_v<decltype(f()), float>;
  const double h = single ? 1e-3 : 1e-6, tol = single ? 1e-2 : 1e-6;
  const T saved = x;
  x = T(saved + h);
  const double up = double(f());
  x = T(saved - h);
  const double down = double(f());
  const double step = double(T(saved + h)) - double(T(saved - h));
  x = saved;
  const double fd = (up - down) / step;
  const bool ok = std::fabs(analytic - fd) <= tol * std::fmax(1.0, std::fabs(fd));
  std::printf("%s = %.6f (finite differences %.6f)%s\n", what, analytic, fd, ok ? "" : "  MISMATCH");
  if (!ok) ++failures;
}

// The gradient `g` (adjoint::gradient(f)) of a function `f(x, y)` of two doubles, checked in both.
template <class F, class G>
void expect_gradients(const char* name, F f, G g, double x, double y) {
  double dx = 0, dy = 0;
  g.execute(x, y, &dx, &dy);
  std::printf("%s\n", name);
  expect_gradient("  dx", dx, x, [&] { return f(x, y); });
  expect_gradient("  dy", dy, y, [&] { return f(x, y); });
}

// A derivative against its known value (where finite differences of the function would not give
// it: parts marked non-differentiable are constants to the derivative).
inline void expect_value(const char* what, double analytic, double expected) {
  const bool ok = std::fabs(analytic - expected) <= 1e-9 * std::fmax(1.0, std::fabs(expected));
  std::printf("%s = %.6f (expected %.6f)%s\n", what, analytic, expected, ok ? "" : "  MISMATCH");
  if (!ok) ++failures;
}

inline int report() {
  if (failures) std::printf("FAILED: %d mismatches\n", failures);
  else std::printf("PASSED\n");
  return failures != 0;
}

}  // namespace clad_style
