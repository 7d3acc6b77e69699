// Corpus: non-const globals of numbers that differentiated functions only read (`double gain = 3;`):
// each function copies them at its start, the derivative treats them as constants, and the reverse
// sweep reads the copy from the tape, not the global. And non-const globals of integers written
// only as counters (`++calls;`): the forward sweep counts as the function does, once per execute,
// the reverse leaves them as they are.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace globals {  // the corpus is one program: its names are its own

// A member function counting its calls (the counters: below), declared before the namespace block
// holding the requests, where adjc declares their gradients.
unsigned made = 0;
struct Evaluator {
  double k;
  double eval(double x) {
    ++made;
    return k * x * x;
  }
  double twice(double x) { return eval(x) + eval(std::cos(x)); }
};

}  // namespace globals

namespace globals {

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

// Counters: in the requested function, in a callee, in a loop, in a member function, and in a
// function without derivative whose result the derivative needs (called once: its result is kept,
// not computed again in the reverse).
int calls = 0;
long evaluations = 0;
bool touched = false;

double counted(double x) {
  ++calls;
  return x * std::sin(x);
}
double counted_callee(double x) {
  evaluations += 2;
  double y = counted(x) * x;
  calls++;
  touched = true;
  return y + counted(2 * x);
}
double counted_loop(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    ++calls;
    if (x[i] > 0) evaluations -= 1;
    s += std::exp(x[i]) * x[i];
  }
  return s;
}
double evaluate(double x) {
  Evaluator e{1.5};
  return e.twice(x) * x;
}
int weight(int i) {
  ++calls;
  return i + 1;
}
double weighted(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double w = x[i] * weight(i);  // needed by the reverse of `s += w * w`
    s += w * w;
  }
  return s;
}

TEST(Globals, counters) {
  check("counted", adjoint::gradient(counted), counted, Scalar<double>{});
  check("counted_callee", adjoint::gradient(counted_callee), counted_callee, Scalar<double>{});
  check("counted_loop", adjoint::gradient(counted_loop, "x"), counted_loop, In<double>{4}, 4);
  check("evaluate", adjoint::gradient(evaluate), evaluate, Scalar<double>{});
  check("weighted", adjoint::gradient(weighted, "x"), weighted, In<double>{3}, 3);
  Evaluator object{0.5};
  check("Evaluator::twice", adjoint::gradient(&Evaluator::twice, "x"),
        [](Evaluator* e, double x) { return e->twice(x); }, Fixed<Evaluator*>{&object}, Scalar<double>{});
  // One execute counts as one call of the function.
  double x = 0.8, dx = 0;
  calls = 0;
  adjoint::gradient(counted).execute(x, &dx);
  EXPECT_EQ(calls, 1);
  EXPECT_NEAR(dx, std::sin(x) + x * std::cos(x), 1e-12);
  calls = 0, evaluations = 0, touched = false;
  adjoint::gradient(counted_callee).execute(x, &dx);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(evaluations, 2);
  EXPECT_TRUE(touched);
  double v[4] = {0.5, -1, 2, 0.25}, dv[4] = {};
  calls = 0, evaluations = 0;
  adjoint::gradient(counted_loop, "x").execute(v, 4, dv);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(evaluations, -3);
  EXPECT_NEAR(dv[2], std::exp(2.0) * 3, 1e-12);
  made = 0;
  adjoint::gradient(evaluate).execute(x, &dx);
  EXPECT_EQ(made, 2u);
  made = 0;
  double dy = 0;
  adjoint::gradient(&Evaluator::twice, "x").execute(&object, x, &dy);
  EXPECT_EQ(made, 2u);
  calls = 0;
  double dw[3] = {};
  adjoint::gradient(weighted, "x").execute(v, 3, dw);
  EXPECT_EQ(calls, 3);
  EXPECT_NEAR(dw[2], 2 * v[2] * 9, 1e-12);
}

}  // namespace globals
