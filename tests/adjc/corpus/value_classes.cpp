// Corpus: a value class (a handle to doubles, like adjoint::Tensor) whose operations have custom
// pullbacks, and user code built on it: free functions, a loop re-assigning a handle, member
// functions and operators of modules, and a model struct of modules with a pointer to an array
// of blocks. Every gradient is checked against central differences at several random points.
#include <adjoint/ad.hpp>

#include <cmath>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace vt {

// A handle to n doubles in the test's arena; copying it copies the handle, not the data.
struct Vec {
  double* data = nullptr;
  int n = 0;
  bool empty() const { return data == nullptr; }
  Vec shifted(int k = 1) const;           // rotation by k: custom pullback (class_functions)
  double dot(const Vec& other) const;     // custom pullback (class_functions)
  double operator[](int i) const { return data[i]; }  // custom pullback (class_functions)
};
static_assert(std::is_trivially_copyable_v<Vec>, "handles go on the tape");

inline std::vector<std::unique_ptr<double[]>>& arena() {
  static std::vector<std::unique_ptr<double[]>> blocks;
  return blocks;
}
inline Vec make(int n) {
  arena().push_back(std::make_unique<double[]>(n));
  return Vec{arena().back().get(), n};
}

// What makes Vec a differentiable value class for adjc: adds `from` into `into`, giving an empty
// `into` storage of its own first (never aliasing `from`).
inline void accumulate_adjoint(Vec& into, const Vec& from) {
  if (from.empty()) return;
  if (into.empty()) into = make(from.n);
  for (int i = 0; i < from.n; i++) into.data[i] += from.data[i];
}

// shapes: a, b, result (n)
inline Vec operator+(const Vec& a, const Vec& b) {
  Vec r = make(a.n);
  for (int i = 0; i < a.n; i++) r.data[i] = a.data[i] + b.data[i];
  return r;
}
inline Vec operator*(const Vec& a, const Vec& b) {
  Vec r = make(a.n);
  for (int i = 0; i < a.n; i++) r.data[i] = a.data[i] * b.data[i];
  return r;
}
inline Vec operator-(const Vec& a) {
  Vec r = make(a.n);
  for (int i = 0; i < a.n; i++) r.data[i] = -a.data[i];
  return r;
}
inline Vec tanh_v(const Vec& a) {
  Vec r = make(a.n);
  for (int i = 0; i < a.n; i++) r.data[i] = std::tanh(a.data[i]);
  return r;
}
inline Vec scale(const Vec& a, double s) {
  Vec r = make(a.n);
  for (int i = 0; i < a.n; i++) r.data[i] = a.data[i] * s;
  return r;
}
// An empty bias (Vec{}) adds nothing, as a Tensor op would treat it.
inline Vec add_bias(const Vec& x, const Vec& b) {
  Vec r = make(x.n);
  for (int i = 0; i < x.n; i++) r.data[i] = x.data[i] + (b.empty() ? 0.0 : b.data[i]);
  return r;
}
inline double sum(const Vec& a) {
  double s = 0;
  for (int i = 0; i < a.n; i++) s += a.data[i];
  return s;
}
// shapes: w (n*n, row-major), b (n), x (n), result (n) = w x + b
inline Vec linear(const Vec& w, const Vec& b, const Vec& x) {
  Vec r = make(b.n);
  for (int i = 0; i < b.n; i++) {
    r.data[i] = b.data[i];
    for (int j = 0; j < x.n; j++) r.data[i] += w.data[i * x.n + j] * x.data[j];
  }
  return r;
}
inline Vec Vec::shifted(int k) const {
  Vec r = make(n);
  for (int i = 0; i < n; i++) r.data[(i + k) % n] = data[i];
  return r;
}
inline double Vec::dot(const Vec& other) const {
  double s = 0;
  for (int i = 0; i < n; i++) s += data[i] * other.data[i];
  return s;
}

// A user-defined operator adjc differentiates (generated operator_minus_pullback).
inline Vec operator-(const Vec& a, const Vec& b) { return a + (-b); }

// Modules.
struct Linear {
  Vec weight, bias;
  Vec forward(const Vec& x) const { return linear(weight, bias, x); }
};
struct Scale {
  double s;
  Vec apply(const Vec& x) const { return vt::scale(x, s); }  // custom pullback (class_functions)
};
struct MLP {
  Linear fc, proj;
  Vec operator()(const Vec& x) const {
    Vec h = tanh_v(fc.forward(x));
    return proj.forward(h);
  }
};
struct Block {
  Linear ln;
  MLP mlp;
  Scale gate;
  Vec forward(const Vec& x) const {
    Vec y = mlp(ln.forward(x));
    return x + gate.apply(y);
  }
};
struct Model {
  Vec wte;
  Block* h;
  int n_layer;
  Vec head;
};

}  // namespace vt

