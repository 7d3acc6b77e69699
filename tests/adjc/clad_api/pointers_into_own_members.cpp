// Classes in Clad's style whose constructor, or in-class initialiser, points a pointer member at
// another member of the object (`x_ptr(&x)`, `double* at = &v;`): read and written through, on a
// local used through its members, one whose member functions are called, and a copy.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradients;

class Anchored {
 public:
  Anchored(double a, double b) noexcept : x(a), y(b), x_ptr(&x), y_ptr(&y) {}
  double x, y;
  double* x_ptr;
  double* y_ptr;
  double weighted(double k) const { return (x + y * y) * k; }
};

struct Slot {
  double v = 2;
  double* at = &v;
};

double through_members(double i, double j) {
  Anchored a(i * j, 3);
  *a.x_ptr *= i;
  return (*a.x_ptr) * (*a.y_ptr) + std::sin(a.y * j);
}

double with_member_call(double i, double j) {
  Anchored a(i, j);
  return a.weighted(i) + a.x * j;
}

double copied(double i, double j) {
  Anchored a(i, j);
  Anchored b = a;
  *b.y_ptr += i;  // the copy's pointer still points at a.y
  return a.y * b.x + b.y;
}

double in_class_pointer(double i, double j) {
  Slot s;
  s.v = i * j;
  *s.at += std::exp(i);
  return *s.at * s.v;
}

int main() {
  expect_gradients("through_members", through_members, clad::gradient(through_members), 0.7, -1.3);
  expect_gradients("with_member_call", with_member_call, clad::gradient(with_member_call), 0.7, -1.3);
  expect_gradients("copied", copied, clad::gradient(copied), 0.4, 1.1);
  expect_gradients("in_class_pointer", in_class_pointer, clad::gradient(in_class_pointer), -0.2, 0.9);
  return clad_style::report();
}
