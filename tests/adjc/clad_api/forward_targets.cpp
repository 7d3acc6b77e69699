// clad::differentiate of what Clad lets a request name besides a function: a function pointer
// (through a pointer to it, a cast), a member function pointer, and a function object bound to the
// request, whose state execute reads when it runs; each derivative against central differences.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

double wave(double x, double y) { return std::sin(x * y) + x * x; }

struct Spring {
  double k = 2;
  double operator()(double x, double v) const { return k * x * x + v * x; }
  double energy(double x) const { return k * x * x * x; }
};

int main() {
  double x = 0.8, y = -1.3;
  auto f = [&] { return wave(x, y); };
  auto pointer = &wave;
  auto pointer_to_pointer = &pointer;
  expect_gradient("function pointer", clad::differentiate(pointer, "x").execute(x, y), x, f);
  expect_gradient("*pointer to it", clad::differentiate(*pointer_to_pointer, "y").execute(x, y), y, f);
  expect_gradient("static_cast", clad::differentiate(static_cast<decltype(&wave)>(wave), "x").execute(x, y), x, f);

  Spring s;
  auto member = &Spring::energy;
  expect_gradient("member function pointer", clad::differentiate(member, "x").execute(s, x), x,
                  [&] { return s.energy(x); });

  auto by_reference = clad::differentiate(s, "x");
  auto by_address = clad::differentiate(&s, "v");
  s.k = 3.5;  // execute reads the object as it is now
  expect_gradient("function object", by_reference.execute(x, y), x, [&] { return s(x, y); });
  expect_gradient("&function object", by_address.execute(x, y), y, [&] { return s(x, y); });
  return clad_style::report();
}
