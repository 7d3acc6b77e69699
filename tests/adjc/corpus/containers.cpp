// Corpus: std::vector and std::array (docs/adjc.md, "std::vector and std::array") as parameters
// (by value, const reference, reference: an output or in-place buffer), locals (sized scratch
// buffers, push_back in loops, braced std::arrays, fills with values that carry derivatives) and
// struct members; operator[], size(), data(), front(), back(), fill(), range-for; passed to differentiated callees; float elements;
// the size of a temporary (`std::vector<double>(3).size()`); and the
// functions that follow the hints of the container diagnostics (tests/adjc/diagnostics/vector_*).
#include <adjoint/ad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// In a namespace of their own: the corpus files link into one test program.
namespace containers {

double dot(const std::vector<double>& x, const std::vector<double>& y) {
  double s = 0;
  for (std::size_t i = 0; i < x.size(); i++) s += x[i] * y[i] * x[i];
  return s;
}
double by_value(std::vector<double> x, double a) {
  double s = 0;
  for (int i = 0; i < int(x.size()); i++) s += a * std::sin(x[i]) * x[i];
  return s;
}
// An output buffer and an in-place update through `std::vector<double>&`.
void into(const std::vector<double>& x, std::vector<double>& out) {
  for (std::size_t i = 0; i < out.size(); i++) out[i] = std::exp(x[i]) * x[(i + 1) % x.size()];
}
void in_place(std::vector<double>& v, double s) {
  for (std::size_t i = 0; i < v.size(); i++) v[i] = v[i] * v[i] * s;
  if (!v.empty()) v.front() = v.front() * v.back();
}
double ranges(const std::vector<double>& x) {
  double s = 0;
  for (double xi : x) s += xi * xi * xi;
  for (const double& xi : x) s += std::sin(xi) * s;
  return s;
}
double sum_squares(const double* p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += p[i] * p[i];
  return s;
}
double through_data(const std::vector<double>& x) {
  const double* p = x.data();
  double s = p[0] * p[1];
  return s + sum_squares(x.data(), int(x.size()));
}
// Scratch buffers: sized where declared, then written in loops.
double scratch(const double* x, int n) {
  std::vector<double> e(n);
  std::vector<double> w(n, 0.5);
  for (int i = 0; i < n; i++) e[i] = std::exp(x[i]);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += e[i] * w[i];
  for (int i = 0; i < n; i++) e[i] = e[i] / sum;  // overwritten in place: the old values are taped
  double s = 0;
  for (int i = 0; i < n; i++) s += e[i] * x[i];
  return s;
}
// Sizes change in the forward: the reverse sees each element where push_back put it.
double pushes(const double* x, int n) {
  std::vector<double> acc;
  acc.push_back(x[0]);
  for (int i = 1; i < n; i++) acc.push_back(acc.back() * std::cos(x[i]) + x[i]);
  for (int i = 0; i < n; i++) acc.push_back(acc[i] * acc[n - 1 - i]);
  double s = 0;
  for (double a : acc) s += a * a;
  return s + double(acc.size());
}
double arrays(double x, double y) {
  std::array<double, 3> a = {x, y, x * y};
  std::array<double, 2> b{};
  b[0] = a[0] * a[1] + a.back();
  b[1] = a.front() * b[0];
  double s = 0;
  for (double v : b) s += v * v;
  return s + a.size();
}
double array_param(const std::array<double, 4>& a, double x) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); i++) s += a[i] * x * a[(i + 1) % 4];
  return s;
}
struct Layer {
  std::vector<double> w;
  std::array<double, 2> b;
  int n;
};
double layer(const Layer& L, const std::vector<double>& x) {
  double s = 0;
  for (int i = 0; i < L.n; i++) s += std::tanh(L.w[i] * x[i] + L.b[i % 2]);
  return s;
}
double element_squared(const std::vector<double>& v, int i) { return v[i] * v[i]; }
double calls(const std::vector<double>& x) {
  double s = 0;
  for (int i = 0; i < int(x.size()); i++) s += element_squared(x, i) * x[0];
  return s;
}
double gather(const std::vector<double>& x, const std::vector<int>& idx) {
  double s = 0;
  for (int k : idx) s += x[k] * x[k] * x[0];
  return s;
}
float floats(const std::vector<float>& x) {
  float s = 0;
  for (float v : x) s += v * v * v;
  return s;
}
// Follows vector_in_loop's hint: the scratch vector declared before the loop, written in it.
double hint_vector_in_loop(const double* x, int n) {
  std::vector<double> row(n);
  double s = 0;
  for (int r = 0; r < 3; r++) {
    for (int i = 0; i < n; i++) row[i] = x[i] * (r + 1);
    for (int i = 0; i < n; i++) s += row[i] * row[i];
  }
  return s;
}
// Follows vector_push_back_param's hint: the caller sizes the output, the function assigns it.
void hint_push_back_param(const std::vector<double>& x, std::vector<double>& out) {
  for (std::size_t i = 0; i < x.size(); i++) out[i] = x[i] * x[i];
}
// Follows range_for_reference's hint: the elements written by index.
void hint_range_for_reference(std::vector<double>& v) {
  for (std::size_t i = 0; i < v.size(); i++) v[i] = 2 * v[i] * v[i];
}
// Follows vector_result's hint: the result written into a reference parameter.
void hint_vector_result(const std::vector<double>& x, std::vector<double>& result) {
  for (std::size_t i = 0; i < x.size(); i++) result[i] = std::sqrt(1 + x[i] * x[i]);
}
// Fill values that carry derivatives: `std::vector<double> v(n, x)` and std::array::fill, the
// array refilled per iteration from an element of its own and read across iterations.
double vector_fill_value(double x, int n) {
  std::vector<double> v(n, x);
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * v[i] * (i + 1);
  return s;
}
double array_fills(const double* x, int n) {
  std::vector<double> v(n, x[0] * x[1]);
  std::array<double, 3> a;
  a.fill(std::exp(x[n - 1]));
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += a[0] * a[2];
    a.fill(a[(i + 1) % 3] * x[i]);
    a[i % 3] += v[i];
    v[i] = a[0] * a[1] * a[2];
    s += v[i] + a[1];
  }
  return s;
}

