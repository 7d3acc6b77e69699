// The timing and the table adjc_kernels prints, shared by its kernels' rows.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <random>
#include <vector>

// This thread's CPU time: on the shared machine, time spent descheduled is not the kernels'.
inline double cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

struct Timing {
  double hand_ms, adjc_ms;              // medians
  double ratio, ratio_low, ratio_high;  // median and quartiles of the per-repetition adjc / hand
};

inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::size_t(q * double(v.size() - 1) + 0.5)];
}

// Runs hand-written and adjc side by side, alternating which goes first, so that the machine's
// drift (a shared VM) affects both alike; the ratio is taken per repetition.
inline Timing compare(const std::function<void()>& prepare_hand, const std::function<void()>& run_hand,
                      const std::function<void()>& prepare_adjc, const std::function<void()>& run_adjc, int reps) {
  std::vector<double> hand, adjc, ratio;
  auto time = [](const std::function<void()>& prepare, const std::function<void()>& run) {
    prepare();
    double t0 = cpu_ms();
    run();
    return cpu_ms() - t0;
  };
  for (int r = 0; r < reps; r++) {
    double h, a;
    if (r % 2 == 0) {
      h = time(prepare_hand, run_hand);
      a = time(prepare_adjc, run_adjc);
    } else {
      a = time(prepare_adjc, run_adjc);
      h = time(prepare_hand, run_hand);
    }
    hand.push_back(h);
    adjc.push_back(a);
    ratio.push_back(a / h);
  }
  return {quantile(hand, 0.5), quantile(adjc, 0.5), quantile(ratio, 0.5), quantile(ratio, 0.25), quantile(ratio, 0.75)};
}

inline std::vector<float> random_vector(std::size_t n, float lo, float hi, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

inline void zero(std::vector<float>& v) { std::fill(v.begin(), v.end(), 0.0f); }

inline void row(const char* kernel, const char* shape, const Timing& t, std::size_t tape, double max_diff) {
  std::printf("| %-13s | %-16s | %9.3f | %9.3f | %5.2fx [%4.2f-%4.2f] | %10zu | %9.2e |\n", kernel, shape, t.hand_ms,
              t.adjc_ms, t.ratio, t.ratio_low, t.ratio_high, tape, max_diff);
}

inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); i++) m = std::max(m, double(std::fabs(a[i] - b[i])));
  return m;
}
