#pragma once
// Checks a derivative adjc generated in forward mode (adjoint::derivative) against central finite
// differences of the function along the same direction:
//
//   tangentcheck::expect<double>("f", d.execute(x, y), [&](double t) { return f(x + t, y); });
//
// passes when |analytic - (f(t = h) - f(t = -h)) / 2h| <= tol * max(1, |fd|), with h = 1e-6 and
// tol = 1e-6 for double functions (h = 1e-2, tol = 2e-2 for float ones).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace tangentcheck {

template <class T, class F>
void expect(const char* name, double analytic, F&& along) {
  constexpr bool single = std::is_same_v<T, float>;
  const double h = single ? 1e-2 : 1e-6, tol = single ? 2e-2 : 1e-6;
  const double fd = (double(along(T(h))) - double(along(T(-h)))) / (2 * h);
  EXPECT_LE(std::fabs(analytic - fd), tol * std::max(1.0, std::fabs(fd)))
      << name << ": forward mode " << analytic << ", finite differences " << fd;
}

}  // namespace tangentcheck
