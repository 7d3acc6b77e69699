// Corpus: local structs of numbers used as whole values — passed by value, const reference,
// reference and pointer; copied and assigned; returned from functions (free and member operators,
// `make` functions); built by braces, by constructors with member-initialiser lists and bodies,
// by delegating constructors, and as temporaries (`V3{x, y, z}`, `Scale{2.0}(x)`); member functions
// that mutate members called in a loop. Each gradient against central differences.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace struct_values {

struct V3 {
  double x, y, z;
  double dot(const V3& o) const { return x * o.x + y * o.y + z * o.z; }
  V3 operator-(const V3& o) const { return V3{x - o.x, y - o.y, z - o.z}; }
};
V3 operator+(const V3& a, const V3& b) { return V3{a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator*(double s, const V3& a) { return {s * a.x, s * a.y, s * a.z}; }
V3 operator-(const V3& a) { return V3{-a.x, -a.y, -a.z}; }
double dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double length2(V3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }
double norm2(const V3* v) { return v->dot(*v); }
void scale_in_place(V3& v, double k) {
  v.x *= k;
  v.y = v.y * k + v.x;
}
V3 make(double s) {
  V3 r{s, s * s, 1};
  r.z = std::sin(s);
  return r;
}
V3 cross(V3 a, V3 b) { return V3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }

struct Poly {
  double c[3];
  double shift = 0.5;
};
double eval(const Poly& p, double x) { return p.c[0] + p.c[1] * (x - p.shift) + p.c[2] * (x - p.shift) * (x - p.shift); }
Poly derivative(Poly p) {
  Poly d = {{p.c[1], 2 * p.c[2], 0}, p.shift};
  return d;
}

struct Particle {
  double pos, vel;
  Particle(double p, double v) : pos(p), vel(v) {}
  void step(double dt) {
    pos += vel * dt;
    vel *= 0.9;
  }
  double energy() const { return 0.5 * vel * vel + pos * pos; }
};
struct Scaled {
  double value, scale;
  explicit Scaled(double v) : value(v * 2), scale(value + 1) { value *= scale; }
};
// A delegating constructor: the members as the one it delegates to sets them, then its body.
struct Ramp {
  double lo, hi;
  explicit Ramp(double a) : lo(a), hi(a * a) {}
  Ramp(double a, double slope) : Ramp(a) { hi = lo + slope * hi; }
  double width() const { return hi - lo; }
};
struct Scale {
  double k;
  double operator()(double x) const { return k * x * x; }
};
struct Stats {
  float mean, var;
};
Stats stats(const float* x, int n) {
  Stats s{0, 0};
  for (int i = 0; i < n; i++) s.mean += x[i] / n;
  for (int i = 0; i < n; i++) s.var += (x[i] - s.mean) * (x[i] - s.mean) / n;
  return s;
}

double operators(double s, double t) {
  V3 a{s, 2 * s, t};
  V3 b{t, s * t, 1.0};
  V3 c = a + s * b;
  V3 d = -(c - a);
  return dot(c, c) + a.dot(d) + length2(c - b);
}
double passing(double s, double t) {
  V3 a = {s, t, s * t};
  scale_in_place(a, t);
  V3 b = cross(a, make(t));
  return norm2(&b) + length2(a);
}
double copies(double s, double t) {
  V3 a = make(s);
  V3 b = a;
  b.y = b.y * t;
  V3 c{};
  c = b;
  c = c + a;
  a = make(t);
  return dot(a, c) + b.z * c.x;
}
double in_loop(const double* x, int n) {
  V3 acc{};
  for (int i = 0; i < n; i++) {
    V3 p = make(x[i]);
    acc = acc + x[i] * p;
    if (acc.x > 1) acc = 0.5 * acc;
  }
  return dot(acc, acc);
}
double polynomial(const double* c, double x) {
  Poly p = {{c[0], c[1], c[2]}, 0.1 * x};  // its adjoint must start at zero, not at shift = 0.5
  Poly q = p;
  q.c[1] = q.c[1] * x;
  return eval(p, x) * eval(derivative(q), x);
}
double constructors(double p0, double v0) {
  Particle q(p0, v0);
  for (int i = 0; i < 5; i++) q.step(0.1);
  Scaled a(p0 * v0);
  Scaled b(v0);
  Ramp r(p0, v0);
  Ramp w(v0 * 2, p0);
  return q.energy() + a.value * b.scale + r.hi * r.lo + w.width() * Ramp(p0, 3).width();
}
double temporaries(double x, double y) {
  V3 u{x, 1, y};
  return Scale{2.0}(x) + Scale{y}(x * y) + dot(V3{x, y, 1}, u) + V3{y, x, x}.dot(u);
}
float float_struct(const float* x, int n) {
  Stats s = stats(x, n);
  return s.var + s.mean * s.mean;
}

// Compound assignment operators returning nothing, as statements (members and free functions),
// also inside a free operator on its by-value parameter.
struct V2 {
  double x, y;
  void operator+=(const V2& o) {
    x += o.x;
    y += o.y;
  }
  void operator*=(double k) {
    x *= k;
    y *= k;
  }
};
void operator-=(V2& a, const V2& b) {
  a.x -= b.x;
  a.y -= b.y * b.x;
}
V2 operator+(V2 a, const V2& b) {
  a += b;
  return a;
}
double compound_operators(double a, double b) {
  V2 u{a, b}, v{b, a * a};
  u += v;
  u *= b;
  u -= v;
  V2 w = u + v;
  for (int i = 0; i < 3; i++) w *= 0.5 + a;
  return w.x * w.y;
}

// The same operators written the usual way, returning `*this` (also from inside a branch),
// prefix ++ and --, and a method returning `*this` for chaining, each called as a statement.
struct R2 {
  double x, y;
  R2& operator+=(const R2& o) {
    x += o.x;
    y += o.y;
    return *this;
  }
  R2& operator*=(double k) {
    if (k == 1) return *this;
    x *= k;
    y *= k;
    return *this;
  }
  R2& operator++() {
    x += 1;
    return *this;
  }
  R2& operator--() {
    y -= x * 0.5;
    return *this;
  }
  R2& rotate(double c) {
    double t = x;
    x = c * x - y;
    y = t + c * y;
    return (*this);
  }
};
R2 operator+(R2 a, const R2& b) {
  a += b;
  return a;
}
// A struct parameter by value changed by the body: directly, through a reference, and by a
// member function.
struct Pair2 {
  double d[2];
  void set(double v) {
    d[0] = v;
    d[1] = v * v;
  }
};
void set_first(Pair2& t, double v) { t.d[0] = v; }
double changed_by_value(Pair2 t, double c) {
  double r = t.d[0] - t.d[1];
  set_first(t, c * c);
  t.d[0] *= c;
  t.d[1] = t.d[0] * t.d[1];
  r += t.d[0] + t.d[1] * t.d[1];
  Pair2 u = t;
  u.set(r * c);
  return r + u.d[0] * u.d[1];
}
double by_value_caller(const double* x) {
  Pair2 t{{x[0], x[1]}};
  // The caller's adjoint of t also collects this read: the callee's copy keeps its own.
  return changed_by_value(t, x[2]) * t.d[0] + changed_by_value(t, x[1]);
}

double returning_self(double a, double b) {
  R2 u{a, b}, v{b, a * a};
  u += v;
  u *= b;
  u *= 1;
  u.rotate(a);
  ++u;
  --v;
  R2 w = u + v;
  for (int i = 0; i < 3; i++) {
    w += u;
    w *= 0.5 + a;
  }
  return w.x * w.y;
}
}  // namespace struct_values

using namespace struct_values;

TEST(StructValues, operators) {
  check("operators", adjoint::gradient(operators), operators, Scalar<double>{}, Scalar<double>{});
}
TEST(StructValues, passing) {
  check("passing", adjoint::gradient(passing), passing, Scalar<double>{}, Scalar<double>{});
}
TEST(StructValues, copies) { check("copies", adjoint::gradient(copies), copies, Scalar<double>{}, Scalar<double>{}); }
TEST(StructValues, in_loop) {
  check("in_loop", adjoint::gradient(in_loop, "x"), in_loop, In<double>{5, -1.5, 1.5}, 5);
}
TEST(StructValues, polynomial) {
  check("polynomial", adjoint::gradient(polynomial), polynomial, In<double>{3}, Scalar<double>{});
}
TEST(StructValues, constructors) {
  check("constructors", adjoint::gradient(constructors), constructors, Scalar<double>{}, Scalar<double>{});
}
TEST(StructValues, temporaries) {
  check("temporaries", adjoint::gradient(temporaries), temporaries, Scalar<double>{}, Scalar<double>{});
}
TEST(StructValues, float_struct) {
  check("float_struct", adjoint::gradient(float_struct, "x"), float_struct, In<float>{6}, 6);
}
TEST(StructValues, compound_operators) {
  check("compound_operators", adjoint::gradient(compound_operators), compound_operators, Scalar<double>{},
        Scalar<double>{});
}
TEST(StructValues, returning_self) {
  check("returning_self", adjoint::gradient(returning_self), returning_self, Scalar<double>{}, Scalar<double>{});
}
TEST(StructValues, changed_by_value) {
  check("changed_by_value", adjoint::gradient(by_value_caller), by_value_caller, In<double>{3, 0.3, 0.9});
}
