// Corpus: the standard library's values around containers (docs/adjc.md, "std::vector and
// std::array" and "Library values without derivative"): local std::initializer_lists of numbers
// (range-for, begin()/end() iteration, size()), by-value container parameters the function
// changes (its own copy), containers copy-initialised from others, vectors declared inside loops,
// an allocator argument, local structs with a std::vector member, and std::optional<int>
// parameters (a default std::nullopt, explicit values) and default-constructed locals.
#include <adjoint/ad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// In a namespace of their own: the corpus files link into one test program.
namespace library_values {

// A braced list of values carrying derivatives, in a branch, iterated by range-for.
double list_range_for(double x, double y) {
  double sum = 0;
  if (x > -2) {
    auto&& range = {1., x, 2., y * x, 3.};
    for (auto elem : range) sum += elem * elem;
  }
  return sum;
}
// Integers by begin()/end(), numbers through a pointer walk, size() and a second walk.
double list_iterators(double x, double y) {
  double res = 0;
  auto&& weights = {1, 2, 3};
  for (auto i = weights.begin(); i != weights.end(); i++) res += x * (*i);
  std::initializer_list<double> values = {x, y, x * y};
  for (const double* p = values.begin(); p != values.end(); ++p) res += std::sin(*p) * y;
  return res * double(values.size()) + double(weights.size());
}
// A by-value container the function writes: its own copy (the caller's is unchanged).
double replace_and_square(std::vector<double> values, double x) {
  values[0] = x;
  values.push_back(values[1] * x);
  return values[0] * values[0] + values.back() * values[1];
}
double refill_array(std::array<double, 3> a, double x) {
  double s = a[0] * a[2];
  a.fill(x * a[1]);
  return s + a[0] * a[2];
}
// Copies: a std::array from a local and from a parameter, a std::vector from a parameter and,
// inside a loop, from a local vector.
double array_copies(const std::array<double, 3>& p, double x) {
  std::array<double, 3> a;
  a[0] = x;
  a[1] = 0;
  a[2] = x * x;
  const std::array<double, 3> b = a;
  std::array<double, 3> c(p);
  c[1] = c[1] * b[2];
  return b.front() * b.at(2) + c[0] * c[1] + c.back();
}
double vector_copies(const std::vector<double>& x) {
  std::vector<double> y = x;
  for (std::size_t i = 0; i < y.size(); i++) y[i] = y[i] * x[(i + 1) % x.size()];
  double s = 0;
  std::vector<double> acc;
  for (int r = 0; r < 3; r++) {
    acc.push_back(y[r] * y[0]);
    std::vector<double> snapshot = acc;
    for (double e : snapshot) s += e * (r + 1);
  }
  return s;
}
// Vectors declared inside a loop: each iteration's is a new one.
double vectors_in_loop(double x, double y) {
  double s = 0;
  for (int i = 0; i < 4; i++) {
    std::vector<double> v;
    for (int k = 0; k <= i; k++) v.push_back(x * k + y);
    std::vector<double> w(i + 2, x * y);
    std::vector<double> z(3);
    z[i % 3] = v[0] * w[1];
    for (double e : v) s += e * e * z[i % 3];
    s += double(v.size()) * w.back();
  }
  return s;
}
// An allocator argument: a std::allocator holds nothing.
double with_allocator(double u, double v) {
  std::vector<double>::allocator_type allocator;
  std::vector<double>::size_type count = 3;
  std::vector<double> vec(count, u * v, allocator);
  return vec[0] + vec[1] * u + vec[2];
}
// A local struct with a std::vector member, declared in a loop: empty in every iteration.
struct Samples {
  std::vector<double> values;
  double scale;
};
double struct_with_vector(double a, double b) {
  double result = 0;
  for (int i = 0; i < 3; i++) {
    Samples s;
    s.scale = a;
    double size = 0;
    if (!s.values.size()) size = 1;
    for (int k = 0; k <= i; k++) s.values.push_back(b * k + s.scale);
    for (double e : s.values) result += e * s.scale * size;
  }
  return result;
}
// std::optional<int>: a default std::nullopt, an explicit value, has_value(), a default-constructed local.
double configured_scale(double value, std::optional<int> factor = std::nullopt) {
  return value * factor.value_or(2);
}
double use_default_factor(double value) { return configured_scale(value) + configured_scale(value, 3); }
double optional_branches(double x, const std::optional<int>& steps) {
  const std::optional<int> none;
  double s = x * none.value_or(1);
  if (steps.has_value())
    for (int i = 0; i < steps.value(); i++) s = s * x;
  return s;
}

}  // namespace library_values

