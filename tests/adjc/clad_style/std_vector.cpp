// std::vector<double> and std::array as inputs and scratch buffers.
#include <adjoint/ad.hpp>

#include <array>
#include <vector>

#include "check.hpp"

using clad_style::expect_gradient;

double vec_norm(const std::vector<double>& v) {
  double s = 0;
  for (std::size_t i = 0; i < v.size(); i++) s += v[i] * v.at(i);
  return s;
}
double array_dot(const std::array<double, 3>& a, double x) {
  std::vector<double> scratch(3);
  for (int i = 0; i < 3; i++) scratch.at(i) = a.at(i) * x;
  return scratch[0] + scratch.at(1) * scratch[2];
}

int main() {
  std::vector<double> v = {0.5, -1, 2}, dv(3);
  adjoint::gradient(vec_norm).execute(v, &dv);
  for (int i = 0; i < 3; i++) expect_gradient("d vec_norm / dv[i]", dv[i], v[i], [&] { return vec_norm(v); });
  std::array<double, 3> a = {1, 2, 3}, da{};
  double x = 0.5, dx = 0;
  adjoint::gradient(array_dot).execute(a, x, &da, &dx);
  for (int i = 0; i < 3; i++) expect_gradient("d array_dot / da[i]", da[i], a[i], [&] { return array_dot(a, x); });
  expect_gradient("d array_dot / dx", dx, x, [&] { return array_dot(a, x); });
  return clad_style::report();
}
