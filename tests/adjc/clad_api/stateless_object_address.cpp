// A member function of a class without data, called on an object at an integer address
// (`reinterpret_cast<const Square*>(0x40)->operator()(x)`, as Clad's NonActiveCallBase.C does): it
// reads nothing of the object, so adjc differentiates the call as any other of that function.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>
#include <cstdint>

#include "clad_style/check.hpp"

struct Square {
  double operator()(double v) const { return v * v; }
  double damped(double v, double k) const { return std::exp(-k * v) * (*this)(v); }
};

double through_address(double x, double k) {
  return reinterpret_cast<const Square*>(0x40)->operator()(x) * k +
         reinterpret_cast<const Square*>(std::uintptr_t(0x80))->damped(x, k);
}

int main() {
  clad_style::expect_gradients("through_address", through_address, clad::gradient(through_address), 0.7, 1.6);
  return clad_style::report();
}