// The size of a container built in place from integers is a number without derivative.
double temporary_sizes(double x, int n) {
  return x * double(std::vector<double>(3).size()) + x * x * static_cast<double>(std::vector<float>(n, 0).size()) +
         (std::vector<double>().empty() ? 0.0 : x);
}
}  // namespace containers
using namespace containers;

// Vectors from braced lists, at the function's level and refilled in a loop.
double listed_vectors(double x, double y) {
  std::vector<double> v = {x, 2 * y, x * y};
  double s = 0;
  for (int i = 0; i < 3; i++) {
    std::vector<double> w{v[i], x};
    s += w[0] * w[1];
  }
  std::vector<double> u{x * x};
  return s + v[2] * v[0] + u[0] * double(u.size());
}
TEST(Containers, braced_lists) {
  check("listed_vectors", adjoint::gradient(listed_vectors), listed_vectors, Scalar<double>{}, Scalar<double>{});
}
TEST(Containers, temporary_sizes) {
  check("temporary_sizes", adjoint::gradient(temporary_sizes, "x"), temporary_sizes, Scalar<double>{}, 4);
}
TEST(Containers, const_reference_parameters) {
  check("dot", adjoint::gradient(dot), dot, AsVector{In<double>{5}}, AsVector{In<double>{5}});
}
TEST(Containers, by_value_parameter) {
  check("by_value", adjoint::gradient(by_value), by_value, AsVector{In<double>{4}}, Scalar<double>{});
}
TEST(Containers, output_buffer) {
  check("into", adjoint::gradient(into), into, AsVector{In<double>{4}}, AsVector{Out<double>{4}});
}
TEST(Containers, in_place) {
  check("in_place", adjoint::gradient(in_place), in_place, AsVector{InOut<double>{4}}, Scalar<double>{});
}
TEST(Containers, range_for) { check("ranges", adjoint::gradient(ranges), ranges, AsVector{In<double>{5}}); }
TEST(Containers, data) {
  check("through_data", adjoint::gradient(through_data), through_data, AsVector{In<double>{4}});
}
TEST(Containers, scratch_buffers) {
  check("scratch", adjoint::gradient(scratch, "x"), scratch, In<double>{5}, 5);
}
TEST(Containers, push_back_in_loops) {
  check("pushes", adjoint::gradient(pushes, "x"), pushes, In<double>{4, -0.9, 0.9}, 4);
}
TEST(Containers, std_array_locals) {
  check("arrays", adjoint::gradient(arrays), arrays, Scalar<double>{}, Scalar<double>{});
}
TEST(Containers, callee_with_vector_parameter) {
  check("calls", adjoint::gradient(calls), calls, AsVector{In<double>{4}});
}
TEST(Containers, integer_vector_indices) {
  const std::vector<int> idx = {2, 0, 2, 1};
  auto g = adjoint::gradient(gather, "x");
  auto f = [&](const std::vector<double>& x) { return gather(x, idx); };
  struct {
    const decltype(g)& grad;
    const std::vector<int>& idx;
    void execute(std::vector<double>& x, std::vector<double>* d_x) const { grad.execute(x, idx, d_x); }
  } bound{g, idx};
  check("gather", bound, f, AsVector{In<double>{3}});
}
TEST(Containers, float_elements) {
  check("floats", adjoint::gradient(floats), floats, AsVector{In<float>{5}});
}
TEST(Containers, hints_followed) {
  check("hint_vector_in_loop", adjoint::gradient(hint_vector_in_loop, "x"), hint_vector_in_loop, In<double>{4}, 4);
  check("hint_push_back_param", adjoint::gradient(hint_push_back_param), hint_push_back_param,
        AsVector{In<double>{3}}, AsVector{Out<double>{3}});
  check("hint_range_for_reference", adjoint::gradient(hint_range_for_reference), hint_range_for_reference,
        AsVector{InOut<double>{3}});
  check("hint_vector_result", adjoint::gradient(hint_vector_result), hint_vector_result, AsVector{In<double>{3}},
        AsVector{Out<double>{3}});
}
TEST(Containers, fill_values_with_derivatives) {
  check("vector_fill_value", adjoint::gradient(vector_fill_value, "x"), vector_fill_value, Scalar<double>{}, 4);
  check("array_fills", adjoint::gradient(array_fills, "x"), array_fills, In<double>{5}, 5);
}

