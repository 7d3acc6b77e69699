// Integer and bool parameters, counters and flags, calls whose results carry no derivative; what
// ADJOINT_NON_DIFFERENTIABLE marks (a function, member function, data member, pointer member,
// variable or class) is a constant to the derivative.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;
using clad_style::expect_value;

int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
bool is_positive(double v) { return v > 0; }
double gather(const double* x, int n, int shift, bool square) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    int k = clamp_index(i + shift, n);
    double v = x[k];
    if (square && is_positive(v)) v = v * v;
    s += v * (i + 1);
  }
  return s;
}

class Marked {
 public:
  Marked(double p_x, double p_y) : x(p_x), y(p_y) {}
  double x;
  ADJOINT_NON_DIFFERENTIABLE double y;
  double mem_fn_1(double i, double j) { return (x + y) * i + i * j * j; }
  ADJOINT_NON_DIFFERENTIABLE double mem_fn_2(double i, double j) { return i * j; }
  double mem_fn_5(double i, double j) { return mem_fn_2(i, j) * mem_fn_1(i, j) * i; }
};
class ADJOINT_NON_DIFFERENTIABLE MarkedClass {
 public:
  MarkedClass(double p_x, double p_y) : x(p_x), y(p_y) {}
  double x, y;
  double mem_fn(double i, double j) { return (x + y) * i + i * j * j; }
};
ADJOINT_NON_DIFFERENTIABLE double marked_square(double a) { return a * a; }
double field(double i, double j) {
  Marked obj(i, j);
  return obj.x * obj.y * 2 + i * j;
}
struct Pointers {
  const double* x_pointer;
  ADJOINT_NON_DIFFERENTIABLE const double* y_pointer;
};
double field_pointer(const double* x, const double* y) {
  Pointers p{x, y};
  return (*p.x_pointer) * (*p.y_pointer) + p.x_pointer[1] * p.y_pointer[1];
}
double marked_class(double i, double j) {
  MarkedClass obj(2, 3);
  return obj.mem_fn(i, j) + i * j;
}
double marked_variable(double i, double j) {
  ADJOINT_NON_DIFFERENTIABLE double k = i * i * j;
  return k * i;
}
double marked_function(double i, double j) {
  double h = marked_square(i);
  return h * j + i * marked_square(j);
}

int main() {
  // (i, j) = (3, 5); the marked parts are constants: y, mem_fn_2 = i j = 15, k = i^2 j = 45.
  double di = 0, dj = 0;
  adjoint::gradient(field).execute(3, 5, &di, &dj);
  expect_value("d field / di", di, 2 * 5 + 5.0);
  expect_value("d field / dj (y marked)", dj, 3.0);
  double xs[2] = {2, 7}, ys[2] = {3, 11}, dxs[2] = {}, dys[2] = {};
  adjoint::gradient(field_pointer).execute(xs, ys, dxs, dys);
  expect_value("d field_pointer / dx[0]", dxs[0], 3.0);
  expect_value("d field_pointer / dx[1]", dxs[1], 11.0);
  expect_value("d field_pointer / dy[0] (through a marked pointer)", dys[0], 0.0);
  expect_value("d field_pointer / dy[1] (through a marked pointer)", dys[1], 0.0);
  di = dj = 0;
  adjoint::gradient(marked_class).execute(3, 5, &di, &dj);
  expect_value("d marked_class / di", di, 5.0);
  expect_value("d marked_class / dj", dj, 3.0);
  di = dj = 0;
  adjoint::gradient(marked_variable).execute(3, 5, &di, &dj);
  expect_value("d marked_variable / di", di, 45.0);
  expect_value("d marked_variable / dj", dj, 0.0);
  di = dj = 0;
  adjoint::gradient(marked_function).execute(3, 5, &di, &dj);
  expect_value("d marked_function / di", di, 25.0);
  expect_value("d marked_function / dj", dj, 9.0);
  Marked obj(2, 3), d_obj(0, 0);
  di = dj = 0;
  adjoint::gradient(&Marked::mem_fn_5).execute(obj, 3, 5, &d_obj, &di, &dj);
  // 15 * mem_fn_1 * i with mem_fn_1 = (x + y) i + i j^2 = 90: d/di = 15 (30 i + 90), d/dj = 15 i (2 i j).
  expect_value("d mem_fn_5 / di", di, 15 * (30 * 3 + 90.0));
  expect_value("d mem_fn_5 / dj", dj, 15 * 3 * 30.0);
  expect_value("d mem_fn_5 / dx", d_obj.x, 15 * 3 * 3.0);
  expect_value("d mem_fn_5 / dy (marked)", d_obj.y, 0.0);

  double x[4] = {0.5, -0.3, 1.2, 0.8};
  for (bool square : {false, true}) {
    double dx[4] = {};
    adjoint::gradient(gather, "x").execute(x, 4, 1, square, dx);
    for (int i = 0; i < 4; i++) expect_gradient("d gather / dx[i]", dx[i], x[i], [&] { return gather(x, 4, 1, square); });
  }
  return clad_style::report();
}
