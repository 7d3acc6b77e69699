// Local references (to locals, parameters and array elements), conditional lvalues, and the
// address of a scalar parameter passed as a one-element array.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double refs(double x, double y) {
  double a = x * y;
  double& r = a;
  r *= x;
  const double& c = y;
  return r + c * c;
}
double element_refs(double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double& e = v[i];
    e = e * e;
    s += e;
  }
  return s * v[0];
}
double tern(double x, double y) {
  double a = 0, b = 0;
  (x > y ? a : b) = x * y;
  (a < b ? a : b) += x;
  return a + 2 * b;
}
template <typename T, int N>
T dotn(const T* a, const T* b) {
  T s = 0;
  for (int i = 0; i < N; i++) s += a[i] * b[i];
  return s;
}
double through_address(double x, double y) { return dotn<double, 1>(&x, &y) + x; }

int main() {
  double x = 0.4, y = 1.7, dx = 0, dy = 0;
  adjoint::gradient(refs).execute(x, y, &dx, &dy);
  expect_gradient("d refs / dx", dx, x, [&] { return refs(x, y); });
  expect_gradient("d refs / dy", dy, y, [&] { return refs(x, y); });
  double v0[3] = {0.5, -1.5, 2}, v[3] = {0.5, -1.5, 2}, dv[3] = {};  // v is overwritten: v0 keeps the point
  adjoint::gradient(element_refs, "v").execute(v, 3, dv);
  for (int i = 0; i < 3; i++)
    expect_gradient("d element_refs / dv[i]", dv[i], v0[i], [&] {
      double w[3] = {v0[0], v0[1], v0[2]};
      return element_refs(w, 3);
    });
  dx = dy = 0;
  adjoint::gradient(tern).execute(x, y, &dx, &dy);
  expect_gradient("d tern / dx", dx, x, [&] { return tern(x, y); });
  expect_gradient("d tern / dy", dy, y, [&] { return tern(x, y); });
  dx = dy = 0;
  adjoint::gradient(through_address).execute(x, y, &dx, &dy);
  expect_gradient("d through_address / dx", dx, x, [&] { return through_address(x, y); });
  expect_gradient("d through_address / dy", dy, y, [&] { return through_address(x, y); });
  return clad_style::report();
}
