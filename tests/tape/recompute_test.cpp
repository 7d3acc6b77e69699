// Checkpointing: a nonlinear loop reversed with the full tape and with every schedule of
// checkpointed_loop must give bit-identical gradients (the same arithmetic runs on the same
// states); the full-tape gradient itself is checked against central finite differences.
#include "adjoint/recompute.hpp"
#include "adjoint/tape.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using state = std::vector<double>;
constexpr std::size_t d = 16;
constexpr std::size_t n = 300;

// One iteration, x_i -> x_{i+1}: x'[j] = a[j] sin(x[j]) (1 + i/1000) + x[j+1 mod d] / 2.
void step(state& x, const state& a, std::size_t i) {
  state y(d);
  double s = 1 + 0.001 * double(i);
  for (std::size_t j = 0; j < d; ++j) y[j] = a[j] * std::sin(x[j]) * s + 0.5 * x[(j + 1) % d];
  x = std::move(y);
}

// Reverse of iteration i: pops x_i from the tape, turns adj (of x_{i+1}) into the adjoint of
// x_i, and accumulates into adj_a.
void step_reverse(state& adj, state& adj_a, const state& a, std::size_t i,
                  adjoint::tape<double>& t) {
  state x(d), adj_x(d, 0.0);
  t.pop_n(x.data(), d);
  double s = 1 + 0.001 * double(i);
  for (std::size_t j = 0; j < d; ++j) {
    adj_a[j] += adj[j] * std::sin(x[j]) * s;
    adj_x[j] += adj[j] * a[j] * std::cos(x[j]) * s;
    adj_x[(j + 1) % d] += 0.5 * adj[j];
  }
  adj = std::move(adj_x);
}

state initial_x() {
  state x(d);
  for (std::size_t j = 0; j < d; ++j) x[j] = 0.1 * double(j) - 0.5;
  return x;
}
state parameters() {
  state a(d);
  for (std::size_t j = 0; j < d; ++j) a[j] = 0.3 + 0.02 * double(j);
  return a;
}

double loss(const state& a) {
  state x = initial_x();
  for (std::size_t i = 0; i < n; ++i) step(x, a, i);
  double l = 0;
  for (double v : x) l += 0.5 * v * v;
  return l;
}

struct gradients {
  state adj_a, adj_x0;
  bool operator==(const gradients&) const = default;
};

// The classic way: tape x_i at every iteration.
gradients full_tape(std::size_t& tape_bytes) {
  state a = parameters(), x = initial_x();
  adjoint::tape<double> t;
  for (std::size_t i = 0; i < n; ++i) {
    t.push_n(x.data(), d);
    step(x, a, i);
  }
  tape_bytes = t.size() * sizeof(double);
  gradients g{state(d, 0.0), x};  // dL/dx_n = x_n
  for (std::size_t i = n; i-- > 0;) step_reverse(g.adj_x0, g.adj_a, a, i, t);
  return g;
}

gradients checkpointed(adjoint::recompute_schedule schedule, adjoint::recompute_stats& stats,
                       std::vector<std::size_t>& order) {
  state a = parameters(), x = initial_x();
  auto advance = [&](state& s, std::size_t i) { step(s, a, i); };
  adjoint::checkpointed_loop<state> loop(n, schedule);
  loop.forward(x, advance);
  gradients g{state(d, 0.0), x};
  loop.reverse(advance, [&](const state& x_i, std::size_t i) {
    adjoint::tape<double> t;  // this iteration's tape only
    t.push_n(x_i.data(), d);
    step_reverse(g.adj_x0, g.adj_a, a, i, t);
    order.push_back(i);
  });
  stats = loop.stats();
  return g;
}

TEST(Recompute, FullTapeGradientMatchesFiniteDifferences) {
  std::size_t bytes;
  gradients g = full_tape(bytes);
  state a = parameters();
  for (std::size_t j = 0; j < d; ++j) {
    const double h = 1e-6;
    state up = a, down = a;
    up[j] += h;
    down[j] -= h;
    double fd = (loss(up) - loss(down)) / (2 * h);
    EXPECT_NEAR(g.adj_a[j], fd, 1e-6 * (1 + std::abs(fd))) << "dL/da[" << j << "]";
  }
}