namespace adjoint::custom_derivatives {
using vt::Vec;
inline void operator_plus_pullback(const Vec&, const Vec&, Vec d_result, Vec* d_a, Vec* d_b) {
  if (d_result.empty()) return;
  if (d_a) accumulate_adjoint(*d_a, d_result);
  if (d_b) accumulate_adjoint(*d_b, d_result);
}
inline void operator_star_pullback(const Vec& a, const Vec& b, Vec d_result, Vec* d_a, Vec* d_b) {
  if (d_result.empty()) return;
  if (d_a) accumulate_adjoint(*d_a, d_result * b);
  if (d_b) accumulate_adjoint(*d_b, d_result * a);
}
inline void operator_minus_pullback(const Vec&, Vec d_result, Vec* d_a) {
  if (!d_result.empty() && d_a) accumulate_adjoint(*d_a, -d_result);
}
inline void tanh_v_pullback(const Vec& a, Vec d_result, Vec* d_a) {
  if (d_result.empty() || !d_a) return;
  Vec g = vt::make(a.n);
  for (int i = 0; i < a.n; i++) {
    double t = std::tanh(a.data[i]);
    g.data[i] = d_result.data[i] * (1 - t * t);
  }
  accumulate_adjoint(*d_a, g);
}
inline void scale_pullback(const Vec& a, double s, Vec d_result, Vec* d_a, double* d_s) {
  if (d_result.empty()) return;
  if (d_a) accumulate_adjoint(*d_a, vt::scale(d_result, s));
  for (int i = 0; i < a.n; i++) *d_s += d_result.data[i] * a.data[i];
}
inline void add_bias_pullback(const Vec&, const Vec& b, Vec d_result, Vec* d_x, Vec* d_b) {
  if (d_result.empty()) return;
  if (d_x) accumulate_adjoint(*d_x, d_result);
  if (d_b && !b.empty()) accumulate_adjoint(*d_b, d_result);
}
inline void sum_pullback(const Vec& a, double d_result, Vec* d_a) {
  if (!d_a) return;
  Vec g = vt::make(a.n);
  for (int i = 0; i < a.n; i++) g.data[i] = d_result;
  accumulate_adjoint(*d_a, g);
}
inline void linear_pullback(const Vec& w, const Vec& b, const Vec& x, Vec d_result, Vec* d_w, Vec* d_b, Vec* d_x) {
  if (d_result.empty()) return;
  Vec gw = vt::make(w.n), gx = vt::make(x.n);
  for (int i = 0; i < b.n; i++)
    for (int j = 0; j < x.n; j++) {
      gw.data[i * x.n + j] = d_result.data[i] * x.data[j];
      gx.data[j] += d_result.data[i] * w.data[i * x.n + j];
    }
  if (d_w) accumulate_adjoint(*d_w, gw);
  if (d_b) accumulate_adjoint(*d_b, d_result);
  if (d_x) accumulate_adjoint(*d_x, gx);
}
namespace class_functions {
inline void shifted_pullback(const Vec* self, int k, Vec d_result, Vec* d_self) {
  if (d_result.empty() || !d_self) return;
  Vec g = vt::make(self->n);
  for (int i = 0; i < self->n; i++) g.data[i] = d_result.data[(i + k) % self->n];
  accumulate_adjoint(*d_self, g);
}
inline void dot_pullback(const Vec* self, const Vec& other, double d_result, Vec* d_self, Vec* d_other) {
  if (d_self) accumulate_adjoint(*d_self, vt::scale(other, d_result));
  if (d_other) accumulate_adjoint(*d_other, vt::scale(*self, d_result));
}
inline void operator_subscript_pullback(const Vec* self, int i, double d_result, Vec* d_self) {
  if (!d_self) return;
  Vec g = vt::make(self->n);
  g.data[i] = d_result;
  accumulate_adjoint(*d_self, g);
}
inline void apply_pullback(const vt::Scale* self, const Vec& x, Vec d_result, vt::Scale* d_self, Vec* d_x) {
  if (d_result.empty()) return;
  if (d_x) accumulate_adjoint(*d_x, vt::scale(d_result, self->s));
  if (d_self)
    for (int i = 0; i < x.n; i++) d_self->s += d_result.data[i] * x.data[i];
}
}  // namespace class_functions
}  // namespace adjoint::custom_derivatives

namespace vt {

// User functions of values: a copy, operators, a user operator, a member call and operator[].
Vec residual(const Vec& x, const Vec& y) {
  Vec s = x + y;
  return s;
}
double elementwise(const Vec& x, Vec y) {
  Vec z = residual(x * y, -x) - tanh_v(y);
  return sum(tanh_v(z)) + x[1] * y[0] + z.shifted().dot(y);
}
// A loop re-assigning a handle: the tape holds the handles, never the elements.
double iterate(const Vec& x, double a, int steps) {
  Vec h = x;
  for (int i = 0; i < steps; i++) h = h + scale(tanh_v(h * x), a);
  return sum(h * h);
}
// Parameters by value re-assigned.
double reassigned_param(Vec x) {
  Vec empty{};
  x = add_bias(x * x, empty);
  return sum(add_bias(x, Vec{}));
}
// GPT-2-shaped: the model by const reference, int inputs, blocks in a pointer array.
double model_loss(const Model& model, const int* idx, int n_idx) {
  Vec x = model.wte.shifted(idx[0]);
  for (int t = 1; t < n_idx; t++) x = x + model.wte.shifted(idx[t]);
  for (int l = 0; l < model.n_layer; l++) x = model.h[l].forward(x);
  return x.dot(model.head) + sum(x * x) * 0.25;
}

}  // namespace vt

