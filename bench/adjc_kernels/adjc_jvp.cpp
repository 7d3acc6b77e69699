// adjc_jvp: forward mode of the engine's row kernels (GELU, softmax, RMSNorm, layernorm, RoPE as
// plain double loops) against hand-written Jacobian-vector products of the same kernels, and
// Hessian-vector products of a scalar of each row against hand-written ones. adjc's JVP is the
// vector-mode pushforward a Jacobian request generates (`f_pushforward..._v4`, four directions per
// sweep, called by name as docs/adjc.md "Generated names" allows); the hand-written side pushes the
// same four directions through loops of its own. Both compute the values too. adjc's HVP is
// `adjoint::hessian_vector` (reverse over forward); the hand-written HVPs are the closed forms
// below. The tables: medians over repetitions (the two sides interleaved), and the ratio
// adjc / hand-written.
#include <adjoint/ad.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <time.h>
#include <vector>

using Lanes = adjoint::tangent_vector<double, 4>;

// ---------------------------------------------------------------------------------------------
// Kernels (what adjc differentiates), one row of n

void gelu(const double* x, double* y, int n) {
  for (int i = 0; i < n; i++) {
    double u = 0.7978845608 * (x[i] + 0.044715 * x[i] * x[i] * x[i]);
    y[i] = 0.5 * x[i] * (1 + std::tanh(u));
  }
}

void softmax(const double* x, double* y, int n) {
  double top = x[0];
  for (int i = 1; i < n; i++) top = std::fmax(top, x[i]);
  double sum = 0;
  for (int i = 0; i < n; i++) {
    y[i] = std::exp(x[i] - top);
    sum += y[i];
  }
  double inv = 1 / sum;
  for (int i = 0; i < n; i++) y[i] *= inv;
}

void rmsnorm(const double* x, const double* w, double* y, int n) {
  double ms = 0;
  for (int i = 0; i < n; i++) ms += x[i] * x[i];
  double r = 1 / std::sqrt(ms / n + 1e-5);
  for (int i = 0; i < n; i++) y[i] = x[i] * r * w[i];
}

