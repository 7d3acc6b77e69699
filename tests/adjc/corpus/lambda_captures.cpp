// Corpus: lambdas with captures — called inside differentiated code (by reference and by copy,
// implicit and named, init-captures, captured parameters, locals, arrays through pointers, structs
// and vectors, a lambda writing what it captures by reference, mutable lambdas, integer helpers, lambdas declared in
// loops, a lambda called where it is written), and requested as the function itself, the captured
// values then constants.
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

double captures_kinds(double x, double y) {
  double k = x * y, acc = std::sin(x);
  auto by_reference = [&](double v) { return v * k + acc; };
  auto by_copy = [=](double v) { return v * k - acc * y; };
  auto named = [k, &acc](double v) { return v * v * k + acc; };
  double first = by_reference(y) + by_copy(x) * named(y);
  k = k * x;  // the copies keep the old k, the references see the new one
  acc = acc + y;
  return first + by_reference(x) * by_copy(y) + named(x);
}

double init_captures(double x, double y) {
  auto f = [s = 2.0 * x, t = y * y](double v) { return std::exp(s * v) * t; };
  return f(y) + f(x) + [x, &y](double v) { return v * x * y; }(x + y);
}

// The lambda writes the local it captures by reference (a one-element region) in a loop.
double accumulator(const double* x, int n) {
  double acc = 0, w = x[0];
  auto add = [&](double v) { acc += v * v * w; };
  for (int i = 0; i < n; i++) add(x[i] + 0.5);
  return acc;
}

// Arrays through captured pointer parameters, an integer index helper, an output written by a
// void lambda.
void rows(const double* w, const double* x, double* out, int n, int m) {
  auto at = [&](int r, int c) { return r * m + c; };
  auto store = [&](int r, double v) { out[r] = std::tanh(v); };
  for (int r = 0; r < n; r++) {
    double s = 0;
    for (int c = 0; c < m; c++) s += w[at(r, c)] * x[c];
    store(r, s);
  }
}

struct Params {
  double a, b;
  const double* w;
};
double struct_capture(const Params& p, const double* x, int n) {
  auto term = [&](int i) { return p.a * x[i] * x[i] + p.b * p.w[i]; };
  double s = 0;
  for (int i = 0; i < n; i++) s += term(i);
  return s;
}

double vector_capture(const double* x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++) v.push_back(x[i] * x[i]);
  auto norm = [&]() {
    double s = 0;
    for (std::size_t i = 0; i < v.size(); i++) s += v[i] * v[i];
    return std::sqrt(s);
  };
  return norm() * x[0];
}

// A lambda declared in a loop, copying the iteration's value; one calling a lambda without captures.
float declared_in_loop(const float* x, int n) {
  auto sq = [](float v) { return v * v; };
  float s = 0;
  for (int i = 0; i < n; i++) {
    float xi = x[i];
    auto f = [xi, &sq](float v) { return sq(v - xi) * xi; };
    s += f(x[(i + 1) % n]);
  }
  return s;
}

// The hints of the lambda_* diagnostics (tests/adjc/diagnostics), followed.
double hint_condition(const double* x, int n) {  // lambda_capture_condition: the result in a local
  auto positive = [&](int i) { return x[i] > 0; };
  double s = 0;
  for (int i = 0; i < n; i++) {
    bool p = positive(i);
    if (p) s += x[i] * x[i];
  }
  return s;
}
double hint_captures_lambda(const double* w, const double* x, int m) {  // what 'at' computes, passed
  auto at = [&](int c) { return c + m; };
  auto term = [&](int index, int c) { return w[index] * x[c]; };
  double s = 0;
  for (int c = 0; c < m; c++) {
    int index = at(c);
    s += term(index, c);
  }
  return s;
}
double hint_writes_parameter(double x, double y) {  // a local copy captured
  double local = x;
  auto bump = [&local](double v) { local += v * v; };
  bump(y);
  return local * y;
}
// The changing value kept where the lambda is called, as the lambda_mutable hint says.
double hint_mutable(double x) {
  double scale = 1;
  auto grown = [&scale]() { return scale * 2; };
  double s = 0;
  for (int i = 0; i < 2; i++) {
    scale = grown();
    s += x * (i + 1) * scale;
  }
  return s;
}
struct Model {
  double w;
  double loss(double x) const {  // lambda_capture_this: the member copied into a local
    double weight = w;
    auto term = [weight](double v) { return weight * v; };
    return term(x) * x;
  }
};
struct Line {
  double a, b;
};
double hint_struct_copy(const Line& p, double x) {  // a struct by reference
  auto line = [&p](double v) { return p.a * v + p.b; };
  return line(x) * x;
}
double hint_array(double x) {  // a pointer to the first element
  double v[3] = {x, 2 * x, 3 * x};
  const double* first = v;
  auto at = [first](int i) { return first[i] * first[i]; };
  return at(0) + at(2);
}
double hint_passed(double x, double k) {  // lambda_capture_passed: called where it is declared
  auto scaled = [k](double v) { return v * k; };
  return scaled(scaled(x));
}

