// Corpus: more forms of lambdas with captures — a capturing lambda declared inside another, lambdas
// writing the parameters they capture by reference or returning a reference to a capture, lambdas
// called through references or `.operator()` and held with braces or parentheses, arrays and
// structs of numbers captured by copy (also by mutable lambdas), arrays by reference, and
// init-captures by reference; and the hints of their diagnostics (tests/adjc/diagnostics/lambda_*).
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// Nested: the inner lambdas read the outer one's parameter and captures, by reference and by copy.
double nested(double x, double y) {
  auto outer = [&](double v) {
    auto square = [&] { return x * v; };
    auto shifted = [v, y](double w) { return (w - v) * y; };
    return square() * shifted(x);
  };
  return outer(y) + outer(x * y);
}
// The inner lambda, declared in a loop of the outer one, writes the outer's local and a local of
// the function.
double nested_writes(double x, const double* p, int n) {
  double acc = 0;
  auto run = [&] {
    double local = x;
    for (int i = 0; i < n; i++) {
      auto bump = [&](double v) {
        local *= v;
        acc += std::sin(local);
      };
      bump(p[i]);
    }
    return local;
  };
  double last = run();
  return acc * last;
}
double three_deep(double x, double y) {
  auto a = [&] {
    auto b = [&, y] {
      auto c = [&] { return std::sin(x) * y; };
      return c() + x;
    };
    return b() * x;
  };
  return a() * y;
}

// Parameters the lambda writes through its captures by reference.
double writes_parameters(double x, double y) {
  auto scale = [&](double k) {
    x *= k;
    y += x;
  };
  scale(y);
  scale(0.5);
  return x * y;
}
double writes_parameter_in_loop(double x, int n) {
  auto step = [&x] { x = std::sin(x) + 0.5 * x * x; };
  for (int i = 0; i < n; i++) step();
  return x;
}
double returns_reference(double x, double y) {
  auto pick = [&x]() -> double& { return x; };
  return pick() * y + pick() * x;
}

// Called through references to the local holding it, by `.operator()`, held with braces or parentheses.
double called_other_ways(double x, double y) {
  auto g = [x, &y](double v) { return x * v + y; };
  auto& h = g;
  const auto& k = h;
  auto braced{[x](double v) { return v * x; }};
  auto parenthesised = ([&x] { return x * x; });
  return h(y) * k(x) + g.operator()(x * y) + braced(y) * parenthesised();
}

// Arrays and structs of numbers copied: each lambda reads its own copy, a mutable one changes it.
struct Pair2 {
  double a, b;
};
double array_copy(double x, double y) {
  double v[3] = {x, y, x * y};
  auto sum = [v](double w) { return v[0] * w + v[1] * v[2]; };
  double before = sum(x);
  v[1] = 0;  // the lambda's copy keeps y
  return before + sum(y) * v[2];
}
double array_mutable(double x) {
  double v[2] = {x, 1};
  auto grow = [v]() mutable {
    v[1] *= v[0];
    return v[1];
  };
  double s = grow() + grow();
  return s * v[1];  // v itself is unchanged
}
double struct_copy(double x, double y) {
  Pair2 p{x, y};
  auto f = [p](double v) { return p.a * v + p.b; };
  p.a = y;
  return f(x) * p.a;
}
double struct_mutable(double x, double y) {
  Pair2 p{x, y};
  auto f = [p](double v) mutable {
    p.a += v;
    return p.a * p.b;
  };
  return f(x) + f(y) * p.a;
}
double copies_written_at_call(double x) {
  double v[2] = {x, x * x};
  Pair2 p{x, 2};
  return [v, p] { return v[1] * p.b + v[0] * p.a; }();
}

double struct_copy_of_reference(const Pair2& p, double x) {
  auto line = [p](double v) { return p.a * v + p.b; };
  return line(x) * x;
}
// An array captured by reference, read and written.
double array_reference(double x, double y) {
  double v[3] = {x, y, x * y};
  auto at = [&v](int i) { return v[i] * v[i]; };
  auto scale = [&v](double k) {
    for (int i = 0; i < 3; i++) v[i] *= k;
  };
  double first = at(0) + at(2);
  scale(y);
  return first * at(1);
}

// Init-captures by reference: names for variables, written and read.
double init_references(double x, double y) {
  double acc = x;
  auto add = [&total = acc, &scale = y](double v) { total += v * scale; };
  add(x);
  add(y);
  auto read = [&r = x] { return r * r; };
  return acc * read();
}

