// clad::hessian in Clad's spelling: scalars and array ranges together, ranges that include their
// upper bound ("a[0:2]" is three elements), no list (every parameter), clad::opts::diagonal_only,
// a member function's (the object first), and `pair_hessian`, Clad's generated name, declared by
// the user and defined by the request; each entry against central differences of the gradient,
// written out.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

double mixed(double x, const double a[3]) { return x * x * a[0] + a[1] * a[2] * x + std::sin(a[2]); }
// mixed's gradient in the order x, a[0], a[1], a[2].
double mixed_gradient(int i, double x, const double a[3]) {
  const double g[4] = {2 * x * a[0] + a[1] * a[2], x * x, a[2] * x, a[1] * x + std::cos(a[2])};
  return g[i];
}

double pair(double x, double y) { return x * x * x * y + std::exp(y); }
double pair_gradient(int i, double x, double y) { return i == 0 ? 3 * x * x * y : x * x * x + std::exp(y); }
void pair_hessian(double x, double y, double* hessian);  // defined by adjc for clad::hessian(pair)

struct Lens {
  double power = 1.25;
  double focus(double x, double y) const { return power * x * x * y + y * y; }
};

// Entry (i, j) of `h` (n x n) against the central difference of gradient entry i along entry j of `v`.
template <class G>
void expect_matrix(const char* what, const double* h, int n, double* v[], G gradient) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      std::printf("%s[%d][%d]: ", what, i, j);
      expect_gradient("", h[i * n + j], *v[j], [&] { return gradient(i); });
    }
}

int main() {
  double x = 0.7, a[3] = {1.5, -0.5, 0.3};
  double* mixed_entries[4] = {&x, &a[0], &a[1], &a[2]};
  auto mixed_g = [&](int i) { return mixed_gradient(i, x, a); };
  double h[16];
  clad::hessian(mixed, "x, a[0:2]").execute(x, a, h);
  expect_matrix("hessian(mixed, \"x, a[0:2]\")", h, 4, mixed_entries, mixed_g);

  double d[4];
  clad::hessian<clad::opts::diagonal_only>(mixed, "a[0:2], x").execute(x, a, d);
  for (int i = 0; i < 4; ++i) {
    std::printf("diagonal_only[%d]: ", i);
    expect_gradient("", d[i], *mixed_entries[i], [&] { return mixed_g(i); });
  }

  double y = -1.2;
  double* pair_entries[2] = {&x, &y};
  double hp[4];
  clad::hessian(pair).execute(x, y, hp);
  expect_matrix("hessian(pair)", hp, 2, pair_entries, [&](int i) { return pair_gradient(i, x, y); });
  double named[4] = {};
  pair_hessian(x, y, named);
  expect_matrix("pair_hessian", named, 2, pair_entries, [&](int i) { return pair_gradient(i, x, y); });

  Lens lens;
  double hl[4];
  clad::hessian(&Lens::focus).execute(lens, x, y, hl);
  expect_matrix("hessian(&Lens::focus)", hl, 2, pair_entries,
                [&](int i) { return i == 0 ? 2 * lens.power * x * y : lens.power * x * x + 2 * y; });

  // Two elements of the three (mixed reads a[2] too): the rows and columns of a[0] and a[1].
  double h2[4];
  clad::hessian(mixed, "a[0:1]").execute(x, a, h2);
  double* front[2] = {&a[0], &a[1]};
  expect_matrix("hessian(mixed, \"a[0:1]\")", h2, 2, front, [&](int i) { return mixed_gradient(i + 1, x, a); });
  return clad_style::report();
}