// Mutable lambdas: a copy the lambda changes lives as long as the lambda, a local its function
// updates by reference (taped before each call whose reverse needs the old value); and a lambda
// that both writes and reads what it captures by reference.
double mutable_copy(double x, double y) {
  auto f = [c = 0.5](double v) mutable {
    c += v;
    return c * v;
  };
  return f(x) + f(y) * f(x);
}
double mutable_in_loop(double x, double y) {
  double k = x;
  auto f = [k](double v) mutable {
    k *= v;
    return k;
  };
  double s = 0;
  for (int i = 0; i < 3; i++) s += f(y);
  return s + k;  // the caller's k is unchanged
}
double mutable_counter(double x) {
  int n = 0;
  auto f = [n](double v) mutable {
    ++n;
    return v * n;
  };
  return f(x) + f(x) * f(x);
}
double reads_written_capture(double x) {
  double scale = 1, s = 0;
  auto grow = [&scale](double v) {
    scale *= 2;
    return v * scale * scale;
  };
  for (int i = 0; i < 3; i++) s += grow(x * (i + 1));
  return s * scale;
}
// Arrays captured by copy: a const one (its copy's type printed once const), arrays of arrays, and a
// mutable lambda changing its copy of one, declared in a loop.
double const_array_copy(double x) {
  const double v[3] = {x, x * x, 2 * x};
  auto f = [v] { return v[1] * v[2]; };
  return f();
}
double matrix_copy(double x, double y) {
  double m[2][1][3] = {{{x, 2 * y, 3 * x}}, {{4 * x, 5 * y, x * y}}};
  auto f = [m] { return m[0][0][1] * m[1][0][2] + m[1][0][0]; };
  m[0][0][1] = 0;  // the copy keeps the old value
  return f() + m[0][0][1] * x;
}
double mutable_matrix_in_loop(double x, double y) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    double m[2][2] = {{x, x * y}, {y, 3 * x}};
    auto f = [m]() mutable {
      m[0][0] *= m[1][0];
      return m[0][0] * m[1][1];
    };
    s += f() + f();
    x += 0.5;
  }
  return s;
}

TEST(LambdaCaptures, arrays_by_copy) {
  check("const_array_copy", adjoint::gradient(const_array_copy), const_array_copy, Scalar<double>{});
  check("matrix_copy", adjoint::gradient(matrix_copy), matrix_copy, Scalar<double>{}, Scalar<double>{});
  check("mutable_matrix_in_loop", adjoint::gradient(mutable_matrix_in_loop), mutable_matrix_in_loop, Scalar<double>{},
        Scalar<double>{});
}

TEST(LambdaCaptures, mutable_and_written_captures) {
  check("mutable_copy", adjoint::gradient(mutable_copy), mutable_copy, Scalar<double>{}, Scalar<double>{});
  check("mutable_in_loop", adjoint::gradient(mutable_in_loop), mutable_in_loop, Scalar<double>{}, Scalar<double>{});
  check("mutable_counter", adjoint::gradient(mutable_counter), mutable_counter, Scalar<double>{});
  check("reads_written_capture", adjoint::gradient(reads_written_capture), reads_written_capture, Scalar<double>{});
}

TEST(LambdaCaptures, called_in_differentiated_code) {
  check("captures_kinds", adjoint::gradient(captures_kinds), captures_kinds, Scalar<double>{}, Scalar<double>{});
  check("init_captures", adjoint::gradient(init_captures), init_captures, Scalar<double>{}, Scalar<double>{});
  check("accumulator", adjoint::gradient(accumulator, "x"), accumulator, In<double>{5}, 5);
  check("rows", adjoint::gradient(rows, "w, x, out"), rows, In<double>{12}, In<double>{4}, Out<double>{3}, 3, 4);
  check("vector_capture", adjoint::gradient(vector_capture, "x"), vector_capture, In<double>{4}, 4);
  check("declared_in_loop", adjoint::gradient(declared_in_loop, "x"), declared_in_loop, In<float>{4}, 4);
}

