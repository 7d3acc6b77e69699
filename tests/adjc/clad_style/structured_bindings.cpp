// Structured bindings over structs (derived ones too), std::pair of numbers and local arrays of
// numbers, by value (the bindings name a copy) and by reference (they name the object itself).
#include <adjoint/ad.hpp>

#include <utility>

#include "check.hpp"

using clad_style::expect_gradients;

struct Vec2 {
  double x, y;
};
struct Base {
  double u, v;
};
struct Derived : Base {};
std::pair<double, double> square_and_twice(double x) { return {x * x, 2 * x}; }
Vec2 rotated(double a, double b) { return {-b, a}; }

double struct_copy(double a, double b) {
  Vec2 s{a, b};
  auto [p, q] = s;
  p *= q;  // the copy changes, s does not
  return p * s.x + q * s.y;
}
double struct_reference(double a, double b) {
  Vec2 s{a, b};
  auto& [p, q] = s;
  p *= q;  // s.x changes
  return p * s.x + q;
}
double from_call(double a, double b) {
  auto [p, q] = rotated(a * b, b);
  return p * q + p;
}
double pair_of_call(double a, double b) {
  auto [sq, tw] = square_and_twice(a);
  return sq * tw * b;
}
double pair_const_reference(double a, double b) {
  std::pair<double, double> pr{a, b * b};
  const auto& [first, second] = pr;
  return first * second;
}
double pair_reference(double a, double b) {
  std::pair<double, double> pr{a, b};
  auto& [first, second] = pr;
  first *= second;
  return pr.first + second;
}
double derived(double a, double b) {
  Derived d{{a, b}};
  auto [u, v] = d;
  auto& [ru, rv] = d;
  rv += u;
  return u * v + d.v * ru;
}
double array_copy(double a, double b) {
  double arr[2] = {a, b};
  auto [u, v] = arr;
  arr[0] = 3 * b;
  return u * v + arr[0];
}
double array_reference(double a, double b) {
  double arr[3] = {a, b, a * b};
  auto& [u, v, w] = arr;
  u *= w;
  return arr[0] * v;
}
double in_loop(double a, double b) {
  double total = 0;
  for (int i = 0; i < 3; ++i) {
    Vec2 s{a * i, b};
    const auto& [p, q] = s;
    total += p * q;
  }
  return total;
}
double in_lambda(double a, double b) {
  auto product = [b](double u) {
    Vec2 s{u, b};
    auto& [p, q] = s;
    p *= q;
    return s.x * q;
  };
  return product(a);
}

int main() {
  double x = 0.7, y = -1.3;
  expect_gradients("struct_copy", struct_copy, adjoint::gradient(struct_copy), x, y);
  expect_gradients("struct_reference", struct_reference, adjoint::gradient(struct_reference), x, y);
  expect_gradients("from_call", from_call, adjoint::gradient(from_call), x, y);
  expect_gradients("pair_of_call", pair_of_call, adjoint::gradient(pair_of_call), x, y);
  expect_gradients("pair_const_reference", pair_const_reference, adjoint::gradient(pair_const_reference), x, y);
  expect_gradients("pair_reference", pair_reference, adjoint::gradient(pair_reference), x, y);
  expect_gradients("derived", derived, adjoint::gradient(derived), x, y);
  expect_gradients("array_copy", array_copy, adjoint::gradient(array_copy), x, y);
  expect_gradients("array_reference", array_reference, adjoint::gradient(array_reference), x, y);
  expect_gradients("in_loop", in_loop, adjoint::gradient(in_loop), x, y);
  expect_gradients("in_lambda", in_lambda, adjoint::gradient(in_lambda), x, y);
  return clad_style::report();
}