// std::array parameters and struct members, checked element by element against central differences.
template <class F>
double central_difference(double& v, F f) {
  const double saved = v, step = 1e-6;
  v = saved + step;
  const double up = f();
  v = saved - step;
  const double down = f();
  v = saved;
  return (up - down) / (2 * step);
}
TEST(Containers, std_array_parameter) {
  std::array<double, 4> a = {0.3, -0.7, 1.1, 0.4}, d_a{};
  double x = 0.8, d_x = 0;
  adjoint::gradient(array_param).execute(a, x, &d_a, &d_x);
  auto f = [&] { return array_param(a, x); };
  for (int k = 0; k < 4; k++) EXPECT_NEAR(d_a[k], central_difference(a[k], f), 1e-6) << "a[" << k << "]";
  EXPECT_NEAR(d_x, central_difference(x, f), 1e-6);
}
TEST(Containers, struct_members) {
  Layer L{{0.5, -0.3, 0.8}, {0.1, -0.2}, 3};
  Layer d_L{std::vector<double>(3), {}, 0};  // the adjoint struct: its vector sized like L.w
  std::vector<double> x = {0.9, 0.4, -0.6}, d_x(3);
  adjoint::gradient(layer).execute(L, x, &d_L, &d_x);
  auto f = [&] { return layer(L, x); };
  for (int k = 0; k < 3; k++) EXPECT_NEAR(d_L.w[k], central_difference(L.w[k], f), 1e-6) << "w[" << k << "]";
  for (int k = 0; k < 2; k++) EXPECT_NEAR(d_L.b[k], central_difference(L.b[k], f), 1e-6) << "b[" << k << "]";
  for (int k = 0; k < 3; k++) EXPECT_NEAR(d_x[k], central_difference(x[k], f), 1e-6) << "x[" << k << "]";
}