// The hints of the diagnostics lambda_init_reference_element, lambda_capture_vector_copy,
// lambda_reference_result_written and lambda_request_array_copy, followed.
double hint_element_in_body(double x) {
  double v[2] = {x, 2 * x};
  auto first = [&v](double t) { return v[0] * t; };
  return first(x);
}
double hint_vector_by_reference(double x) {
  std::vector<double> v = {x, 2 * x, x * x};
  auto product = [&v] { return v[0] * v[2]; };
  return product();
}
double hint_value_of_reference(double x, double y) {
  auto pick = [&x]() -> double& { return x; };
  x *= y;
  return pick() * x;
}

TEST(LambdaForms, nested) {
  check("nested", adjoint::gradient(nested), nested, Scalar<double>{}, Scalar<double>{});
  check("nested_writes", adjoint::gradient(nested_writes, "x, p"), nested_writes, Scalar<double>{}, In<double>{4}, 4);
  check("three_deep", adjoint::gradient(three_deep), three_deep, Scalar<double>{}, Scalar<double>{});
}

TEST(LambdaForms, written_parameters) {
  check("writes_parameters", adjoint::gradient(writes_parameters), writes_parameters, Scalar<double>{},
        Scalar<double>{});
  check("writes_parameter_in_loop", adjoint::gradient(writes_parameter_in_loop, "x"), writes_parameter_in_loop,
        Scalar<double>{}, 3);
  check("returns_reference", adjoint::gradient(returns_reference), returns_reference, Scalar<double>{},
        Scalar<double>{});
}

TEST(LambdaForms, uses) {
  check("called_other_ways", adjoint::gradient(called_other_ways), called_other_ways, Scalar<double>{},
        Scalar<double>{});
}

TEST(LambdaForms, copied_arrays_and_structs) {
  check("array_copy", adjoint::gradient(array_copy), array_copy, Scalar<double>{}, Scalar<double>{});
  check("array_mutable", adjoint::gradient(array_mutable), array_mutable, Scalar<double>{});
  check("struct_copy", adjoint::gradient(struct_copy), struct_copy, Scalar<double>{}, Scalar<double>{});
  check("struct_mutable", adjoint::gradient(struct_mutable), struct_mutable, Scalar<double>{}, Scalar<double>{});
  check("struct_copy_of_reference", adjoint::gradient(struct_copy_of_reference, "x"), struct_copy_of_reference,
        Fixed<Pair2>{{0.5, -1.5}}, Scalar<double>{});
  check("array_reference", adjoint::gradient(array_reference), array_reference, Scalar<double>{}, Scalar<double>{});
  check("copies_written_at_call", adjoint::gradient(copies_written_at_call), copies_written_at_call,
        Scalar<double>{});
}

TEST(LambdaForms, init_references) {
  check("init_references", adjoint::gradient(init_references), init_references, Scalar<double>{}, Scalar<double>{});
}

TEST(LambdaForms, requested) {
  Pair2 p{0.5, -1.5};
  auto with_struct = [p](double v) { return p.a * v * v + p.b * v; };
  check("[p] lambda", adjoint::gradient(with_struct), with_struct, Scalar<double>{});
  double k = 1.25;
  auto with_reference = [&r = k](double v) { return r * std::sin(v); };
  check("[&r = k] lambda", adjoint::gradient(with_reference), with_reference, Scalar<double>{});
  auto outer = [&](double v) {
    auto inner = [&] { return k * v * v; };
    return inner() + v;
  };
  check("nested lambda", adjoint::gradient(outer), outer, Scalar<double>{});
  double v[2] = {0.5, 1.5};
  auto dot = [&v](double t) { return v[0] * t + v[1] * t * t; };
  check("[&v] lambda", adjoint::gradient(dot), dot, Scalar<double>{});
}

TEST(LambdaForms, hints_followed) {
  check("hint_element_in_body", adjoint::gradient(hint_element_in_body), hint_element_in_body, Scalar<double>{});
  check("hint_vector_by_reference", adjoint::gradient(hint_vector_by_reference), hint_vector_by_reference,
        Scalar<double>{});
  check("hint_value_of_reference", adjoint::gradient(hint_value_of_reference), hint_value_of_reference,
        Scalar<double>{}, Scalar<double>{});
}
