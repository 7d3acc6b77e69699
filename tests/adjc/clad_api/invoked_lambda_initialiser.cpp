// A member initialised by a lambda called where it is written, capturing by reference (the object
// through `this`, the constructor's parameters): its statements run in place, in the order of the
// member initialisers, and its value initialises the member.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

struct Spring {
  double rest;
  double stretch;
  double energy;
  Spring(double length, double k)
      : rest(length),
        stretch([&] {
          rest *= 0.5;  // writes an earlier member through `this`
          return rest * k - rest;
        }()),
        energy([&]() { return 0.5 * k * stretch * stretch + std::sin(rest); }()) {}
};

// Two constructions in one function: the lambda's statements run for each.
double spring_energy(double length, double k) {
  Spring s(length, k);
  Spring t(k, length);
  return s.energy * length + s.rest + t.stretch * t.energy;
}

// The same lambda in a function's own body (a closure, "Lambdas with captures").
double in_body(double length, double k) {
  double rest = length;
  double stretch = [&] {
    rest *= 0.5;
    return length * k - rest;
  }();
  return stretch * rest;
}

int main() {
  clad_style::expect_gradients("spring_energy", spring_energy, clad::gradient(spring_energy), 1.3, 0.7);
  clad_style::expect_gradients("in_body", in_body, clad::gradient(in_body), 1.3, 0.7);
  return clad_style::report();
}
