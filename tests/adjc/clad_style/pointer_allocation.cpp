// Heap allocation: `new T[n]`, `new T(v)`, a pointer declared nullptr and given its `new` later,
// `delete`/`delete[]` of the pointer or of an alias owning it.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double later_new(double x) {
  double* p = nullptr;
  p = new double[2];
  double* owner = p;
  p[0] = x * x;
  p[1] = p[0] * x;
  double r = p[0] + p[1];
  delete[] owner;
  return r;
}
double one_object(double x, double y) {
  double* v = new double(x * y);
  *v = *v * *v + y;
  double r = *v * x;
  delete v;
  return r;
}
double squares(double x, int n) {
  double* buf = new double[n]();
  for (int i = 0; i < n; i++) buf[i] = x * (i + 1);
  double s = 0;
  for (int i = 0; i < n; i++) s += buf[i] * buf[i];
  delete[] buf;
  return s;
}
float in_floats(float x) {
  float* f = new float[3]{};
  f[1] = x * x;
  f[2] = f[1] * f[0] + x;
  float r = f[2] * f[1];
  delete[] f;
  return r;
}

int main() {
  double x = 0.7, y = -1.3, dx = 0, dy = 0;
  adjoint::gradient(later_new).execute(x, &dx);
  expect_gradient("d later_new / dx", dx, x, [&] { return later_new(x); });
  dx = 0;
  adjoint::gradient(one_object).execute(x, y, &dx, &dy);
  expect_gradient("d one_object / dx", dx, x, [&] { return one_object(x, y); });
  expect_gradient("d one_object / dy", dy, y, [&] { return one_object(x, y); });
  dx = 0;
  adjoint::gradient(squares, "x").execute(x, 5, &dx);
  expect_gradient("d squares / dx", dx, x, [&] { return squares(x, 5); });
  float xf = 0.8f, dxf = 0;
  adjoint::gradient(in_floats).execute(xf, &dxf);
  expect_gradient("d in_floats / dx", dxf, xf, [&] { return in_floats(xf); });
  return clad_style::report();
}