namespace containers {

// Pointers into local vectors and arrays that the reverse sweep needs back are taped as offsets
// from the array: the reverse sweep has arrays of its own (ASan found the forward's addresses used
// after they died), and a vector's storage moves when it is restored.
double via_pointer(const double* x, int n) {
  std::vector<double> v(n);
  double* p = v.data();
  double s = 0;
  for (int i = 0; i < n; i++) p[i] = x[i] * x[i];
  for (int i = 0; i < n; i++) {
    s += p[i] * v[i];
    v[i] = std::sin(v[i]);
  }
  for (int i = 0; i < n; i++) s += p[i] * x[i];
  return s;
}
double array_pointer(const double* x, int n) {
  double tmp[4];
  double* p = &tmp[0];
  double s = 0;
  for (int i = 0; i < 4; i++) p[i] = x[i] * x[i];
  for (int i = 0; i < 4; i++) {
    s += p[i] * tmp[i];
    tmp[i] = std::sin(tmp[i]);
  }
  for (int i = 0; i < n; i++) s += p[i] * x[i];
  return s;
}
// A vector in a branch, filled by a callee, pushed to in a loop with a break, a callee's vector
// in every iteration of the caller's loop, a parallel loop over vectors, a struct member output.
double in_branch(const double* x, int n) {
  double s = 0;
  if (n > 2) {
    std::vector<double> v;
    for (int i = 0; i < n; i++) v.push_back(x[i] * s + x[i]);
    for (int i = 0; i < n; i++) s += v[i] * v[n - 1 - i];
  }
  return s;
}
void fill(std::vector<double>& v, const double* x, int n) {
  for (int i = 0; i < n; i++) v[i] = std::exp(x[i]);
}
double callee_writes(const double* x, int n) {
  std::vector<double> v(n);
  fill(v, x, n);
  double s = 0;
  for (double e : v) s += e * e;
  return s;
}
double while_push(const double* x, int n) {
  std::vector<double> v;
  int i = 0;
  while (true) {
    if (i >= n) break;
    v.push_back(x[i] * (i + 1));
    if (x[i] > 2) break;
    i++;
  }
  double s = 0;
  for (std::size_t k = 0; k < v.size(); k++) s += v[k] * v[k] * v[0];
  return s;
}
double local_pushes(const double* x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++) v.push_back(std::cos(x[i]));
  double s = 0;
  for (double e : v) s += e * x[0];
  return s;
}
double caller_in_loop(const double* x, int n) {
  double s = 0;
  for (int r = 0; r < 3; r++) s += local_pushes(x, n) * x[r];
  return s;
}
double parallel_vectors(const std::vector<double>& x, std::vector<double>& y) {
  int n = int(x.size());
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += y[i];
  return s;
}
struct Hidden {
  std::vector<double> h;
};
void to_member(const std::vector<double>& x, Hidden& o) {
  for (std::size_t i = 0; i < x.size(); i++) o.h[i] = std::tanh(x[i]);
}

}  // namespace containers

TEST(Containers, pointers_into_local_arrays) {
  check("via_pointer", adjoint::gradient(via_pointer, "x"), via_pointer, In<double>{4}, 4);
  check("array_pointer", adjoint::gradient(array_pointer, "x"), array_pointer, In<double>{4}, 4);
}
TEST(Containers, vectors_in_branches_callees_and_loops) {
  check("in_branch", adjoint::gradient(in_branch, "x"), in_branch, In<double>{4}, 4);
  check("callee_writes", adjoint::gradient(callee_writes, "x"), callee_writes, In<double>{4}, 4);
  check("while_push", adjoint::gradient(while_push, "x"), while_push, In<double>{5, -3, 3}, 5);
  check("caller_in_loop", adjoint::gradient(caller_in_loop, "x"), caller_in_loop, In<double>{4}, 4);
  check("parallel_vectors", adjoint::gradient(parallel_vectors), parallel_vectors, AsVector{In<double>{70}},
        AsVector{Out<double>{70}});
}
TEST(Containers, member_output) {
  std::vector<double> x = {0.1, 0.5, -0.3}, d_x(3);
  Hidden o{std::vector<double>(3)}, d_o{{1.0, 2.0, 3.0}};  // d_o.h: the seed
  adjoint::gradient(to_member).execute(x, o, &d_x, &d_o);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(d_x[i], (i + 1) * (1 - std::tanh(x[i]) * std::tanh(x[i])), 1e-12);
}
