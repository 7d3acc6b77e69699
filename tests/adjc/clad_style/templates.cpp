// Function templates: each specialization used is differentiated from its instantiated body; so is
// the operator() (or member) of a class template that only the request names (Clad's
// TemplateFunctors.C: nothing calls it, so nothing else instantiates its body).
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

template <class T>
T cube_plus(T x, T y) {
  return x * x * x + y * x;
}
template <class T>
T sum_squares(const T* x, int n) {
  T s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
template <int N>
double unrolled(const double* x) {
  double s = 1;
  for (int i = 0; i < N; i++) s = s * x[i] + 1;
  return s;
}
template <class T>
struct Scaled {
  T k;
  T operator()(T a, T b) { return k * a * a + b; }
  T twice(T a) const { return 2 * k * a; }
};

int main() {
  double x = 0.7, y = 1.4, dx = 0, dy = 0;
  adjoint::gradient(cube_plus<double>).execute(x, y, &dx, &dy);
  expect_gradient("d cube_plus<double> / dx", dx, x, [&] { return cube_plus(x, y); });
  expect_gradient("d cube_plus<double> / dy", dy, y, [&] { return cube_plus(x, y); });
  float xf = 0.7f, yf = 1.4f, dxf = 0, dyf = 0;
  adjoint::gradient(cube_plus<float>).execute(xf, yf, &dxf, &dyf);
  expect_gradient("d cube_plus<float> / dx", dxf, xf, [&] { return cube_plus(xf, yf); });
  double v[3] = {0.2, -0.6, 1.1}, dv[3] = {};
  adjoint::gradient(sum_squares<double>, "x").execute(v, 3, dv);
  for (int i = 0; i < 3; i++) expect_gradient("d sum_squares / dx[i]", dv[i], v[i], [&] { return sum_squares(v, 3); });
  double du[3] = {};
  adjoint::gradient(unrolled<3>).execute(v, du);
  for (int i = 0; i < 3; i++) expect_gradient("d unrolled<3> / dx[i]", du[i], v[i], [&] { return unrolled<3>(v); });
  // The checks spell out the members' formulas: a call would instantiate them.
  Scaled<double> e{3}, d_e{};
  double a = 0.5, b = 2, da = 0, db = 0;
  adjoint::gradient(e).execute(a, b, &d_e, &da, &db);
  expect_gradient("d Scaled<double>() / da", da, a, [&] { return e.k * a * a + b; });
  expect_gradient("d Scaled<double>() / db", db, b, [&] { return e.k * a * a + b; });
  expect_gradient("d Scaled<double>() / dk", d_e.k, e.k, [&] { return e.k * a * a + b; });
  da = 0;
  adjoint::gradient(&Scaled<double>::twice, "a").execute(e, a, &da);
  expect_gradient("d Scaled<double>::twice / da", da, a, [&] { return 2 * e.k * a; });
  return clad_style::report();
}