TEST(LambdaCaptures, struct_captured_by_reference) {
  double w[3] = {0.3, -0.7, 1.1}, x[3] = {0.5, -1.5, 2.0};
  Params p{0.75, -1.25, w};
  double dw[3] = {}, dx[3] = {};
  Params dp{0, 0, dw};
  adjoint::gradient(struct_capture, "p, x").execute(p, x, 3, &dp, dx);
  double sum_x2 = 0, sum_w = 0;
  for (int i = 0; i < 3; i++) sum_x2 += x[i] * x[i], sum_w += w[i];
  EXPECT_NEAR(dp.a, sum_x2, 1e-12);
  EXPECT_NEAR(dp.b, sum_w, 1e-12);
  for (int i = 0; i < 3; i++) {
    EXPECT_NEAR(dw[i], p.b, 1e-12);
    EXPECT_NEAR(dx[i], 2 * p.a * x[i], 1e-12);
  }
}

TEST(LambdaCaptures, requested) {
  double k = 1.5, c = -0.25;
  auto by_reference = [&](double v, double w) { return std::sin(v * k) * w + c; };
  check("[&] lambda", adjoint::gradient(by_reference), by_reference, Scalar<double>{}, Scalar<double>{});
  k = 0.5;  // captured by reference: execute reads the new value
  check("[&] lambda, k changed", adjoint::gradient(by_reference), by_reference, Scalar<double>{}, Scalar<double>{});
  auto by_copy = [k, c](double v) { return k * v * v + c * v; };
  check("[k, c] lambda", adjoint::gradient(by_copy), by_copy, Scalar<double>{});
  const double base = 3.0;
  const double* weights = &base;
  auto written = adjoint::gradient([s = 2.0 * k, weights](float v) { return float(s * *weights) * v * v; });
  check("inline lambda with an init-capture", written, [=](float v) { return float(2.0 * k * base) * v * v; },
        Scalar<float>{});
}

TEST(LambdaCaptures, hints_followed) {
  check("hint_condition", adjoint::gradient(hint_condition, "x"), hint_condition, In<double>{5}, 5);
  check("hint_captures_lambda", adjoint::gradient(hint_captures_lambda, "w, x"), hint_captures_lambda,
        In<double>{12}, In<double>{4}, 4);
  check("hint_mutable", adjoint::gradient(hint_mutable), hint_mutable, Scalar<double>{});
  check("hint_writes_parameter", adjoint::gradient(hint_writes_parameter), hint_writes_parameter, Scalar<double>{},
        Scalar<double>{});
  Model model{0.75};
  check("Model::loss", adjoint::gradient(&Model::loss, "x"), [](const Model* m, double x) { return m->loss(x); },
        Fixed<const Model*>{&model}, Scalar<double>{});
  Line line{1.5, -0.5}, d_line{};
  double x = 0.8, d_x = 0;
  adjoint::gradient(hint_struct_copy).execute(line, x, &d_line, &d_x);
  EXPECT_NEAR(d_line.a, x * x, 1e-12);
  EXPECT_NEAR(d_line.b, x, 1e-12);
  EXPECT_NEAR(d_x, 2 * line.a * x + line.b, 1e-12);
  check("hint_array", adjoint::gradient(hint_array), hint_array, Scalar<double>{});
  check("hint_passed", adjoint::gradient(hint_passed), hint_passed, Scalar<double>{}, Scalar<double>{});
  // lambda_request_writes_capture: the value returned; lambda_request_copy_changed: by reference;
  // lambda_request_init_capture: requested where written; lambda_request_capture_named: a parameter.
  double k = 2;
  auto square = [](double v) { return v * v; };
  check("returned instead of accumulated", adjoint::gradient(square), square, Scalar<double>{});
  auto by_reference = [&k](double v) { return k * v * v; };
  k = 3;
  check("[&k] after k changed", adjoint::gradient(by_reference), by_reference, Scalar<double>{});
  auto written = adjoint::gradient([s = 2 * x](double v) { return s * v * v; });
  check("init-capture where written", written, [&](double v) { return 2 * x * v * v; }, Scalar<double>{});
  auto with_k = [](double v, double kk) { return kk * v * v; };
  check("k as a parameter", adjoint::gradient(with_k, "kk"), with_k, Fixed<double>{0.5}, Scalar<double>{});
}
