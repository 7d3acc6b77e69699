// Filling containers with a value that carries a derivative (std::array::fill, std::vector's
// (n, x) constructor, assign and resize), and std::max / std::min of braced lists.
#include <adjoint/ad.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "check.hpp"

using clad_style::expect_gradient;

double array_fill(double x, double y) {
  std::array<double, 3> a;
  a.fill(x);
  a[1] = y;
  double s = 0;
  for (double v : a) s += v * v;
  return s;
}
double vector_fill(double x, double y) {
  int n = 3;
  std::vector<double> v(n, x);
  v[0] = y;
  double s = 0;
  for (double e : v) s += e * e;
  return s;
}
double first_extremes(double x, double y) { return std::max({x, y, x * y}) + std::min({x, y}); }

// fill on a reference parameter and on a member, the value an expression of the inputs.
struct Table {
  std::array<double, 4> w;
  double scale;
};
double fill_outputs(std::array<double, 4>& out, Table& t, double x) {
  out.fill(std::sin(x));
  t.w.fill(x * t.scale);
  t.w[3] = out[0] * x;
  double s = 0;
  for (int i = 0; i < 4; i++) s += t.w[i] * out[i] * (i + 1);
  return s;
}
// A float array refilled in a loop from its own elements, read again after each refill.
float refilled_array(float x, float y) {
  std::array<float, 3> a = {x, y, x * y};
  float s = 0;
  for (int k = 0; k < 3; k++) {
    a.fill(a[k] * 0.5f + y);
    a[k] = a[k] * x;
    s += a[0] * a[1] + a[2];
  }
  return s;
}
// A vector filled from a local, refilled by assign in a loop and grown by resize, all with
// values that carry derivatives.
double vector_refills(double x, double y, int n) {
  double w = x * y;
  std::vector<double> v(n, w);
  double s = 0;
  for (int r = 0; r < 3; r++) {
    s += v[r % n] * v[(r + 1) % n];
    v.assign(n, std::exp(x * (r + 1)));
    v[r % n] *= y;
  }
  v.resize(n + 2, s * y);
  for (double e : v) s += e * x;
  return s;
}
// max/min of elements read from memory, in a loop.
double windows(const double* p, int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; i++)
    s += std::max({p[i], 2 * p[i + 1], p[i + 2]}) * std::min({p[i + 2], p[i] * p[i + 1]});
  return s;
}
// float, a literal the list converts, nested lists, one element, and an integer list as a bound.
float select_float(float x, float y) {
  return std::max({x, y, 0.25f * x}) * std::min<float>({x + y, 1, y}) + std::max({std::min({x, y}), -x});
}
double select_misc(double x, int n) {
  double s = std::max({x * x}) + std::min<double>({x, 2, 0.25 * n});
  for (int i = 0; i < std::max({n, 2}); i++) s += std::max({std::sin(x * i), std::cos(x), x / (i + 1)});
  return s;
}

int main() {
  {
    double x = 0.7, y = -1.2, dx = 0, dy = 0;
    adjoint::gradient(array_fill).execute(x, y, &dx, &dy);
    expect_gradient("d array_fill / dx", dx, x, [&] { return array_fill(x, y); });
    expect_gradient("d array_fill / dy", dy, y, [&] { return array_fill(x, y); });
    dx = dy = 0;
    adjoint::gradient(vector_fill).execute(x, y, &dx, &dy);
    expect_gradient("d vector_fill / dx", dx, x, [&] { return vector_fill(x, y); });
    expect_gradient("d vector_fill / dy", dy, y, [&] { return vector_fill(x, y); });
  }
  const double points[3][2] = {{0.8, 0.4}, {0.8, 1.5}, {1.3, 1.7}};  // x, y, then x * y the largest
  for (const auto& p : points) {
    double x = p[0], y = p[1], dx = 0, dy = 0;
    adjoint::gradient(first_extremes).execute(x, y, &dx, &dy);
    expect_gradient("d first_extremes / dx", dx, x, [&] { return first_extremes(x, y); });
    expect_gradient("d first_extremes / dy", dy, y, [&] { return first_extremes(x, y); });
  }
  {
    std::array<double, 4> out{}, d_out{};
    Table t{{}, 1.5}, d_t{};
    double x = 0.6, dx = 0;
    adjoint::gradient(fill_outputs).execute(out, t, x, &d_out, &d_t, &dx);
    auto f = [&] {
      std::array<double, 4> o{};
      Table u{{}, t.scale};
      return fill_outputs(o, u, x);
    };
    expect_gradient("d fill_outputs / dx", dx, x, f);
    expect_gradient("d fill_outputs / d scale", d_t.scale, t.scale, f);
  }
  {
    float x = 0.8f, y = 0.3f, dx = 0, dy = 0;
    adjoint::gradient(refilled_array).execute(x, y, &dx, &dy);
    expect_gradient("d refilled_array / dx", dx, x, [&] { return refilled_array(x, y); });
    expect_gradient("d refilled_array / dy", dy, y, [&] { return refilled_array(x, y); });
  }
  {
    double x = 0.35, y = -0.8, dx = 0, dy = 0;
    adjoint::gradient(vector_refills, "x, y").execute(x, y, 4, &dx, &dy);
    expect_gradient("d vector_refills / dx", dx, x, [&] { return vector_refills(x, y, 4); });
    expect_gradient("d vector_refills / dy", dy, y, [&] { return vector_refills(x, y, 4); });
  }
  {
    double p[6] = {0.3, -0.2, 1.1, 0.45, -0.9, 0.7}, dp[6] = {};
    adjoint::gradient(windows, "p").execute(p, 6, dp);
    for (int i = 0; i < 6; i++) expect_gradient("d windows / dp[i]", dp[i], p[i], [&] { return windows(p, 6); });
  }
  for (float y : {0.3f, -0.6f, 2.0f}) {
    float x = 0.9f, dx = 0, dy = 0;
    adjoint::gradient(select_float).execute(x, y, &dx, &dy);
    expect_gradient("d select_float / dx", dx, x, [&] { return select_float(x, y); });
    expect_gradient("d select_float / dy", dy, y, [&] { return select_float(x, y); });
  }
  for (double x : {0.2, 0.9, -1.4}) {
    double dx = 0;
    adjoint::gradient(select_misc, "x").execute(x, 3, &dx);
    expect_gradient("d select_misc / dx", dx, x, [&] { return select_misc(x, 3); });
  }
  return clad_style::report();
}
