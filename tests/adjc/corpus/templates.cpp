// Corpus: function templates. adjc differentiates each specialization the code uses (its
// instantiated body); the derivatives of float and double specializations are overloads.
#include <adjoint/ad.hpp>

#include <cmath>
#include <cstddef>
#include <omp.h>

#include "gradcheck.hpp"

using namespace gradcheck;

// The engine's GELU shape: a `parallel for simd` loop with a size_t counter. Every thread owns
// its iterations' elements of out and x, so the reverse accumulates without atomics.
template <typename F>
void gelu(F* out, const F* x, std::size_t n) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < n; i++) {
    const F v = x[i];
    out[i] = F(0.5) * v * (1 + std::tanh(F(0.7978845608) * (v + F(0.044715) * v * v * v)));
  }
}
// x[i] and x[i + 1]: x's elements are shared between iterations (atomic accumulation).
template <typename F>
void neighbours(F* out, const F* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) out[i] = x[i] * x[i + 1];
}
// A template argument that cannot be deduced: the calls must spell it. (Only one K per parameter
// types: derivatives of specializations are told apart by their parameter types.)
template <int K, typename F>
F scaled_square(F v) {
  return F(K) * v * v;
}
template <int K>
int twice() {
  return 2 * K;
}
template <typename F>
F weighted_sum(const F* x, int n) {
  F s = 0;
  for (int i = 0; i < n; i++) s += scaled_square<3, F>(x[i] * s + x[i]) / twice<2>();
  return s;
}
// A template calling another template, both for float and double.
template <typename F>
F gelu_energy(F* out, const F* x, std::size_t n) {
  gelu(out, x, n);
  F s = 0;
  for (std::size_t i = 0; i < n; i++) s += out[i] * out[i];
  return s;
}

class Templates : public ::testing::Test {
 protected:
  void SetUp() override { omp_set_num_threads(3); }
};

TEST_F(Templates, parallel_simd_double) {
  auto g = adjoint::gradient(gelu<double>);
  check("gelu<double>", g, gelu<double>, Out<double>{41}, In<double>{41, -3, 3}, Fixed<std::size_t>{41});
}
TEST_F(Templates, parallel_simd_float) {
  auto g = adjoint::gradient(gelu<float>);
  check("gelu<float>", g, gelu<float>, Out<float>{41}, In<float>{41, -3, 3}, Fixed<std::size_t>{41});
}
TEST_F(Templates, shared_elements_stay_atomic) {
  auto g = adjoint::gradient(neighbours<double>);
  check("neighbours<double>", g, neighbours<double>, Out<double>{23}, In<double>{24}, 23);
}
TEST_F(Templates, explicit_arguments) {
  auto g = adjoint::gradient(weighted_sum<double>);
  check("weighted_sum<double>", g, weighted_sum<double>, In<double>{6, -0.5, 0.5}, 6);
}
TEST_F(Templates, template_calls_template) {
  auto gd = adjoint::gradient(gelu_energy<double>);
  check("gelu_energy<double>", gd, gelu_energy<double>, Out<double>{17}, In<double>{17}, Fixed<std::size_t>{17});
  auto gf = adjoint::gradient(gelu_energy<float>);
  check("gelu_energy<float>", gf, gelu_energy<float>, Out<float>{17}, In<float>{17}, Fixed<std::size_t>{17});
}

// Non-type template arguments: specializations with the same parameter types, called and requested.
template <int N>
double power(double x) {
  double r = 1;
  for (int i = 0; i < N; i++) r *= x;
  return r;
}
template <int K>
double shifted(double x) {
  return power<K>(x) + K * x;
}
double powers(double x) { return power<3>(x) + power<2>(x) * shifted<-1>(x); }
TEST_F(Templates, non_type_arguments) {
  check("powers", adjoint::gradient(powers), powers, Scalar<double>{});
  check("power<3>", adjoint::gradient(power<3>), power<3>, Scalar<double>{});
  check("power<2>", adjoint::gradient(power<2>), power<2>, Scalar<double>{});
}
