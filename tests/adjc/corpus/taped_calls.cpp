// Corpus: calls that overwrite a variable of numbers (a scalar, an integer, an array, a struct, a vector)
// whose earlier value the reverse of earlier code needs: the forward tapes the variable whole before
// the call and the reverse restores it after the call's pullback (Node::taped_regions). Memory
// behind pointer parameters is still rejected (tests/adjc/diagnostics/call_overwrites_*.cpp). A
// number passed by value and read from what the call overwrites is passed as a local copy.
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace taped_calls {  // the corpus is one program: its names are its own

// An accumulator updated by reference and read by each call's reverse (c * v).
double step(double& c, double v) {
  c += v;
  return c * v;
}
double accumulator(double x, double y) {
  double c = 0.5;
  double a = step(c, x);
  double b = step(c, y);
  return a + b * c;
}

TEST(TapedCalls, accumulator) {
  auto g = adjoint::gradient(accumulator);
  check("accumulator", g, accumulator, Scalar<double>{}, Scalar<double>{});
}

// expo's reverse reads exp(x) back from *o; set overwrites it.
void expo(double* o, double x) { *o = std::exp(x); }
void set(double* o, double v) { *o = v; }
double result_read_back(double x, double y) {
  double u = 0;
  expo(&u, x);
  double s = u * y;
  set(&u, y);
  return s + u * x;
}

TEST(TapedCalls, result_read_back) {
  auto g = adjoint::gradient(result_read_back);
  check("result_read_back", g, result_read_back, Scalar<double>{}, Scalar<double>{});
}

// A local struct rotated in place in a loop: each iteration's reverse reads the point as that
// iteration's call left it.
struct Point {
  double a, b;
};
void rotate(Point& p, double t) {
  double a = p.a;
  p.a = std::cos(t) * a - std::sin(t) * p.b;
  p.b = std::sin(t) * a + std::cos(t) * p.b;
}
double rotations(double x, double t) {
  Point p{x, 1.0};
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    rotate(p, t);
    s += p.a * p.b;
  }
  return s;
}

TEST(TapedCalls, rotations) {
  auto g = adjoint::gradient(rotations);
  check("rotations", g, rotations, Scalar<double>{}, Scalar<double>{});
}

// A local array squared in place by a callee that does not restore it.
void square_scale(double* a, int n, double k) {
  for (int i = 0; i < n; ++i) a[i] = a[i] * a[i] * k;
}
double local_array(double x, double k) {
  double a[3] = {x, 2 * x, 0.5};
  double s = 0;
  for (int r = 0; r < 2; ++r) {
    square_scale(a, 3, k);
    s += a[0] * a[1] + a[2];
  }
  return s;
}

TEST(TapedCalls, local_array) {
  auto g = adjoint::gradient(local_array);
  check("local_array", g, local_array, Scalar<double>{-0.8, 0.8}, Scalar<double>{-0.8, 0.8});
}

// A local vector and a reference parameter, each updated by calls in a loop.
void smooth(std::vector<double>& v, double w) {
  for (std::size_t i = 1; i < v.size(); ++i) v[i] = v[i] * v[i - 1] * w + v[i];
}
void twice(double& d) { d = d * d * 0.5 + 1; }
double vector_and_reference(double x, double& r) {
  std::vector<double> v(4);
  for (int i = 0; i < 4; ++i) v[i] = x + i * 0.1;
  double s = 0;
  for (int k = 0; k < 2; ++k) {
    smooth(v, r);
    twice(r);
    s += v[3] * r;
  }
  return s;
}

TEST(TapedCalls, vector_and_reference) {
  auto g = adjoint::gradient(vector_and_reference);
  double x = 0.3, r = 0.4, dx = 0, dr = 0;
  double r_before = r;
  g.execute(x, r, &dx, &dr);
  auto f = [](double a, double b) { return vector_and_reference(a, b); };
  const double h = 1e-6;
  EXPECT_NEAR(dx, (f(x + h, r_before) - f(x - h, r_before)) / (2 * h), 1e-6 * (1 + std::fabs(dx)));
  EXPECT_NEAR(dr, (f(x, r_before + h) - f(x, r_before - h)) / (2 * h), 1e-6 * (1 + std::fabs(dr)));
}

// Integers a call writes through a reference are memory too: the reverse of `x * x * k` reads k
// as it was before bump, and each next's reverse reads n as that call left it.
void bump(int& k) { k += 1; }
double next(int& n, double v) {
  ++n;
  return v * n;
}
double integer_counters(double x, double y) {
  int k = 1;
  double a = x * x * k;
  bump(k);
  int n = 0;
  return a * y * k + next(n, x) + next(n, y) * next(n, x);
}

// A call that changes its argument, inside an expression, a condition and a loop condition: its
// result is a temporary the reverse reads, never a second call.
int take(int& counter) { return counter++; }
double counters_in_expressions(double x, double y) {
  int c = 1;
  double s = x * take(c);
  s += y * take(c) * s;
  if (take(c) < 4) s *= x;
  while (take(c) < 6) s *= y;
  return s * c;
}

TEST(TapedCalls, integer_counters) {
  auto g = adjoint::gradient(integer_counters);
  check("integer_counters", g, integer_counters, Scalar<double>{}, Scalar<double>{});
  auto h = adjoint::gradient(counters_in_expressions);
  check("counters_in_expressions", h, counters_in_expressions, Scalar<double>{}, Scalar<double>{});
}

// Numbers read from memory the call then overwrites (`add_square(y, y[1] + x[i])`,
// `update(g, std::tanh(g))`): the call receives a local copy, which its pullback reads again in the
// reverse, where y[1] and g already hold what the call wrote.
void add_square(double* out, double a) { out[0] += a * a; }
void update(double& o, double a) { o = o * std::cos(o) + a; }
void arguments_the_call_overwrites(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    add_square(y, y[1] + x[i]);
    double g = y[0] * 0.5;
    update(g, std::tanh(g));
    y[1] += g;
  }
}

TEST(TapedCalls, arguments_the_call_overwrites) {
  auto g = adjoint::gradient(arguments_the_call_overwrites, "y, x");
  check("arguments_the_call_overwrites", g, arguments_the_call_overwrites, InOut<double>{2}, In<double>{3}, 3);
}

}  // namespace taped_calls
