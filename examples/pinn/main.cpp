// pinn: trains the physics-informed network of pinn.hpp with Adam and reports its error against
// the exact solution (docs/pinn.md).
//
//   pinn [--steps N] [--width W] [--interior N] [--boundary N] [--boundary-weight L] [--lr RATE]
//        [--seed S] [--out DIR]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include <adjoint/gemm.hpp>

#include "pinn.hpp"

namespace {

struct Settings {
  int steps = 3000, width = 64, interior = 400, boundary = 160;
  double lr = 2e-3, boundary_weight = 100;
  unsigned seed = 1;
  std::string out;
};

// Reads `text` as a number in [low, high] into `value`; false when it is not one.
template <class T>
bool read_number(const char* text, double low, double high, T& value) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v) || v < low || v > high) return false;
  value = T(v);
  return true;
}

// The settings the command line gives; false (reported) on a bad flag.
bool parse(int argc, char** argv, Settings& s) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    bool ok = value != nullptr;
    if (flag == "--out" && ok) s.out = value;
    else if (flag == "--steps" && ok) ok = read_number(value, 0, 1e7, s.steps);
    else if (flag == "--width" && ok) ok = read_number(value, 1, pinn::kMaxWidth, s.width);
    else if (flag == "--interior" && ok) ok = read_number(value, 1, 1e6, s.interior);
    else if (flag == "--boundary" && ok) ok = read_number(value, 1, 1e6, s.boundary);
    else if (flag == "--lr" && ok) ok = read_number(value, 1e-8, 1, s.lr);
    else if (flag == "--boundary-weight" && ok) ok = read_number(value, 0, 1e6, s.boundary_weight);
    else if (flag == "--seed" && ok) ok = read_number(value, 0, 4e9, s.seed);
    else {
      std::fprintf(stderr, "pinn: error: unknown flag or missing value '%s'\n", flag.c_str());
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "pinn: error: bad value '%s' for %s\n", value, flag.c_str());
      return false;
    }
    ++i;
  }
  return true;
}

// Uniform interior points and points spread evenly over the four edges, as (x, y) pairs.
void collocation_points(const Settings& s, std::vector<double>& interior, std::vector<double>& boundary) {
  std::mt19937 rng(s.seed + 1);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int p = 0; p < s.interior; ++p) interior.insert(interior.end(), {unit(rng), unit(rng)});
  for (int p = 0; p < s.boundary; ++p) {
    const double t = (p / 4 + 0.5) / ((s.boundary + 3) / 4);
    const double xy[4][2] = {{t, 0}, {1, t}, {1 - t, 1}, {0, 1 - t}};
    boundary.insert(boundary.end(), {xy[p % 4][0], xy[p % 4][1]});
  }
}

// The relative L2 error of the network against the exact solution on an n x n grid of the square;
// writes x, y, u, exact per line to `csv` when given.
double relative_error(const std::vector<double>& w, int width, int n, std::ofstream* csv) {
  double diff = 0, norm = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double x = double(i) / (n - 1), y = double(j) / (n - 1);
      const double u = pinn::network(w.data(), width, x, y), e = pinn::exact(x, y);
      diff += (u - e) * (u - e);
      norm += e * e;
      if (csv) *csv << x << "," << y << "," << u << "," << e << "\n";
    }
  return std::sqrt(diff / norm);
}

// The CPU time of the process (all its threads) in seconds: on a shared machine, what a step costs
// whatever else runs.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// The median of `v` (reordered).
double median(std::vector<double>& v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Adam (β1 = 0.9, β2 = 0.999) with the rate decayed by a cosine to a tenth over the run.
struct Adam {
  std::vector<double> m, v;
  int t = 0;
  void step(std::vector<double>& w, const std::vector<double>& g, double lr) {
    if (m.empty()) m.assign(w.size(), 0), v.assign(w.size(), 0);
    ++t;
    const double c1 = 1 - std::pow(0.9, t), c2 = 1 - std::pow(0.999, t);
    for (size_t i = 0; i < w.size(); ++i) {
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
      w[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + 1e-8);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  if (!parse(argc, argv, s)) return 2;
  // The output folder is made before training, so a bad path fails in seconds, not after it.
  std::error_code made;
  if (!s.out.empty() && (std::filesystem::create_directories(s.out, made), made)) {
    std::fprintf(stderr, "pinn: error: cannot create '%s': %s\n", s.out.c_str(), made.message().c_str());
    return 1;
  }
  std::vector<double> interior, boundary;
  collocation_points(s, interior, boundary);
  std::vector<double> w = pinn::initial_weights(s.width, s.seed), grad(w.size());
  std::printf("pinn: -Δu = 2π² sin(πx) sin(πy) on the unit square; MLP 2-%d-%d-%d-1 tanh (%zu weights), "
              "%d interior and %d boundary points, Adam lr %g, %d steps; GEMM kernel %s\n",
              s.width, s.width, s.width, w.size(), s.interior, s.boundary, s.lr, s.steps,
              adjoint::gemm_info().kernel.c_str());
  Adam adam;
  std::vector<double> step_seconds, step_cpu_seconds;
  const auto start = std::chrono::steady_clock::now();
  for (int step = 1; step <= s.steps; ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    const double cpu_start = process_cpu_seconds();
    std::fill(grad.begin(), grad.end(), 0.0);
    const double l = pinn::loss_and_gradient(w.data(), s.width, interior.data(), s.interior, boundary.data(),
                                             s.boundary, s.boundary_weight, grad.data());
    if (!std::isfinite(l)) {
      std::fprintf(stderr, "pinn: error: the loss is %g at step %d; lower --lr\n", l, step);
      return 1;
    }
    const double lr = s.lr * (0.55 + 0.45 * std::cos(std::numbers::pi * (step - 1) / std::max(1, s.steps)));
    adam.step(w, grad, lr);
    step_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count());
    step_cpu_seconds.push_back(process_cpu_seconds() - cpu_start);
    if (step == 1 || step % 100 == 0 || step == s.steps) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("step %5d  loss %.4e  rel L2 error %.3e  %.1f s\n", step, l, relative_error(w, s.width, 41, nullptr),
                  seconds);
      std::fflush(stdout);
    }
  }
  if (!step_seconds.empty())
    std::printf("median step: %.2f ms, CPU time %.2f ms (loss, gradient and Adam update)\n", 1e3 * median(step_seconds),
                1e3 * median(step_cpu_seconds));
  std::ofstream csv;
  if (!s.out.empty()) {
    csv.open(s.out + "/solution.csv");
    if (!csv) {
      std::fprintf(stderr, "pinn: error: cannot write '%s/solution.csv'\n", s.out.c_str());
      return 1;
    }
    csv << "x,y,u,exact\n";
  }
  const double error = relative_error(w, s.width, 101, s.out.empty() ? nullptr : &csv);
  std::printf("relative L2 error on a 101x101 grid: %.3e\n", error);
  if (!s.out.empty())
    std::printf("wrote %s/solution.csv (plot: examples/pinn/plot.py %s)\n", s.out.c_str(), s.out.c_str());
  return 0;
}
