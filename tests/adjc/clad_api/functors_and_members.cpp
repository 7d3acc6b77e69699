// execute in Clad's forms for a function object (bound by the request; its adjoint as another
// class laid out as it, or volatile) and a member function (the object by reference or pointer),
// and clad::tape with its helpers.
#include "clad/Differentiator/Differentiator.h"

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

struct Quadratic {
  double a, b;
  double operator()(double x, double y) const { return a * x * x + b * x * y; }
};

// Laid out as Quadratic: Clad's execute takes it for Quadratic's adjoint, and so does adjc's.
struct QuadraticTwin {
  double a, b;
};

class Oscillator {
 public:
  explicit Oscillator(double omega) : omega_(omega) {}
  double energy(double q, double p) const { return 0.5 * (p * p + omega_ * omega_ * q * q); }

 private:
  double omega_;
};

int main() {
  Quadratic quad{1.5, -2.0};
  double x = 0.7, y = 1.1;
  auto h = [&] { return quad(x, y); };

  double dx = 0, dy = 0;
  auto g = clad::gradient(quad, "x, y");  // bound to quad
  g.execute(x, y, &dx, &dy);
  expect_gradient("functor: dx", dx, x, h);
  expect_gradient("functor: dy", dy, y, h);

  // The object differentiated too (no list): its adjoint given as a class laid out as it, and as a
  // volatile object.
  auto whole = clad::gradient(quad);
  QuadraticTwin d_twin{};
  dx = dy = 0;
  whole.execute(x, y, &d_twin, &dx, &dy);
  expect_gradient("functor: d_a", d_twin.a, quad.a, h);
  expect_gradient("functor: d_b", d_twin.b, quad.b, h);
  volatile Quadratic d_volatile{};
  whole.execute(x, y, &d_volatile, &dx, &dy);
  clad_style::expect_value("functor, volatile adjoint: d_b", d_volatile.b, x * y);

  Oscillator osc(3.0);
  double q = 0.2, p = -0.4, dq = 0, dp = 0;
  auto e = [&] { return osc.energy(q, p); };
  auto m = clad::gradient(&Oscillator::energy, "q, p");
  m.execute(osc, q, p, &dq, &dp);  // the object by reference
  expect_gradient("member: dq", dq, q, e);
  expect_gradient("member: dp", dp, p, e);
  dq = dp = 0;
  m.execute(&osc, q, p, &dq, &dp);  // and by pointer
  expect_gradient("member by pointer: dq", dq, q, e);

  // clad::tape: last in, first out; back() is the top.
  clad::tape<double> t;
  clad::push(t, 1.0);
  clad::push(t, 2.5);
  clad_style::expect_value("back", clad::back(t), 2.5);
  clad_style::expect_value("pop", clad::pop(t), 2.5);
  clad_style::expect_value("pop", clad::pop(t), 1.0);
  clad_style::expect_value("size", double(t.size()), 0);
  return clad_style::report();
}