// Smallest t with C(c + t, c) >= l: the sweeps revolve needs, so at most t * l recomputed steps.
std::size_t revolve_sweeps(std::size_t c, std::size_t l) {
  for (std::size_t t = 0;; ++t) {
    double b = 1;
    for (std::size_t j = 1; j <= c; ++j) b = b * double(t + j) / double(j);
    if (b >= double(l)) return t;
  }
}

TEST(Recompute, EverySchedulesGivesTheFullTapeGradientExactly) {
  std::size_t full_bytes;
  gradients expected = full_tape(full_bytes);
  std::vector<std::size_t> reverse_order(n);
  for (std::size_t i = 0; i < n; ++i) reverse_order[i] = n - 1 - i;
  const std::size_t state_bytes = d * sizeof(double);

  std::printf("%-22s %14s %14s %16s\n", "schedule", "states held", "state bytes",
              "steps recomputed");
  std::printf("%-22s %14zu %14zu %16d\n", "full tape", n, full_bytes, 0);
  struct named {
    std::string name;
    adjoint::recompute_schedule schedule;
    std::size_t max_states, max_recomputed;
  };
  std::vector<named> cases;
  for (std::size_t k : {1, 7, 17, 300, 1000}) {
    std::size_t segments = (n + k - 1) / k;
    cases.push_back({"every " + std::to_string(k), adjoint::every_k_schedule{k},
                     segments + std::min(k, n) + 1, n});
  }
  for (std::size_t s : {0, 1, 2, 5, 20, 400}) {
    cases.push_back({"binomial, " + std::to_string(s) + " snapshots",
                     adjoint::binomial_schedule{s}, s + 2, revolve_sweeps(s + 1, n) * n});
  }
  for (const named& c : cases) {
    SCOPED_TRACE(c.name);
    adjoint::recompute_stats stats;
    std::vector<std::size_t> order;
    gradients g = checkpointed(c.schedule, stats, order);
    EXPECT_EQ(g, expected) << "checkpointing changed the gradient";
    EXPECT_EQ(order, reverse_order) << "iterations not reversed exactly once each, in order";
    EXPECT_EQ(stats.forward_steps, n);
    EXPECT_LE(stats.peak_states, c.max_states);
    EXPECT_LE(stats.reverse_steps, c.max_recomputed);
    std::printf("%-22s %14zu %14zu %16zu\n", c.name.c_str(), stats.peak_states,
                stats.peak_states * state_bytes, stats.reverse_steps);
  }
}

TEST(Recompute, EdgeCasesAndMisuse) {
  EXPECT_THROW((adjoint::checkpointed_loop<int>(5, adjoint::every_k_schedule{0})),
               std::invalid_argument);
  adjoint::checkpointed_loop<int> loop(3, adjoint::binomial_schedule{1});
  auto inc = [](int& s, std::size_t) { ++s; };
  EXPECT_THROW(loop.reverse(inc, [](const int&, std::size_t) {}), std::logic_error);
  for (std::size_t iterations : {0, 1, 2}) {
    for (adjoint::recompute_schedule s :
         {adjoint::recompute_schedule{adjoint::every_k_schedule{2}},
          adjoint::recompute_schedule{adjoint::binomial_schedule{3}}}) {
      adjoint::checkpointed_loop<int> l(iterations, s);
      int x = 10;
      l.forward(x, inc);
      EXPECT_EQ(x, 10 + int(iterations));
      std::vector<std::pair<int, std::size_t>> seen;
      l.reverse(inc, [&](const int& v, std::size_t i) { seen.push_back({v, i}); });
      ASSERT_EQ(seen.size(), iterations);
      for (std::size_t k = 0; k < iterations; ++k) {
        EXPECT_EQ(seen[k].second, iterations - 1 - k);
        EXPECT_EQ(seen[k].first, 10 + int(iterations - 1 - k));
      }
    }
  }
}

}  // namespace
