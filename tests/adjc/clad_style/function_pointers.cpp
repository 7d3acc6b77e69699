// Function-pointer parameters bound to the function each call passes (a function's name, `&f`, a
// local function pointer holding one), and pointers passed by reference that the callee only reads.
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "check.hpp"

using clad_style::expect_gradient;

double sq(double a) { return a * a; }
double cube(double a) { return a * a * a; }
double shifted(double a) { return std::exp(0.5 * a) - a; }

double apply(double (*fn)(double), double v) { return fn(v); }
double apply_or_cube(double v, double (*fn)(double) = cube) { return fn(v) * v; }
// The same callee with several functions, `&f`, a local function pointer and a default argument.
double several(double x, double y) {
  double (*g)(double) = shifted;
  return apply(sq, x) * y + apply(&cube, y) - apply(g, x * y) + apply_or_cube(x) * apply_or_cube(y, sq);
}

// Its own loop; the function is called per element.
double sum_map(double (*fn)(double), const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += fn(v[i]) * (i + 1);
  return s;
}
double mapped(const double* v, int n) { return sum_map(sq, v, n) + sum_map(shifted, v, n) * sum_map(&cube, v, n); }

// Two function parameters, and a function pointer passed on to another callee.
double compose(double (*outer)(double), double (*inner)(double), double v) { return apply(outer, inner(v)); }
double twice(double (*fn)(double), double v) { return apply(fn, fn(v)); }
double passed_on(double x, double y) { return compose(sq, shifted, x) + twice(cube, y) * compose(shifted, sq, y); }

// A library function from <cmath> (its derivative rule applies), and a call in a condition, which
// runs the original function as it is.
double branchy(double x, double y) {
  double r = apply(std::sin, x) * y;
  if (apply(sq, y) > 1) r = r * apply(std::tanh, y);
  return r;
}

// Recursion through a function with a function parameter.
double iterate(double (*fn)(double), double v, int n) { return n == 0 ? v : iterate(fn, 0.5 * fn(v), n - 1); }
double recursive(double x) { return iterate(shifted, x, 3) + iterate(sq, x, 2); }

// A template parameter deduced as a function pointer.
template <class F>
double scaled(F fn, double v, double k) {
  return fn(v * k) + k;
}
double templated(double x, double k) { return scaled(sq, x, k) * scaled(&shifted, k, x); }

// Functions of the same name in two namespaces bound to one callee, a static member function, a
// function by reference, a parameter of function type, and a callee holding statements of every
// kind, whose copies per function must keep them all.
namespace ops {
double sq(double a) { return a * a; }
}  // namespace ops
namespace other {
double sq(double a) { return 3 * a + a * a * a; }
struct Half {
  static double of(double a) { return 0.5 * a * a; }
};
}  // namespace other
namespace alg {
struct Pair {
  double a, b;
};
using Unary = double (*)(double);
double by_reference(double (&fn)(double), double v) { return fn(v) + v; }
double of_function_type(double fn(double), double v) { return fn(v) * v; }
double busy(Unary fn, const double* x, int n, double k) {
  double s = 0;
  Pair p = {k, 2 * k};
  double local[3] = {x[0], x[1]};
  for (double e : local) s += fn(e);
  int i = 0;
  while (i < n) {
    s += fn(x[i]) * p.a;
    ++i;
  }
  do {
    s *= 0.5;
    --i;
  } while (i > 1);
  if (double t = fn(k); t > 0.5) s += t;
  else s -= t;
  switch (n % 3) {
    case 0:
      s += p.b;
      [[fallthrough]];
    case 1:
      s += fn(p.b);
      break;
    default:
      s -= 1;
  }
  double* h = new double[n]();
  for (int j = 0; j < n; j++) h[j] = fn(x[j]) * static_cast<double>(j + 1);
  for (int j = 0; j < n; j++) s += h[j] * (double)sizeof(double) / 8;
  delete[] h;
  auto twice = [](double a) { return 2 * a; };
  s += twice(fn(s)) > 1 ? std::sqrt(twice(s * s) + 1) : s;
  return s + apply(fn, k);
}
struct Sum {
  double s = 0;
  void add(double v) { s += v; }
};
// An object with a member function, a vector, a range-for over it and a local reference.
double objects(Unary fn, const double* x, int n) {
  Sum a;
  for (int i = 0; i < n; i++) a.add(fn(x[i]));
  std::vector<double> buf;
  for (int i = 0; i < n; i++) buf.push_back(fn(x[i] * a.s));
  double& first = buf[0];
  first *= 2;
  double t = 0;
  for (double b : buf) t += b;
  return t;
}
// A parameter whose address is taken, and a template's value argument.
double addressed(Unary fn, double v) {
  double* p = &v;
  *p = fn(*p);
  return v * v;
}
template <int N>
double power_of(Unary fn, double v) {
  double r = 1;
  for (int i = 0; i < N; i++) r *= fn(v);
  return r;
}
}  // namespace alg
double kinds(const double* x, int n, double k) {
  double r = alg::busy(ops::sq, x, n, k) + alg::busy(other::sq, x, n, k) * alg::busy(&other::Half::of, x, n, k);
  if (alg::by_reference(ops::sq, k) > 1) r += alg::of_function_type(other::Half::of, k);
  return r + alg::objects(ops::sq, x, n) * alg::objects(shifted, x, n) + alg::addressed(shifted, k) +
         alg::power_of<3>(ops::sq, k);
}

