// Names from namespaces, anonymous namespaces, scoped and unscoped enums and static class members,
// and a static const local, used in differentiated code and in calls the generated code repeats.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

namespace {
struct Point {
  double a, b, c;
};
enum Mode { Linear, Cubic };
}  // namespace

namespace physics {
enum class Op { Add, Mul };
struct Constants {
  static constexpr double scale = 3.0;
  enum Order { First = 1, Second = 2 };
};
namespace detail {
inline double combine(double a, double b, Op op) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Mul: return a * b;
  }
  return 0;
}
}  // namespace detail
}  // namespace physics

double evaluate(Point p, Mode m) {
  static const double half = 0.5;  // a constant, whatever the call
  return m == Cubic ? p.a * p.b * p.c : half * (p.a + p.b);
}

double energy(double x, double y) {
  Point p{x, y, x};
  return physics::detail::combine(x, y, physics::Op::Mul) * physics::Constants::scale +
         physics::detail::combine(x, y, physics::Op::Add) * int(physics::Constants::Second) + evaluate(p, Cubic) +
         evaluate(p, Mode::Linear);
}

int main() {
  double x = 0.7, y = -1.3, dx = 0, dy = 0;
  adjoint::gradient(energy).execute(x, y, &dx, &dy);
  expect_gradient("d energy / dx", dx, x, [&] { return energy(x, y); });
  expect_gradient("d energy / dy", dy, y, [&] { return energy(x, y); });
  Point p{0.5, 2.0, -1.0}, dp{};
  adjoint::gradient(evaluate, "p").execute(p, Cubic, &dp);
  expect_gradient("d evaluate / da", dp.a, p.a, [&] { return evaluate(p, Cubic); });
  expect_gradient("d evaluate / dc", dp.c, p.c, [&] { return evaluate(p, Cubic); });
  return clad_style::report();
}
