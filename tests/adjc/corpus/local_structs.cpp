// Corpus: local structs initialised by braced lists (positional and designated), by simple
// constructors (also with pointer parameters) and by copies, structs of pointers into parameters (a layer's weights), local
// arrays from braced lists (also nested, for two dimensions); and a struct of activation buffers
// written member by member by calls with custom pullbacks, which needs no ADJOINT_WRITE_ONCE (each
// pointer member is a region).
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

struct Pair {
  double a, b;
};
struct Point {
  double x = 0, y = 0, z = 1.5;  // default member initialisers
};
struct Scaled {
  double value, scale;
  int count;
  Scaled(double v, double s) : value(v), scale(s), count(2) {}
};
struct LayerWeights {
  const double* wq;
  const double* wk;
  double gain;
};
struct Stats {
  float mean, var;
};

double braces(double x, double y) {
  Pair p = {x * y, y};
  Pair q{x, x + y};
  Pair r = {.a = y, .b = x};
  Pair s = {x, {}};  // s.b is zero
  Pair copy = q;
  copy.a = copy.a * r.b;
  return p.a * q.b + r.a * r.b + p.b + s.a * (1 + s.b) + copy.a;
}
double defaults_and_constructors(double x, double y) {
  Point p;
  Point q = {.y = x};
  Scaled s(x * y, y);
  Scaled t{y, 0.5};
  p.x = s.value * s.scale;
  return p.x + p.z * x + q.y * q.z + s.count * t.value * t.scale + q.x;
}
// A block's weights as a struct of pointers into one parameter array, per layer.
double layers(const double* w, const double* x, int L, int n) {
  double h = 0;
  for (int l = 0; l < L; l++) {
    LayerWeights lw = {w + 2 * l * n, w + (2 * l + 1) * n, 0.5 + l};
    double a = 0;
    for (int i = 0; i < n; i++) a += lw.wq[i] * x[i] + lw.gain * lw.wk[i] * x[i] * h;
    h = std::tanh(a);
  }
  return h;
}
double structs_in_loop(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    Pair p = {.a = {}, .b = x[i]};  // p.a is zero in every iteration
    p.a = p.a + x[i] * s;
    double v[3] = {x[i], x[i] * x[i]};  // v[2] is zero in every iteration
    v[2] = v[2] + v[0];
    s += p.a + p.b * v[1] + v[2];
  }
  return s;
}
// Two-dimensional local arrays from nested lists, brace-elided lists, and rows not given (zero in
// every iteration of a loop).
double nested_arrays(const double* x, int n) {
  double m[2][2] = {{x[0], x[1]}, {x[0] * x[1], 1}};
  double s = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  double flat[2][2] = {x[1], s, x[0] * s};
  s += flat[0][0] * flat[1][0] + flat[0][1] * flat[1][1];
  for (int i = 0; i < n; i++) {
    double r[3][2] = {{x[i], s}, {x[i] * x[i]}};
    for (int j = 0; j < 3; j++) {
      s += r[j][0] * r[j][1] + r[j][1];
      r[j][1] = x[i];
    }
  }
  return s;
}
float float_struct(const float* x, int n) {
  Stats st = {0, 0};
  for (int i = 0; i < n; i++) st.mean += x[i] / n;
  for (int i = 0; i < n; i++) st.var += (x[i] - st.mean) * (x[i] - st.mean) / n;
  return st.var;
}

// A struct assigned a value built from its own members: `r = V{r.y, r.x}` member by member would
// read r.x after writing it (it did: the gradient lost a term), so the value is built first.
struct Swapped {
  double x, y;
};
struct SwappedByConstructor {
  double x, y;
  SwappedByConstructor(double a, double b) : x(a), y(b) {}
};
double swap_members(double a, double b) {
  Swapped r{a, b * b};
  for (int k = 0; k < 3; k++) r = Swapped{r.y, r.x * a};
  SwappedByConstructor c(a, 2 * b);
  c = SwappedByConstructor(c.y * c.x, c.x);
  Swapped* pr = &r;  // read through a pointer into r
  r = Swapped{pr->y, pr->x * b};
  return r.x * 10 + r.y * 100 + c.x * c.y;
}

TEST(LocalStructs, braces) {
  check("braces", adjoint::gradient(braces), braces, Scalar<double>{}, Scalar<double>{});
}
TEST(LocalStructs, defaults_and_constructors) {
  check("defaults_and_constructors", adjoint::gradient(defaults_and_constructors), defaults_and_constructors,
        Scalar<double>{}, Scalar<double>{});
}
TEST(LocalStructs, struct_of_pointers) {
  check("layers", adjoint::gradient(layers, "w, x"), layers, In<double>{3 * 2 * 4}, In<double>{4}, 3, 4);
}
TEST(LocalStructs, structs_in_loop) {
  check("structs_in_loop", adjoint::gradient(structs_in_loop, "x"), structs_in_loop, In<double>{5}, 5);
}
TEST(LocalStructs, nested_arrays) {
  check("nested_arrays", adjoint::gradient(nested_arrays, "x"), nested_arrays, In<double>{4}, 4);
}
TEST(LocalStructs, float_struct) {
  check("float_struct", adjoint::gradient(float_struct, "x"), float_struct, In<float>{6}, 6);
}

