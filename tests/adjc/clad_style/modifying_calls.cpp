// Calls that modify their arguments (Clad's FunctionCalls style): a number updated by reference and
// read by each call's derivative, an integer counter, a struct rotated in place in a loop, a
// mutable lambda, and calls through a local function pointer.
#include <adjoint/ad.hpp>

#include <cmath>

#include "check.hpp"

using clad_style::expect_gradient;

double accumulate(double& total, double v) {
  total += v * v;
  return total * v;
}
double repeated_updates(double x, double y) {
  double total = 1;
  double a = accumulate(total, x);
  double b = accumulate(total, y);
  return a * b + total;
}

int next_index(int& counter) { return counter++; }
double counted(double x, double y) {
  int counter = 1;
  double s = x * next_index(counter);
  s += y * next_index(counter) * s;
  return s * counter;
}

struct Vec2 {
  double u, v;
};
void rotate(Vec2& p, double angle) {
  double u = p.u;
  p.u = std::cos(angle) * u - std::sin(angle) * p.v;
  p.v = std::sin(angle) * u + std::cos(angle) * p.v;
}
double spiral(double x, double angle) {
  Vec2 p{x, 0.5};
  double s = 0;
  for (int i = 0; i < 4; i++) {
    rotate(p, angle);
    s += p.u * p.v;
  }
  return s;
}

double running_mean(double x, double y) {
  auto mean = [sum = 0.0, n = 0](double v) mutable {
    sum += v;
    n += 1;
    return sum / n;
  };
  return mean(x) * mean(y) + mean(x * y);
}

double square(double v) { return v * v; }
double through_pointer(double x, double y) {
  double (*f)(double) = square;
  auto g = &square;
  return f(x) * g(y) + f(x * y);
}

int main() {
  double x = 0.7, y = -1.3, dx = 0, dy = 0;
  auto both = [&](const char* name, auto request, auto f) {
    dx = dy = 0;
    request.execute(x, y, &dx, &dy);
    expect_gradient(name, dx, x, [&] { return f(x, y); });
    expect_gradient(name, dy, y, [&] { return f(x, y); });
  };
  both("repeated_updates", adjoint::gradient(repeated_updates), repeated_updates);
  both("counted", adjoint::gradient(counted), counted);
  both("spiral", adjoint::gradient(spiral), spiral);
  both("running_mean", adjoint::gradient(running_mean), running_mean);
  both("through_pointer", adjoint::gradient(through_pointer), through_pointer);
  return clad_style::report();
}
