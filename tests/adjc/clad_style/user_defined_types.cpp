// Structs passed by value, reference and pointer; their adjoint is a struct of the same type.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

struct Vec2 {
  double x, y;
};
struct Model {
  double w[3];
  double bias;
};

double length2(Vec2 v) { return v.x * v.x + v.y * v.y; }
double predict(const Model& m, const double* in) {
  double s = m.bias;
  for (int i = 0; i < 3; i++) s += m.w[i] * in[i];
  return s * s;
}
double cross(const Vec2* a, const Vec2* b) { return a->x * b->y - a->y * b->x; }

int main() {
  Vec2 v{0.3, -1.2}, dv{};
  adjoint::gradient(length2).execute(v, &dv);
  expect_gradient("d length2 / dv.x", dv.x, v.x, [&] { return length2(v); });
  expect_gradient("d length2 / dv.y", dv.y, v.y, [&] { return length2(v); });
  Model m{{0.5, -0.25, 1.5}, 0.1}, dm{};
  double in[3] = {1, 2, -0.5}, din[3] = {};
  adjoint::gradient(predict).execute(m, in, &dm, din);
  for (int i = 0; i < 3; i++) {
    expect_gradient("d predict / dw[i]", dm.w[i], m.w[i], [&] { return predict(m, in); });
    expect_gradient("d predict / din[i]", din[i], in[i], [&] { return predict(m, in); });
  }
  expect_gradient("d predict / dbias", dm.bias, m.bias, [&] { return predict(m, in); });
  Vec2 a{1, 2}, b{-0.5, 0.7}, da{}, db{};
  adjoint::gradient(cross).execute(&a, &b, &da, &db);
  expect_gradient("d cross / da.x", da.x, a.x, [&] { return cross(&a, &b); });
  expect_gradient("d cross / db.x", db.x, b.x, [&] { return cross(&a, &b); });
  return clad_style::report();
}
