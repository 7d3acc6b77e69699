// Heap allocation: `new T[n]`, `new T(v)`, a pointer declared nullptr and given its `new` later,
// `delete`/`delete[]` of the pointer or of an alias owning it; `new` of a struct, the C library's
// malloc/calloc/realloc/free and memset zero fill (Clad's test/Gradient/Pointers.C).
#include <adjoint/ad.hpp>

#include <cstdlib>
#include <cstring>

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
struct T {
  double x;
  int y;
};
double structPointer(double x) {
  T* t = new T{x, 0};  // Clad writes T{x}: -Wextra -Werror reports the missing initialiser
  double res = t->x;
  delete t;
  return res;
}
double cStyleMemoryAlloc(double x, size_t n) {
  T* t = (T*)malloc(sizeof(T) * n);
  memset(t, 0, n * sizeof(T));
  t->x = x;
  double* p = (double*)calloc(1, sizeof(double));
  *p = x;
  double res = t->x + *p;
  p = (double*)realloc(p, 2 * sizeof(double));
  p[1] = 2 * x;
  res += p[1];
  free(p);
  free(t);
  return res;
}
void add_scaled(T& t, double k) { t.x += k * t.x; }
double struct_to_callee(double x) {
  T* t = (T*)calloc(1, sizeof(T));
  t->x = x * x;
  add_scaled(*t, x);
  double r = (*t).x;
  free(t);
  return r;
}
double realloc_grow(double x, int n) {
  double* p = static_cast<double*>(std::malloc(sizeof(double)));
  p[0] = x;
  p = static_cast<double*>(std::realloc(p, n * sizeof(double)));
  for (int i = 1; i < n; i++) p[i] = p[i - 1] * x;
  double r = p[n - 1];
  std::free(p);
  return r;
}
float zero_filled(float x) {
  float a[3] = {x, x * x, 1};
  float r = a[1];
  std::memset(a, 0, sizeof a);
  a[2] += x;
  r += a[0] + a[2] * x;
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
  dx = 0;
  adjoint::gradient(structPointer).execute(x, &dx);
  expect_gradient("d structPointer / dx", dx, x, [&] { return structPointer(x); });
  dx = 0;
  adjoint::gradient(cStyleMemoryAlloc, "x").execute(x, 7, &dx);
  expect_gradient("d cStyleMemoryAlloc / dx", dx, x, [&] { return cStyleMemoryAlloc(x, 7); });
  dx = 0;
  adjoint::gradient(struct_to_callee).execute(x, &dx);
  expect_gradient("d struct_to_callee / dx", dx, x, [&] { return struct_to_callee(x); });
  dx = 0;
  adjoint::gradient(realloc_grow, "x").execute(x, 4, &dx);
  expect_gradient("d realloc_grow / dx", dx, x, [&] { return realloc_grow(x, 4); });
  dxf = 0;
  adjoint::gradient(zero_filled).execute(xf, &dxf);
  expect_gradient("d zero_filled / dx", dxf, xf, [&] { return zero_filled(xf); });
  return clad_style::report();
}
