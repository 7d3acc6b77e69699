// Corpus: structs and classes passed by pointer, reference or value, with scalar, array and
// pointer members (a model's parameter struct); the adjoint is a struct of the same type.
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

struct Affine {
  double w[3];
  double b;
};
struct Params {
  const double* wte;  // pointer members: the adjoint struct points at adjoint arrays
  double* scratch;
  double scale;
  int n;
};
class Pair {
 public:
  double first, second;
};

double affine(const Affine* p, const double* x) {
  double s = p->b;
  for (int i = 0; i < 3; i++) s += p->w[i] * x[i];
  return s * s;
}
double affine_ref(const Affine& p, double x) { return p.w[0] * x + p.w[1] * x * x + p.b; }
double params_loss(const Params* p, const double* x) {
  for (int i = 0; i < p->n; i++) p->scratch[i] = p->wte[i] * x[i] * p->scale;
  double s = 0;
  for (int i = 0; i < p->n; i++) s += p->scratch[i] * p->scratch[i];
  return s;
}
double pair_value(Pair q, double x) { return q.first * x + q.second * q.second; }
void write_struct(Affine* out, double x) {
  for (int i = 0; i < 3; i++) out->w[i] = x * (i + 1);
  out->b = x * x;
}

// Finite differences of a scalar function of one double by central differences.
template <class F>
double fd(F f, double& x) {
  double saved = x, h = 1e-6;
  x = saved + h;
  double up = f();
  x = saved - h;
  double down = f();
  x = saved;
  return (up - down) / (2 * h);
}
constexpr double kTol = 1e-6;

TEST(Structs, pointer) {
  Affine p{{0.3, -0.2, 0.5}, 0.1}, dp{};
  double x[3] = {0.4, 0.7, -0.3}, dx[3] = {};
  auto g = adjoint::gradient(affine);
  g.execute(&p, x, &dp, dx);
  for (int i = 0; i < 3; i++) {
    EXPECT_NEAR(dp.w[i], fd([&] { return affine(&p, x); }, p.w[i]), kTol);
    EXPECT_NEAR(dx[i], fd([&] { return affine(&p, x); }, x[i]), kTol);
  }
  EXPECT_NEAR(dp.b, fd([&] { return affine(&p, x); }, p.b), kTol);
}
TEST(Structs, reference) {
  Affine p{{0.3, -0.2, 0.5}, 0.1}, dp{};
  double x = 0.8, dx = 0;
  auto g = adjoint::gradient(affine_ref);
  g.execute(p, x, &dp, &dx);
  EXPECT_NEAR(dp.w[0], fd([&] { return affine_ref(p, x); }, p.w[0]), kTol);
  EXPECT_NEAR(dp.w[1], fd([&] { return affine_ref(p, x); }, p.w[1]), kTol);
  EXPECT_NEAR(dp.w[2], 0.0, kTol);
  EXPECT_NEAR(dp.b, 1.0, kTol);
  EXPECT_NEAR(dx, fd([&] { return affine_ref(p, x); }, x), kTol);
}
TEST(Structs, pointer_members) {
  std::vector<double> wte = {0.5, -0.4, 0.9, 0.2}, scratch(4), x = {0.1, 0.6, -0.7, 0.3};
  std::vector<double> d_wte(4), d_scratch(4), dx(4);
  Params p{wte.data(), scratch.data(), 1.5, 4}, dp{d_wte.data(), d_scratch.data(), 0, 0};
  auto g = adjoint::gradient(params_loss);
  g.execute(&p, x.data(), &dp, dx.data());
  for (int i = 0; i < 4; i++) {
    EXPECT_NEAR(d_wte[i], fd([&] { return params_loss(&p, x.data()); }, wte[i]), kTol);
    EXPECT_NEAR(dx[i], fd([&] { return params_loss(&p, x.data()); }, x[i]), kTol);
  }
  EXPECT_NEAR(dp.scale, fd([&] { return params_loss(&p, x.data()); }, p.scale), kTol);
}
TEST(Structs, by_value_class) {
  Pair q{0.7, -0.3}, dq{};
  double x = 1.3, dx = 0;
  auto g = adjoint::gradient(pair_value);
  g.execute(q, x, &dq, &dx);
  EXPECT_NEAR(dq.first, x, kTol);
  EXPECT_NEAR(dq.second, 2 * q.second, kTol);
  EXPECT_NEAR(dx, q.first, kTol);
}
TEST(Structs, output_struct) {
  Affine out{}, dout{{1.0, 2.0, 3.0}, 4.0};
  double x = 0.6, dx = 0;
  auto g = adjoint::gradient(write_struct);
  g.execute(&out, x, &dout, &dx);
  EXPECT_NEAR(dx, 1.0 * 1 + 2.0 * 2 + 3.0 * 3 + 4.0 * 2 * x, kTol);
  EXPECT_EQ(dout.b, 0.0);  // consumed
}