using namespace library_values;

TEST(LibraryValues, initializer_list_locals) {
  check("list_range_for", adjoint::gradient(list_range_for), list_range_for, Scalar<double>{}, Scalar<double>{});
  check("list_iterators", adjoint::gradient(list_iterators), list_iterators, Scalar<double>{}, Scalar<double>{});
}
TEST(LibraryValues, by_value_containers_written) {
  std::vector<double> values = {10.0, 0.5};
  double x = 0.3, d_x = 0;
  adjoint::gradient(replace_and_square, "x").execute(values, x, &d_x);
  EXPECT_NEAR(d_x, 2 * x + 0.5 * 0.5, 1e-12);  // x^2 + (values[1] x) values[1]
  EXPECT_EQ(values[0], 10.0);                           // the caller's vector is unchanged
  EXPECT_EQ(values.size(), 2u);
  check("replace_and_square", adjoint::gradient(replace_and_square), replace_and_square, AsVector{In<double>{3}},
        Scalar<double>{});
  std::array<double, 3> a = {0.2, -0.7, 0.4}, d_a{};
  double y = 0.9, d_y = 0;
  adjoint::gradient(refill_array).execute(a, y, &d_a, &d_y);
  EXPECT_NEAR(d_a[0], a[2], 1e-12);
  EXPECT_NEAR(d_a[1], 2 * y * y * a[1], 1e-12);  // (y a1)^2
  EXPECT_NEAR(d_a[2], a[0], 1e-12);
  EXPECT_NEAR(d_y, 2 * y * a[1] * a[1], 1e-12);
  EXPECT_EQ(a[1], -0.7);
}
TEST(LibraryValues, container_copies) {
  std::array<double, 3> p = {0.3, -0.6, 0.8}, d_p{};
  double x = 0.7, d_x = 0;
  adjoint::gradient(array_copies).execute(p, x, &d_p, &d_x);
  // x * x^2 + p0 * p1 * x^2 + p2
  EXPECT_NEAR(d_x, 3 * x * x + 2 * p[0] * p[1] * x, 1e-12);
  EXPECT_NEAR(d_p[0], p[1] * x * x, 1e-12);
  EXPECT_NEAR(d_p[1], p[0] * x * x, 1e-12);
  EXPECT_NEAR(d_p[2], 1, 1e-12);
  check("vector_copies", adjoint::gradient(vector_copies), vector_copies, AsVector{In<double>{4}});
}
TEST(LibraryValues, vectors_declared_in_loops) {
  check("vectors_in_loop", adjoint::gradient(vectors_in_loop), vectors_in_loop, Scalar<double>{}, Scalar<double>{});
  check("struct_with_vector", adjoint::gradient(struct_with_vector), struct_with_vector, Scalar<double>{},
        Scalar<double>{});
}
TEST(LibraryValues, allocator_argument) {
  check("with_allocator", adjoint::gradient(with_allocator), with_allocator, Scalar<double>{}, Scalar<double>{});
}
TEST(LibraryValues, optional_parameters) {
  check("use_default_factor", adjoint::gradient(use_default_factor), use_default_factor, Scalar<double>{});
  for (std::optional<int> steps : {std::optional<int>(), std::optional<int>(3)}) {
    double x = 0.8, d_x = 0;
    adjoint::gradient(optional_branches, "x").execute(x, steps, &d_x);
    const int n = steps.value_or(0);
    EXPECT_NEAR(d_x, (n + 1) * std::pow(x, n), 1e-12) << "steps " << n;
  }
}
