// Local nodes in Clad's style: a struct whose pointer member, null by its default initialiser, is
// pointed at another local node of the same type and read through (`n.prev->value`); the
// gradient flows into the node pointed at.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradients;

struct Node {
  Node* prev = nullptr;
  double value = 1;
};

double through_prev(double x, double y) {
  Node older;
  older.value = x * y;
  Node newer;
  newer.value = std::cos(x);
  newer.prev = &older;
  return newer.prev->value * newer.value + newer.prev->value;
}

double updated_through_prev(double x, double y) {
  Node older;
  older.value = y;
  Node* first = nullptr;
  Node newer;
  newer.prev = &older;
  newer.prev->value *= x;
  first = &older;
  newer.value = std::exp(newer.prev->value);
  return newer.value * first->value;
}

int main() {
  expect_gradients("through_prev", through_prev, clad::gradient(through_prev), 0.4, -1.2);
  expect_gradients("updated_through_prev", updated_through_prev, clad::gradient(updated_through_prev), 0.3, 0.8);
  return clad_style::report();
}
