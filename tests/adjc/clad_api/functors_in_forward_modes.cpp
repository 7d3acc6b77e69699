// Lambdas and function objects requested by clad::differentiate, clad::hessian and clad::jacobian:
// lambdas with and without captures (execute passes the captures itself), volatile and const
// objects bound to the request (execute reads them as they are when it runs), a class template's
// operator() nothing calls, and a function object differentiated along one of its data members
// (its operator() takes no parameters), an element of a fixed-size array member or of memory a
// member points to. Each number against central differences.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

struct Pendulum {
  double length = 1.5, damping = 0.25;
  double operator()(double theta, double omega) const volatile {
    return length * std::sin(theta) * omega - damping * omega * omega;
  }
};

template <class T>
struct Cubic {
  T a = 2;
  T operator()(T x, T y) { return a * x * x * x + x * y; }  // instantiated for the requests only
};

// Differentiated along its members: the derivative is along `height` or `weights[1]`.
struct Tower {
  double height = 2, weights[3] = {0.5, 1.5, -1};
  double operator()() const { return height * height * weights[1] + std::exp(weights[0] * height); }
};

// Its numbers on the heap, behind two pointer members and one of its base's: along an element of
// either of its own, the others' elements are constants.
struct Supports {
  double* stiffness = new double[2]{2, 0.5};
  ~Supports() { delete[] stiffness; }
};
struct Beam : Supports {
  double* loads;
  double* spans;
  int n = 4;
  Beam() : loads(new double[4]{1.5, -0.5, 2, 0.25}), spans(new double[4]{0.5, 1, 1.5, 2}) {}
  ~Beam() {
    delete[] loads;
    delete[] spans;
  }
  double operator()() const {
    double moment = 0;
    for (int k = 0; k < n; ++k) moment += loads[k] * spans[k] * spans[k];
    return moment + std::sin(loads[1] * spans[2]) / stiffness[1];
  }
};

// Writes two outputs: its Jacobian is 2 x 2.
struct Rotation {
  double angle = 0.3;
  void operator()(double x, double y, double* out) const {
    out[0] = std::cos(angle) * x * y - std::sin(angle) * y;
    out[1] = std::sin(angle) * x + std::cos(angle) * y * y;
  }
};

// A Hessian h (row-major, 2 x 2) at (x, y) against central differences of the gradient's entries
// (`gradient(x, y, row)`, computed by forward mode).
template <class D>
void expect_hessian(const char* what, const double* h, double x, double y, D gradient) {
  std::printf("%s\n", what);
  for (int row = 0; row < 2; ++row) {
    expect_gradient("  d/dx row", h[row * 2 + 0], x, [&] { return gradient(x, y, row); });
    expect_gradient("  d/dy row", h[row * 2 + 1], y, [&] { return gradient(x, y, row); });
  }
}

int main() {
  double x = 0.7, y = -1.2, scale = 1.75;

  // Lambdas in forward mode, with and without captures.
  auto plain = [](double u, double v) { return u * u * v + std::cos(v); };
  auto captured = [&](double u, double v) { return scale * u * v * v; };
  expect_gradient("lambda", clad::differentiate(plain, "u").execute(x, y), x, [&] { return plain(x, y); });
  expect_gradient("&lambda, by position", clad::differentiate(&plain, 1).execute(x, y), y, [&] { return plain(x, y); });
  auto d_captured = clad::differentiate(captured, "v");
  scale = -0.5;  // captured by reference: execute reads it when it runs
  expect_gradient("lambda with captures", d_captured.execute(x, y), y, [&] { return captured(x, y); });
  expect_gradient("second derivative of a lambda", clad::differentiate<2>(plain, "1").execute(x, y), y,
                  [&] { return clad::differentiate(plain, "v").execute(x, y); });

  // A volatile object, and a class template's operator() nothing else calls.
  volatile Pendulum pendulum;
  auto d_pendulum = clad::differentiate(pendulum, "theta");
  pendulum.length = 2.5;
  Pendulum copy;
  copy.length = 2.5;
  expect_gradient("volatile function object", d_pendulum.execute(x, y), x, [&] { return copy(x, y); });
  Cubic<double> cubic;
  expect_gradient("class template's operator()", clad::differentiate(cubic, "x").execute(x, y), x,
                  [&] { return cubic(x, y); });

  // Along a data member, by position or by name and element.
  Tower tower;
  expect_gradient("along member 0", clad::differentiate(tower, 0).execute(), tower.height, [&] { return tower(); });
  expect_gradient("along weights[1]", clad::differentiate(&tower, "weights[1]").execute(), tower.weights[1],
                  [&] { return tower(); });

  Beam beam;
  expect_gradient("along loads[1], on the heap", clad::differentiate(beam, "loads[1]").execute(), beam.loads[1],
                  [&] { return beam(); });
  expect_gradient("along spans[2], on the heap", clad::differentiate(&beam, "spans[2]").execute(), beam.spans[2],
                  [&] { return beam(); });

  // Hessians of a function object and of a lambda with captures, into a plain array.
  double h[4] = {};
  clad::hessian(pendulum).execute(x, y, h);
  auto pendulum_gradient = [&](double u, double v, int row) {
    double d[2] = {clad::differentiate(pendulum, "theta").execute(u, v),
                   clad::differentiate(pendulum, "omega").execute(u, v)};
    return d[row];
  };
  expect_hessian("Hessian of a function object", h, x, y, pendulum_gradient);
  clad::hessian(captured).execute(x, y, h);
  auto captured_gradient = [&](double u, double v, int row) {
    return row == 0 ? clad::differentiate(captured, "u").execute(u, v)
                    : clad::differentiate(captured, "v").execute(u, v);
  };
  expect_hessian("Hessian of a lambda with captures", h, x, y, captured_gradient);

  // Jacobians of a function object and of a lambda with captures.
  Rotation rotation;
  double out[2], j[4] = {};
  clad::jacobian(rotation).execute(x, y, out, j);
  auto rotated = [&](int row) {
    double o[2];
    rotation(x, y, o);
    return o[row];
  };
  for (int row = 0; row < 2; ++row) {
    expect_gradient("Jacobian of a function object, d/dx", j[row * 2], x, [&] { return rotated(row); });
    expect_gradient("Jacobian of a function object, d/dy", j[row * 2 + 1], y, [&] { return rotated(row); });
  }
  auto spread = [&](double u, double v, double* o) {
    o[0] = scale * u * v;
    o[1] = u - scale * v * v;
  };
  clad::jacobian(&spread).execute(x, y, out, j);
  auto spread_at = [&](int row) {
    double o[2];
    spread(x, y, o);
    return o[row];
  };
  for (int row = 0; row < 2; ++row) {
    expect_gradient("Jacobian of a lambda with captures, d/dx", j[row * 2], x, [&] { return spread_at(row); });
    expect_gradient("Jacobian of a lambda with captures, d/dy", j[row * 2 + 1], y, [&] { return spread_at(row); });
  }
  return clad_style::report();
}
