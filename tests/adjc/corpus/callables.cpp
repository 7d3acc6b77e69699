// Corpus: gradients of member functions (`&S::f`, the object first by pointer), of function
// objects and of lambdas without captures; lambdas and function objects called inside
// differentiated code; floating locals passed by address or by reference to callees; calls through
// local function pointers.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

struct Quadratic {
  double a, b;
  double at(double x) const { return a * x * x + b * x; }
  double operator()(double x, double y) const { return at(x) * y; }
};
// Non-const member functions calling each other that leave the object as it is: the object may stay
// out of the request.
struct Meter {
  double gain;
  double raw(double v) { return gain * v * v; }
  double reading(double v) { return raw(v) + std::sin(v) * gain; }
};
struct Stateless {
  float operator()(const float* x, int n) const {
    float s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i];
    return s;
  }
};
// Private data members and member functions (static too) read by generated code.
class Sealed {
 public:
  Sealed(double a, double b) : a_(a), b_(b) {}
  double loss(double x) const { return square(a_ * x + offset()) + b_ * double(count()) + cube(x) * a_; }
  double& a() { return a_; }
  double& b() { return b_; }

 private:
  double a_, b_;
  double square(double v) const { return v * v; }
  double offset() const { return b_ * 0.5; }
  int count() const { return 3; }
  static double cube(double v) { return v * v * v; }
};
void scale_into(double* out, double v, double k) { *out = v * k; }
void accumulate_square(double& acc, double v) { acc += v * v; }
double calls_callables(double x, double y) {
  auto cube = [](double v) { return v * v * v; };
  Quadratic q = {0.5, -1.5};
  double u = 0;
  scale_into(&u, cube(x), y);
  double w = u * 2;
  accumulate_square(w, x);
  return q(w, y) + cube(y);
}

TEST(Callables, member_function) {
  Quadratic q{0.75, -0.25};
  check("Quadratic::at", adjoint::gradient(&Quadratic::at, "x"), [](const Quadratic* s, double x) { return s->at(x); },
        Fixed<const Quadratic*>{&q}, Scalar<double>{});
  Quadratic dq{};
  double x = 0.6, dx = 0;
  adjoint::gradient(&Quadratic::at, "this, x").execute(&q, x, &dq, &dx);
  EXPECT_NEAR(dq.a, x * x, 1e-12);
  EXPECT_NEAR(dq.b, x, 1e-12);
  EXPECT_NEAR(dx, 2 * q.a * x + q.b, 1e-12);
}
TEST(Callables, private_members) {
  Sealed s(1.5, -0.7), ds(0, 0);
  double x = 0.9, dx = 0;
  // No list: the object is differentiated too; its adjoint may also be left out.
  adjoint::gradient(&Sealed::loss).execute(s, x, &ds, &dx);
  const double h = 1e-6;
  auto fd = [&](double& v) {
    const double saved = v;
    v = saved + h;
    const double up = s.loss(x);
    v = saved - h;
    const double down = s.loss(x);
    v = saved;
    return (up - down) / (2 * h);
  };
  EXPECT_NEAR(dx, fd(x), 1e-6);
  EXPECT_NEAR(ds.a(), fd(s.a()), 1e-6);
  EXPECT_NEAR(ds.b(), fd(s.b()), 1e-6);
  double dx_alone = 0;
  adjoint::gradient(&Sealed::loss).execute(&s, x, &dx_alone);
  EXPECT_NEAR(dx_alone, dx, 1e-12);
}
TEST(Callables, nonconst_member_calls) {
  Meter m{1.25};
  check("Meter::reading", adjoint::gradient(&Meter::reading, "v"), [](Meter* s, double v) { return s->reading(v); },
        Fixed<Meter*>{&m}, Scalar<double>{});
  double v = 0.7, dv = 0;
  adjoint::gradient(&Meter::reading).execute(m, v, &dv);
  EXPECT_NEAR(dv, 2 * m.gain * v + std::cos(v) * m.gain, 1e-12);
}
TEST(Callables, function_objects) {
  Quadratic q{0.75, -0.25};
  check("Quadratic()", adjoint::gradient(q, "x, y"), [](const Quadratic* s, double x, double y) { return (*s)(x, y); },
        Fixed<const Quadratic*>{&q}, Scalar<double>{}, Scalar<double>{});
  Stateless s;
  check("Stateless()", adjoint::gradient(s, "x"), [](const Stateless* f, const float* x, int n) { return (*f)(x, n); },
        Fixed<const Stateless*>{&s}, In<float>{4}, 4);
}
TEST(Callables, lambdas) {
  auto f = [](double x, double y) { return x * x * y + y / (1 + x * x); };
  check("lambda", adjoint::gradient(f), f, Scalar<double>{}, Scalar<double>{});
  auto inline_lambda = adjoint::gradient([](float x) { return x * x * 3.0f; });
  check("inline lambda", inline_lambda, [](float x) { return x * x * 3.0f; }, Scalar<float>{});
}
TEST(Callables, callables_as_callees) {
  check("calls_callables", adjoint::gradient(calls_callables), calls_callables, Scalar<double>{}, Scalar<double>{});
}

// Local function pointers initialised with a function and never assigned: calls through them are
// calls of the function (std::sin through a pointer too), as is a call through a function reference.
double square_of(double v) { return v * v; }
double cube_of(double v) { return v * v * v; }
double function_pointers(double x, double y) {
  double (*g)(double) = square_of;
  auto h = &cube_of;
  using Unary = double (*)(double);
  Unary s = std::sin;
  double (&r)(double) = cube_of;
  return g(x) * y + (*h)(y) * x + s(x) + r(x * y);
}
TEST(Callables, function_pointers) {
  check("function_pointers", adjoint::gradient(function_pointers), function_pointers, Scalar<double>{},
        Scalar<double>{});
}