namespace {

using vt::Vec;

constexpr double kH = 1e-6, kTol = 1e-6;

Vec random_vec(int n, std::mt19937& rng, double lo = -1, double hi = 1) {
  Vec v = vt::make(n);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int i = 0; i < n; i++) v.data[i] = u(rng);
  return v;
}

// Checks every element of every (value, adjoint) pair against central differences of f.
template <class F>
void check(const char* name, F f, const std::vector<std::pair<double*, double>>& checks) {
  for (auto [x, analytic] : checks) {
    double saved = *x;
    *x = saved + kH;
    double up = f();
    *x = saved - kH;
    double down = f();
    *x = saved;
    double fd = (up - down) / (2 * kH);
    EXPECT_NEAR(analytic, fd, kTol * std::max(1.0, std::fabs(fd))) << name;
  }
}

// (element, its adjoint) for each element of v, with d empty meaning zero adjoints.
void add_pairs(std::vector<std::pair<double*, double>>& out, Vec v, Vec d) {
  for (int i = 0; i < v.n; i++) out.push_back({&v.data[i], d.empty() ? 0.0 : d.data[i]});
}

TEST(ValueClasses, free_functions_operators_members) {
  std::mt19937 rng(11);
  for (int point = 0; point < 3; point++) {
    Vec x = random_vec(4, rng), y = random_vec(4, rng), dx, dy;
    auto g = adjoint::gradient(vt::elementwise);
    g.execute(x, y, &dx, &dy);
    ASSERT_FALSE(dx.empty());
    std::vector<std::pair<double*, double>> pairs;
    add_pairs(pairs, x, dx);
    add_pairs(pairs, y, dy);
    check("elementwise", [&] { return vt::elementwise(x, y); }, pairs);
  }
}

TEST(ValueClasses, loop_reassigns_a_handle) {
  std::mt19937 rng(12);
  for (int point = 0; point < 3; point++) {
    Vec x = random_vec(3, rng), dx;
    double a = std::uniform_real_distribution<double>(-1, 1)(rng), da = 0;
    auto g = adjoint::gradient(vt::iterate, "x, a");
    g.execute(x, a, 4, &dx, &da);
    std::vector<std::pair<double*, double>> pairs;
    add_pairs(pairs, x, dx);
    pairs.push_back({&a, da});
    check("iterate", [&] { return vt::iterate(x, a, 4); }, pairs);
  }
}

TEST(ValueClasses, reassigned_parameter) {
  std::mt19937 rng(13);
  Vec x = random_vec(3, rng), dx;
  auto g = adjoint::gradient(vt::reassigned_param);
  g.execute(x, &dx);
  std::vector<std::pair<double*, double>> pairs;
  add_pairs(pairs, x, dx);
  check("reassigned_param", [&] { return vt::reassigned_param(x); }, pairs);
}

// The model's adjoint has the model's shape: pre-allocated zero tensors or empty handles, and
// `h` pointing at an array of adjoint blocks.
TEST(ValueClasses, model_of_modules) {
  const int n = 3, layers = 2;
  std::mt19937 rng(14);
  for (int point = 0; point < 3; point++) {
    auto linear = [&] { return vt::Linear{random_vec(n * n, rng), random_vec(n, rng)}; };
    std::vector<vt::Block> blocks, d_blocks(layers);
    for (int l = 0; l < layers; l++)
      blocks.push_back({linear(), {linear(), linear()}, {std::uniform_real_distribution<double>(0.5, 1.5)(rng)}});
    d_blocks[0].ln.weight = vt::make(n * n);  // pre-allocated zero tensor: accumulated into
    vt::Model model{random_vec(n, rng), blocks.data(), layers, random_vec(n, rng)};
    vt::Model d_model{{}, d_blocks.data(), 0, {}};
    const int idx[2] = {1, 2};
    auto g = adjoint::gradient(vt::model_loss, "model");
    g.execute(model, idx, 2, &d_model);
    std::vector<std::pair<double*, double>> pairs;
    add_pairs(pairs, model.wte, d_model.wte);
    add_pairs(pairs, model.head, d_model.head);
    for (int l = 0; l < layers; l++) {
      const vt::Block &b = blocks[l], &d = d_blocks[l];
      for (auto [p, dp] : {std::pair{&b.ln, &d.ln}, {&b.mlp.fc, &d.mlp.fc}, {&b.mlp.proj, &d.mlp.proj}}) {
        add_pairs(pairs, p->weight, dp->weight);
        add_pairs(pairs, p->bias, dp->bias);
      }
      pairs.push_back({&blocks[l].gate.s, d.gate.s});
    }
    check("model_loss", [&] { return vt::model_loss(model, idx, 2); }, pairs);
  }
  vt::arena().clear();
}

}  // namespace
