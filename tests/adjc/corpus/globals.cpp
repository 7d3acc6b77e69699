// Corpus: non-const globals of numbers that differentiated functions only read (`double gain = 3;`):
// each function copies them at its start, the derivative treats them as constants, and the reverse
// sweep reads the copy from the tape, not the global.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace globals {  // the corpus is one program: its names are its own

double gain = 3;
float offset = 0.5f;
int repeats = 3;

double scaled(double x) { return gain * x * x + offset; }
double through_callee(double x) { return scaled(x) * std::sin(gain * x); }
double in_loop(const double* x, int n) {
  double s = 0;
  for (int r = 0; r < repeats; r++)
    for (int i = 0; i < n; i++) s += gain * x[i] * std::tanh(x[i] + offset);
  return s;
}

double through_reference(double x) {
  double& g = gain;  // a reference only read through reads the global
  return g * x * x;
}
double static_bound(const double* x) {
  static int bound = 3;  // never written: the same in every call
  double s = 0;
  for (int i = 0; i < bound; i++) s += x[i] * x[i] * gain;
  return s;
}

TEST(Globals, read_only) {
  check("scaled", adjoint::gradient(scaled), scaled, Scalar<double>{});
  check("through_callee", adjoint::gradient(through_callee), through_callee, Scalar<double>{});
  check("in_loop", adjoint::gradient(in_loop, "x"), in_loop, In<double>{4}, 4);
  gain = -1.5;  // read again by the next gradient: the copy is per call
  check("through_callee", adjoint::gradient(through_callee), through_callee, Scalar<double>{});
  gain = 3;
  check("through_reference", adjoint::gradient(through_reference), through_reference, Scalar<double>{});
  check("static_bound", adjoint::gradient(static_bound, "x"), static_bound, In<double>{3});
}

}  // namespace globals
