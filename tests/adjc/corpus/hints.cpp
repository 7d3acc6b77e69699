// Corpus: the hints of adjc's diagnostics, followed (tests/adjc/diagnostics: library_no_rule,
// library_class_param, lambda, local_struct, array_of_structs,
// reference_result, struct_whole, struct_constructor, object_pointer_member, struct_result_pointer,
// make_pair_in_expression, call_argument_overwritten, returned_pointer_read, rvalue_reference_written);
// each builds and is right.
#include <adjoint/ad.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// library_no_rule: a custom pullback for the library function.
namespace adjoint::custom_derivatives {
inline void lerp_pullback(double a, double b, double t, double d_result, double* d_a, double* d_b, double* d_t) {
  *d_a += d_result * (1 - t);
  *d_b += d_result * t;
  *d_t += d_result * (b - a);
}
}  // namespace adjoint::custom_derivatives
double blend(double x, double y) { return std::lerp(x, y, 0.25) * x; }
// library_class_param: the elements as a pointer and a length.
double squares_sum(const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * v[i];
  return s;
}
// lambda: a named function.
double squared(double v) { return v * v; }
double with_square(double x) { return squared(x) + x; }
// local_struct: a local per member.
double layer_members(const double* p, double x) {
  const double* w = p + 1;
  double scale = 2.0;
  return w[0] * scale * x;
}
// array_of_structs: one array per member of the struct.
double member_arrays(double x) {
  double a[2] = {x, 1}, b[2] = {x * x, x};
  return a[0] * b[1] + b[0] * a[1];
}
// An inner lambda taking parameters instead of captures.
double nested_lambdas(double x, double y) {
  auto outer = [&]() {
    auto product = [](double a, double b) { return a * b; };
    return product(x, y) * x;
  };
  return outer();
}
// reference_result: the value returned.
double larger(const double* p, int k) {
  if (p[k] > p[0]) return p[k];
  return p[0];
}
double element_product(const double* x) { return larger(x, 1) * x[0]; }

// struct_whole: its members as locals.
double members_as_locals(double x) {
  std::vector<double> values;
  double weight = x;
  return weight * x;
}
// struct_constructor: the computation in the member-initialiser list.
struct Twice {
  double value;
  explicit Twice(double v) : value(v * 2) {}
};
double twice_value(double x) {
  Twice t(x);
  return t.value * x;
}
// object_pointer_member: the pointer passed as an argument.
struct Dot2 {
  double operator()(const double* w, const double* x) const { return w[0] * x[0] + w[1] * x[1]; }
};
double dot_of(const double* w, const double* x) {
  Dot2 d;
  return d(w, x);
}
// struct_result_pointer: the pointer formed where it is used.
double first_element(const double* x, int n) {
  const double* p = x + n / 2 - 1;
  return p[0] * x[0];
}
// structured_binding: the pair declared, its members named.
std::pair<double, double> split(double x) { return {x * x, 2 * x}; }
double split_product(double x) {
  auto s = split(x);
  return s.first * s.second;
}
// make_pair_in_expression: the pair in a local first.
double first_of_pair(double x) {
  auto p = std::make_pair(x, 2.0);
  return p.first * x;
}

// call_argument_overwritten: the offset computed into a local before the call.
void accumulate_product(double* out, const double* a) { out[0] += a[0] * a[1]; }
void offset_in_a_local(double* y, const double* z) {
  int k = int(y[0] * 0.25);
  accumulate_product(y, z + k);
}
// returned_pointer_read: the array indexed directly.
double skipped_element(double* a) { return a[1] * 3; }
// rvalue_reference_written: the number taken by value.
double doubled_by_value(double x, double y) {
  x *= 2;
  return x * y;
}

TEST(Hints, members_as_locals) {
  check("members_as_locals", adjoint::gradient(members_as_locals), members_as_locals, Scalar<double>{});
}
TEST(Hints, constructor_initialiser_list) {
  check("twice_value", adjoint::gradient(twice_value), twice_value, Scalar<double>{});
}
TEST(Hints, pointer_argument) { check("dot_of", adjoint::gradient(dot_of), dot_of, In<double>{2}, In<double>{2}); }
TEST(Hints, pointer_where_used) {
  check("first_element", adjoint::gradient(first_element, "x"), first_element, In<double>{4}, 4);
}
TEST(Hints, value_result) {
  auto g = adjoint::gradient(element_product);
  check("element_product", g, element_product, In<double>{2});
}
TEST(Hints, custom_pullback_for_a_library_function) {
  auto g = adjoint::gradient(blend);
  check("blend", g, blend, Scalar<double>{}, Scalar<double>{});
}
TEST(Hints, pointer_and_length) {
  auto g = adjoint::gradient(squares_sum);
  check("squares_sum", g, squares_sum, In<double>{3}, 3);
}
TEST(Hints, named_function) {
  auto g = adjoint::gradient(with_square);
  check("with_square", g, with_square, Scalar<double>{});
}
TEST(Hints, local_per_member) {
  auto g = adjoint::gradient(layer_members);
  check("layer_members", g, layer_members, In<double>{2}, Scalar<double>{});
}
TEST(Hints, array_per_member) {
  auto g = adjoint::gradient(member_arrays);
  check("member_arrays", g, member_arrays, Scalar<double>{});
}
TEST(Hints, lambda_parameters_for_captures) {
  check("nested_lambdas", adjoint::gradient(nested_lambdas), nested_lambdas, Scalar<double>{}, Scalar<double>{});
}
TEST(Hints, pair_named) {
  check("split_product", adjoint::gradient(split_product), split_product, Scalar<double>{});
  check("first_of_pair", adjoint::gradient(first_of_pair), first_of_pair, Scalar<double>{});
}
TEST(Hints, offset_in_a_local) {
  check("offset_in_a_local", adjoint::gradient(offset_in_a_local, "y, z"), offset_in_a_local, InOut<double>{2}, In<double>{3});
}
TEST(Hints, index_directly) {
  check("skipped_element", adjoint::gradient(skipped_element), skipped_element, In<double>{2});
}
TEST(Hints, number_by_value) {
  check("doubled_by_value", adjoint::gradient(doubled_by_value), doubled_by_value, Scalar<double>{}, Scalar<double>{});
}