// Activations of a two-stage block, one buffer per member; each call writes one member once.
struct Acts {
  double* h;
  double* y;
  double* out;
};
void stage(double* out, const double* in, double w, int n) {
  for (int i = 0; i < n; i++) out[i] = std::tanh(w * in[i]);
}
namespace adjoint::custom_derivatives {
void stage_pullback(double* out, const double* in, double w, int n, double* d_out, double* d_in, double* d_w) {
  for (int i = 0; i < n; i++) {
    const double g = d_out[i] * (1 - out[i] * out[i]);
    if (d_in) d_in[i] += g * w;
    *d_w += g * in[i];
    d_out[i] = 0;
  }
}
}  // namespace adjoint::custom_derivatives
double block(const double* w, Acts& a, const double* x, int n) {
  stage(a.h, x, w[0], n);
  stage(a.y, a.h, w[1], n);
  stage(a.out, a.y, w[2], n);
  double s = 0;
  for (int i = 0; i < n; i++) s += a.out[i] * a.h[i];
  return s;
}

TEST(LocalStructs, member_regions) {
  const int n = 4;
  std::vector<double> w = {0.9, -1.3, 0.7}, x = {0.2, -0.5, 0.8, 0.1}, h(n), y(n), out(n);
  std::vector<double> dw(3), dx(n), dh(n), dy(n), dout(n);
  Acts a{h.data(), y.data(), out.data()}, da{dh.data(), dy.data(), dout.data()};
  auto g = adjoint::gradient(block, "w, a, x");
  g.execute(w.data(), a, x.data(), n, dw.data(), &da, dx.data());
  auto f = [&] { return block(w.data(), a, x.data(), n); };
  auto fd = [&](double& v) {
    const double saved = v, step = 1e-6;
    v = saved + step;
    const double up = f();
    v = saved - step;
    const double down = f();
    v = saved;
    return (up - down) / (2 * step);
  };
  for (int k = 0; k < 3; k++) EXPECT_NEAR(dw[k], fd(w[k]), 1e-6) << "w[" << k << "]";
  for (int i = 0; i < n; i++) EXPECT_NEAR(dx[i], fd(x[i]), 1e-6) << "x[" << i << "]";
}

// A constructor parameter without a name (a tag the constructor ignores) still takes its argument.
struct Tagged {
  double a;
  Tagged(double v, int) : a(v * v) {}
};
double unnamed_constructor_parameter(double x) {
  Tagged t(x, 0);
  return t.a * x;
}

// Constructors with pointer parameters: written through (`*p *= v`) and read through (a row of
// weights), constructed in a loop at moving offsets into one array.
struct Scaling {
  double gain;
  Scaling(double* p, double v) : gain(v) { *p = *p * v; }
};
struct Row {
  double a, b;
  Row(const double* w, double s) : a(w[0] * s), b(w[1]) {}
};
double constructor_writes_through_pointer(double u, double v) {
  Scaling s(&u, v);
  return s.gain * u;
}
double constructor_pointer_parameters(const double* w, const double* x) {
  double buf[4] = {x[0], x[1], x[2], x[3]};
  double t = 0;
  for (int i = 0; i < 4; i++) {
    Row r(w + 2 * i, x[i]);
    Scaling s(buf + i, r.b);
    t += r.a * s.gain + buf[i] * buf[(i + 1) % 4];
  }
  return t;
}

TEST(LocalStructs, constructor_pointer_parameters) {
  check("constructor_writes_through_pointer", adjoint::gradient(constructor_writes_through_pointer),
        constructor_writes_through_pointer, Scalar<double>{}, Scalar<double>{});
  check("constructor_pointer_parameters", adjoint::gradient(constructor_pointer_parameters),
        constructor_pointer_parameters, In<double>{8}, In<double>{4});
}

TEST(LocalStructs, unnamed_constructor_parameter) {
  check("unnamed_constructor_parameter", adjoint::gradient(unnamed_constructor_parameter),
        unnamed_constructor_parameter, Scalar<double>{});
}

TEST(LocalStructs, assigned_from_own_members) {
  check("swap_members", adjoint::gradient(swap_members), swap_members, Scalar<double>{}, Scalar<double>{});
}
