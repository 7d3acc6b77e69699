// A constructor written as a function-try-block whose body and member initialisers cannot throw:
// its handlers never run, so it is differentiated as its try block.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>
#include <cstdio>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

struct Cell {
  double charge;
  double energy;
  Cell(double q, double k) try : charge(q * k) { energy = 0.5 * charge * charge + std::sqrt(k); } catch (...) {
    std::printf("never reached\n");
  }
};

double field(double q, double k) {
  Cell c(q, k);
  return c.energy * q + c.charge;
}

int main() {
  clad_style::expect_gradients("field", field, clad::gradient(field), 0.8, 2.3);
  return clad_style::report();
}