// Pointers by reference that the callee does not reassign are pointers by value.
double deref(double*& p) { return *p * 2; }
double weigh(const double*& w, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * x[i];
  return s;
}
double last(double* const& p, int n) { return p[n - 1] * p[0]; }
double by_reference(double x, double y) {
  double* p = &x;
  double v[3] = {x, y, x * y};
  const double* w = v;
  double* q = v;
  return deref(p) * y + weigh(w, v, 3) + last(q, 3);
}

int main() {
  double x = 0.6, y = -1.1, dx = 0, dy = 0;
  adjoint::gradient(several).execute(x, y, &dx, &dy);
  expect_gradient("d several / dx", dx, x, [&] { return several(x, y); });
  expect_gradient("d several / dy", dy, y, [&] { return several(x, y); });

  double v[4] = {0.3, -0.7, 1.1, 0.4}, dv[4] = {};
  adjoint::gradient(mapped, "v").execute(v, 4, dv);
  for (int i = 0; i < 4; i++) expect_gradient("d mapped / dv[i]", dv[i], v[i], [&] { return mapped(v, 4); });

  dx = dy = 0;
  adjoint::gradient(passed_on).execute(x, y, &dx, &dy);
  expect_gradient("d passed_on / dx", dx, x, [&] { return passed_on(x, y); });
  expect_gradient("d passed_on / dy", dy, y, [&] { return passed_on(x, y); });

  for (double b : {-1.1, 0.8}) {
    double c = b, dc = 0;
    dx = 0;
    adjoint::gradient(branchy).execute(x, c, &dx, &dc);
    expect_gradient("d branchy / dx", dx, x, [&] { return branchy(x, c); });
    expect_gradient("d branchy / dy", dc, c, [&] { return branchy(x, c); });
  }

  dx = 0;
  adjoint::gradient(recursive).execute(x, &dx);
  expect_gradient("d recursive / dx", dx, x, [&] { return recursive(x); });

  double k = 1.3, dk = 0;
  dx = 0;
  adjoint::gradient(templated).execute(x, k, &dx, &dk);
  expect_gradient("d templated / dx", dx, x, [&] { return templated(x, k); });
  expect_gradient("d templated / dk", dk, k, [&] { return templated(x, k); });

  for (int n : {2, 3, 4}) {
    double w[4] = {0.3, -0.7, 1.1, 0.4}, dw[4] = {}, c = 0.9, dc = 0;
    adjoint::gradient(kinds).execute(w, n, c, dw, &dc);
    for (int i = 0; i < 4; i++) expect_gradient("d kinds / dx[i]", dw[i], w[i], [&] { return kinds(w, n, c); });
    expect_gradient("d kinds / dk", dc, c, [&] { return kinds(w, n, c); });
  }

  dx = dy = 0;
  adjoint::gradient(by_reference).execute(x, y, &dx, &dy);
  expect_gradient("d by_reference / dx", dx, x, [&] { return by_reference(x, y); });
  expect_gradient("d by_reference / dy", dy, y, [&] { return by_reference(x, y); });

  // A request of a function with a pointer by reference: its adjoint is the pointer's memory.
  double a[3] = {0.4, -0.9, 1.7}, da[3] = {};
  double* pa = a;
  adjoint::gradient(last).execute(pa, 3, da);
  for (int i = 0; i < 3; i++) expect_gradient("d last / da[i]", da[i], a[i], [&] { return last(pa, 3); });
  return clad_style::report();
}