void layernorm(const double* x, const double* w, const double* b, double* y, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m += x[i];
  m /= n;
  double v = 0;
  for (int i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
  double s = 1 / std::sqrt(v / n + 1e-5);
  for (int i = 0; i < n; i++) y[i] = (x[i] - m) * s * w[i] + b[i];
}

// Pairs (x[2i], x[2i+1]) rotated by pos * theta_i.
void rope(const double* x, double* y, int n, int pos) {
  for (int i = 0; i < n / 2; i++) {
    double angle = pos * std::pow(10000.0, -2.0 * i / n);
    double c = std::cos(angle), s = std::sin(angle);
    y[2 * i] = x[2 * i] * c - x[2 * i + 1] * s;
    y[2 * i + 1] = x[2 * i] * s + x[2 * i + 1] * c;
  }
}

// The generated pushforwards (their names: docs/adjc.md, "Vector forward mode").
inline void gelu_pushforward_v4(const double* x, double* y, int n, Lanes* _d_x, Lanes* _d_y);
inline void softmax_pushforward_v4(const double* x, double* y, int n, Lanes* _d_x, Lanes* _d_y);
inline void rmsnorm_pushforward_1010_v4(const double* x, const double* w, double* y, int n, Lanes* _d_x, Lanes* _d_w,
                                        Lanes* _d_y);
inline void layernorm_pushforward_10010_v4(const double* x, const double* w, const double* b, double* y, int n,
                                           Lanes* _d_x, Lanes* _d_w, Lanes* _d_b, Lanes* _d_y);
inline void rope_pushforward_v4(const double* x, double* y, int n, int pos, Lanes* _d_x, Lanes* _d_y);

// ---------------------------------------------------------------------------------------------
// Hand-written JVPs: values and four tangents

void gelu_jvp(const double* x, double* y, int n, const Lanes* dx, Lanes* dy) {
  for (int i = 0; i < n; i++) {
    double u = 0.7978845608 * (x[i] + 0.044715 * x[i] * x[i] * x[i]);
    double t = std::tanh(u);
    y[i] = 0.5 * x[i] * (1 + t);
    double g = 0.5 * (1 + t) + 0.5 * x[i] * (1 - t * t) * 0.7978845608 * (1 + 3 * 0.044715 * x[i] * x[i]);
    for (int l = 0; l < 4; l++) dy[i][l] = g * dx[i][l];
  }
}

void softmax_jvp(const double* x, double* y, int n, const Lanes* dx, Lanes* dy) {
  double top = x[0];
  for (int i = 1; i < n; i++) top = std::fmax(top, x[i]);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += (y[i] = std::exp(x[i] - top));
  for (int i = 0; i < n; i++) y[i] /= sum;
  double dot[4] = {};
  for (int i = 0; i < n; i++)
    for (int l = 0; l < 4; l++) dot[l] += y[i] * dx[i][l];
  for (int i = 0; i < n; i++)
    for (int l = 0; l < 4; l++) dy[i][l] = y[i] * (dx[i][l] - dot[l]);
}

void rmsnorm_jvp(const double* x, const double* w, double* y, int n, const Lanes* dx, Lanes* dy) {
  double ms = 0, dms[4] = {};
  for (int i = 0; i < n; i++) {
    ms += x[i] * x[i];
    for (int l = 0; l < 4; l++) dms[l] += 2 * x[i] * dx[i][l];
  }
  double r = 1 / std::sqrt(ms / n + 1e-5), dr[4];
  for (int l = 0; l < 4; l++) dr[l] = -0.5 * r * r * r * dms[l] / n;
  for (int i = 0; i < n; i++) {
    y[i] = x[i] * r * w[i];
    for (int l = 0; l < 4; l++) dy[i][l] = (dx[i][l] * r + x[i] * dr[l]) * w[i];
  }
}

void layernorm_jvp(const double* x, const double* w, const double* b, double* y, int n, const Lanes* dx, Lanes* dy) {
  double m = 0, dm[4] = {};
  for (int i = 0; i < n; i++) {
    m += x[i];
    for (int l = 0; l < 4; l++) dm[l] += dx[i][l];
  }
  m /= n;
  for (int l = 0; l < 4; l++) dm[l] /= n;
  double v = 0, dv[4] = {};
  for (int i = 0; i < n; i++) {
    v += (x[i] - m) * (x[i] - m);
    for (int l = 0; l < 4; l++) dv[l] += 2 * (x[i] - m) * (dx[i][l] - dm[l]);
  }
  double s = 1 / std::sqrt(v / n + 1e-5), ds[4];
  for (int l = 0; l < 4; l++) ds[l] = -0.5 * s * s * s * dv[l] / n;
  for (int i = 0; i < n; i++) {
    y[i] = (x[i] - m) * s * w[i] + b[i];
    for (int l = 0; l < 4; l++) dy[i][l] = ((dx[i][l] - dm[l]) * s + (x[i] - m) * ds[l]) * w[i];
  }
}

void rope_jvp(const double* x, double* y, int n, int pos, const Lanes* dx, Lanes* dy) {
  for (int i = 0; i < n / 2; i++) {
    double angle = pos * std::pow(10000.0, -2.0 * i / n);
    double c = std::cos(angle), s = std::sin(angle);
    y[2 * i] = x[2 * i] * c - x[2 * i + 1] * s;
    y[2 * i + 1] = x[2 * i] * s + x[2 * i + 1] * c;
    for (int l = 0; l < 4; l++) {
      dy[2 * i][l] = dx[2 * i][l] * c - dx[2 * i + 1][l] * s;
      dy[2 * i + 1][l] = dx[2 * i][l] * s + dx[2 * i + 1][l] * c;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hessian-vector products of f(x) = Σ_i c_i y_i, y the kernel's row (n ≤ kRow; forward mode
// wants the row local: a parameter's tangent memory would be the caller's). RoPE is linear, so its
// f has a zero Hessian and no row here.

constexpr int kRow = 4096;

double gelu_objective(const double* x, const double* c, int n) {
  double y[kRow];
  gelu(x, y, n);
  double f = 0;
  for (int i = 0; i < n; i++) f += c[i] * y[i];
  return f;
}

double softmax_objective(const double* x, const double* c, int n) {
  double y[kRow];
  softmax(x, y, n);
  double f = 0;
  for (int i = 0; i < n; i++) f += c[i] * y[i];
  return f;
}

double rmsnorm_objective(const double* x, const double* w, const double* c, int n) {
  double y[kRow];
  rmsnorm(x, w, y, n);
  double f = 0;
  for (int i = 0; i < n; i++) f += c[i] * y[i];
  return f;
}

double layernorm_objective(const double* x, const double* w, const double* b, const double* c, int n) {
  double y[kRow];
  layernorm(x, w, b, y, n);
  double f = 0;
  for (int i = 0; i < n; i++) f += c[i] * y[i];
  return f;
}

// H is diagonal: c_i gelu''(x_i), with u = a(x + b x³), t = tanh(u):
// gelu'' = (1 - t²)(u' - x t u'² + x u''/2).
void gelu_hvp(const double* x, const double* c, int n, const double* v, double* hv) {
  const double a = 0.7978845608, b = 0.044715;
  for (int i = 0; i < n; i++) {
    double u = a * (x[i] + b * x[i] * x[i] * x[i]), t = std::tanh(u);
    double du = a * (1 + 3 * b * x[i] * x[i]), ddu = 6 * a * b * x[i];
    hv[i] += c[i] * (1 - t * t) * (du - x[i] * t * du * du + 0.5 * x[i] * ddu) * v[i];
  }
}

// ∇f = y ⊙ (c - s), s = c·y; along v: dy = y ⊙ (v - y·v), ds = c·dy, H·v = dy ⊙ (c - s) - y ds.
void softmax_hvp(const double* x, const double* c, double* y, int n, const double* v, double* hv) {
  double top = x[0];
  for (int i = 1; i < n; i++) top = std::fmax(top, x[i]);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += (y[i] = std::exp(x[i] - top));
  double s = 0, yv = 0;
  for (int i = 0; i < n; i++) {
    y[i] /= sum;
    s += c[i] * y[i];
    yv += y[i] * v[i];
  }
  double ds = 0;
  for (int i = 0; i < n; i++) ds += c[i] * y[i] * (v[i] - yv);
  for (int i = 0; i < n; i++) hv[i] += y[i] * (v[i] - yv) * (c[i] - s) - y[i] * ds;
}

// f = r (a·x), a = c ⊙ w, r = (x·x/n + eps)^(-1/2): ∇f = r a - (p r³/n) x with p = a·x; along v,
// dr = -r³ (x·v)/n and dp = a·v.
void rmsnorm_hvp(const double* x, const double* w, const double* c, int n, const double* v, double* hv) {
  double xx = 0, p = 0, xv = 0, dp = 0;
  for (int i = 0; i < n; i++) {
    xx += x[i] * x[i];
    p += c[i] * w[i] * x[i];
    xv += x[i] * v[i];
    dp += c[i] * w[i] * v[i];
  }
  const double r = 1 / std::sqrt(xx / n + 1e-5), r3 = r * r * r, dr = -r3 * xv / n;
  const double k = (dp * r3 + 3 * p * r * r * dr) / n, l = p * r3 / n;
  for (int i = 0; i < n; i++) hv[i] += dr * c[i] * w[i] - k * x[i] - l * v[i];
}

// With centred x̃ = x - mean(x), ã = a - mean(a) (a = c ⊙ w) and r = (x̃·x̃/n + eps)^(-1/2):
// f = r (ã·x) + c·b, and the same form as RMSNorm's with x̃, ã and the centred v.
void layernorm_hvp(const double* x, const double* w, const double* c, int n, const double* v, double* hv) {
  double mx = 0, mv = 0, ma = 0;
  for (int i = 0; i < n; i++) {
    mx += x[i];
    mv += v[i];
    ma += c[i] * w[i];
  }
  mx /= n, mv /= n, ma /= n;
  double xx = 0, p = 0, xv = 0, dp = 0;
  for (int i = 0; i < n; i++) {
    const double xc = x[i] - mx, ac = c[i] * w[i] - ma;
    xx += xc * xc;
    p += ac * xc;
    xv += xc * v[i];
    dp += ac * v[i];
  }
  const double r = 1 / std::sqrt(xx / n + 1e-5), r3 = r * r * r, dr = -r3 * xv / n;
  const double k = (dp * r3 + 3 * p * r * r * dr) / n, l = p * r3 / n;
  for (int i = 0; i < n; i++) hv[i] += dr * (c[i] * w[i] - ma) - k * (x[i] - mx) - l * (v[i] - mv);
}

// ---------------------------------------------------------------------------------------------

namespace {

// The calling thread's CPU time: on a shared machine, wall time also counts other processes' turns,
// which land more often in a side's longer rounds and swing its ratio tenfold.
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double seconds(const std::function<void()>& f, int reps) {
  const double start = thread_seconds();
  for (int r = 0; r < reps; r++) f();
  return (thread_seconds() - start) / reps;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double largest_difference(const std::vector<Lanes>& a, const std::vector<Lanes>& h) {
  double err = 0;
  for (std::size_t i = 0; i < a.size(); i++)
    for (int l = 0; l < 4; l++) err = std::fmax(err, std::fabs(a[i][l] - h[i][l]) / std::fmax(1.0, std::fabs(h[i][l])));
  return err;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& h) {
  double err = 0;
  for (std::size_t i = 0; i < a.size(); i++)
    err = std::fmax(err, std::fabs(a[i] - h[i]) / std::fmax(1.0, std::fabs(h[i])));
  return err;
}

// Runs both sides 15 times, interleaved; prints the medians, the ratio, and how far apart the two
// results are (relative to max(1, |value|)).
template <class T>
void row(const char* name, const std::function<void(std::vector<T>&)>& adjc,
         const std::function<void(std::vector<T>&)>& hand, int n, int reps) {
  std::vector<T> a(n), h(n);
  adjc(a);
  hand(h);
  const double err = largest_difference(a, h);
  std::vector<double> ta, th;
  for (int round = 0; round < 15; round++) {
    ta.push_back(seconds([&] { adjc(a); }, reps));
    th.push_back(seconds([&] { hand(h); }, reps));
  }
  const double ma = median(ta), mh = median(th);
  std::printf("%-10s %8d %12.2f %12.2f %8.2f %10.1e\n", name, n, ma * 1e6, mh * 1e6, ma / mh, err);
}

}  // namespace

int main() {
  const int n = kRow, reps = 200, pos = 7;
  std::mt19937 rng(1);
  std::normal_distribution<double> normal;
  std::vector<double> x(n), w(n), b(n), y(n);
  std::vector<Lanes> dx(n);
  for (int i = 0; i < n; i++) {
    x[i] = normal(rng);
    w[i] = 1 + 0.1 * normal(rng);
    b[i] = 0.1 * normal(rng);
    for (int l = 0; l < 4; l++) dx[i][l] = normal(rng);
  }
  // The requests that make adjc generate the pushforwards (and a check that they run).
  adjoint::matrix<double> J(4, 4);
  adjoint::jacobian(gelu, "x").execute(x.data(), y.data(), 4, J);
  adjoint::jacobian(softmax, "x").execute(x.data(), y.data(), 4, J);
  adjoint::jacobian(rmsnorm, "x").execute(x.data(), w.data(), y.data(), 4, J);
  adjoint::jacobian(layernorm, "x").execute(x.data(), w.data(), b.data(), y.data(), 4, J);
  adjoint::jacobian(rope, "x").execute(x.data(), y.data(), 4, pos, J);

  std::printf(
      "forward mode (4 directions) of one row, double, single thread: medians of thread CPU time in microseconds\n");
  std::printf("%-10s %8s %12s %12s %8s %10s\n", "kernel", "n", "adjc", "hand", "ratio", "max diff");
  auto fill = [&](std::vector<Lanes>& d) { std::fill(d.begin(), d.end(), Lanes{}); };
  row<Lanes>(
      "gelu", [&](std::vector<Lanes>& d) { gelu_pushforward_v4(x.data(), y.data(), n, dx.data(), d.data()); },
      [&](std::vector<Lanes>& d) { gelu_jvp(x.data(), y.data(), n, dx.data(), d.data()); }, n, reps);
  row<Lanes>(
      "softmax", [&](std::vector<Lanes>& d) { softmax_pushforward_v4(x.data(), y.data(), n, dx.data(), d.data()); },
      [&](std::vector<Lanes>& d) { softmax_jvp(x.data(), y.data(), n, dx.data(), d.data()); }, n, reps);
  row<Lanes>(
      "rmsnorm",
      [&](std::vector<Lanes>& d) {
        rmsnorm_pushforward_1010_v4(x.data(), w.data(), y.data(), n, dx.data(), nullptr, d.data());
      },
      [&](std::vector<Lanes>& d) { rmsnorm_jvp(x.data(), w.data(), y.data(), n, dx.data(), d.data()); }, n, reps);
  row<Lanes>(
      "layernorm",
      [&](std::vector<Lanes>& d) {
        layernorm_pushforward_10010_v4(x.data(), w.data(), b.data(), y.data(), n, dx.data(), nullptr, nullptr,
                                       d.data());
      },
      [&](std::vector<Lanes>& d) { layernorm_jvp(x.data(), w.data(), b.data(), y.data(), n, dx.data(), d.data()); }, n,
      reps);
  row<Lanes>(
      "rope",
      [&](std::vector<Lanes>& d) {
        fill(d);
        rope_pushforward_v4(x.data(), y.data(), n, pos, dx.data(), d.data());
      },
      [&](std::vector<Lanes>& d) {
        fill(d);
        rope_jvp(x.data(), y.data(), n, pos, dx.data(), d.data());
      },
      n, reps);

  // Hessian-vector products.
  std::vector<double> c(n), v(n);
  for (int i = 0; i < n; i++) c[i] = normal(rng), v[i] = normal(rng);
  auto gelu_hv = adjoint::hessian_vector(gelu_objective, "x");
  auto softmax_hv = adjoint::hessian_vector(softmax_objective, "x");
  auto rmsnorm_hv = adjoint::hessian_vector(rmsnorm_objective, "x");
  auto layernorm_hv = adjoint::hessian_vector(layernorm_objective, "x");
  std::printf("\nHessian-vector products of f = c·kernel(x), one row, double, single thread: medians of thread CPU "
              "time in microseconds\n");
  std::printf("%-10s %8s %12s %12s %8s %10s\n", "kernel", "n", "adjc", "hand", "ratio", "max diff");
  // Both sides add H·v into hv (hessian_vector's contract), so each run starts from zero.
  using AddHv = std::function<void(double*)>;
  auto from_zero = [](AddHv add) {
    return std::function<void(std::vector<double>&)>([add](std::vector<double>& hv) {
      std::fill(hv.begin(), hv.end(), 0.0);
      add(hv.data());
    });
  };
  auto hvp_row = [&](const char* name, AddHv adjc, AddHv hand) {
    row<double>(name, from_zero(std::move(adjc)), from_zero(std::move(hand)), n, reps);
  };
  hvp_row(
      "gelu", [&](double* hv) { gelu_hv.execute(x.data(), c.data(), n, v.data(), hv); },
      [&](double* hv) { gelu_hvp(x.data(), c.data(), n, v.data(), hv); });
  hvp_row(
      "softmax", [&](double* hv) { softmax_hv.execute(x.data(), c.data(), n, v.data(), hv); },
      [&](double* hv) { softmax_hvp(x.data(), c.data(), y.data(), n, v.data(), hv); });
  hvp_row(
      "rmsnorm", [&](double* hv) { rmsnorm_hv.execute(x.data(), w.data(), c.data(), n, v.data(), hv); },
      [&](double* hv) { rmsnorm_hvp(x.data(), w.data(), c.data(), n, v.data(), hv); });
  hvp_row(
      "layernorm", [&](double* hv) { layernorm_hv.execute(x.data(), w.data(), b.data(), c.data(), n, v.data(), hv); },
      [&](double* hv) { layernorm_hvp(x.data(), w.data(), c.data(), n, v.data(), hv); });
  return 0;
}
