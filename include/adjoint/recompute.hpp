#pragma once
// adjoint::checkpointed_loop: reverse mode over a loop whose per-iteration state is too large to
// tape for every iteration. The forward pass keeps only some states (every k-th, or the
// binomial "revolve" schedule with a fixed number of snapshots); the reverse pass recomputes
// the others from the nearest stored one. Docs and measurements: docs/tape.md.
//
//   adjoint::checkpointed_loop<State> loop(n, adjoint::binomial_schedule{8});
//   loop.forward(state, step);        // step(State& s, i): s = state_i -> state_{i+1}
//   loop.reverse(step, adjoint_step); // adjoint_step(const State& state_i, i), i = n-1 .. 0
//
// adjoint_step gets the exact state at the start of iteration i and does that iteration's
// reverse (typically: rerun it with a small tape, then pop). step must be deterministic.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace adjoint {

// Stores the state at iterations 0, k, 2k, ...; the reverse pass recomputes one segment of k
// states at a time. Holds about n/k + k states; runs each step at most twice.
struct every_k_schedule {
  std::size_t k;
};

// Griewank's binomial checkpointing (revolve) with at most `snapshots` stored states besides
// the initial one: the fewest recomputations for that memory. 0 snapshots recomputes every
// state from the start (quadratic time, constant memory).
struct binomial_schedule {
  std::size_t snapshots;
};

using recompute_schedule = std::variant<every_k_schedule, binomial_schedule>;

struct recompute_stats {
  std::size_t forward_steps = 0;  // step calls of forward()
  std::size_t reverse_steps = 0;  // step calls of reverse(), i.e. recomputation
  std::size_t peak_states = 0;    // most States the loop held at once (stored + being recomputed)
};

template <class State>
class checkpointed_loop {
 public:
  checkpointed_loop(std::size_t iterations, recompute_schedule schedule)
      : n_(iterations), schedule_(schedule) {
    if (auto* p = std::get_if<every_k_schedule>(&schedule_); p && p->k == 0) {
      throw std::invalid_argument("adjoint::checkpointed_loop: every_k_schedule needs k >= 1");
    }
  }

  // Runs the n iterations on `state` (state_0 in, state_n out), keeping the scheduled states.
  template <class Step>
  void forward(State& state, Step&& step) {
    stored_.clear();
    stats_ = {};
    if (auto* p = std::get_if<every_k_schedule>(&schedule_)) {
      for (std::size_t i = 0; i < n_; ++i) {
        if (i % p->k == 0) store(i, state);
        run(step, state, i, stats_.forward_steps);
      }
    } else {
      // The first descent of the revolve recursion: the same split points reverse() will ask for.
      std::size_t free = std::get<binomial_schedule>(schedule_).snapshots, i = 0;
      store(0, state);
      for (std::size_t a = 0; a + 1 < n_ && free > 0; --free) {
        a = split(a, n_, free);
        for (; i < a; ++i) run(step, state, i, stats_.forward_steps);
        store(a, state);
      }
      for (; i < n_; ++i) run(step, state, i, stats_.forward_steps);
    }
    forward_done_ = true;
  }

  // Calls adjoint_step(state_i, i) for i = n-1 down to 0. Needs a forward() first; consumes it.
  template <class Step, class AdjointStep>
  void reverse(Step&& step, AdjointStep&& adjoint_step) {
    if (!forward_done_) {
      throw std::logic_error("adjoint::checkpointed_loop::reverse without a forward pass");
    }
    forward_done_ = false;
    if (n_ == 0) return;
    if (auto* p = std::get_if<every_k_schedule>(&schedule_)) {
      reverse_segments(p->k, step, adjoint_step);
    } else {
      revolve(0, 0, n_, std::get<binomial_schedule>(schedule_).snapshots, step, adjoint_step);
    }
    stored_.clear();
  }

  const recompute_stats& stats() const noexcept { return stats_; }

 private:
  struct stored_state {
    std::size_t iteration;
    State state;
  };

  template <class Step>
  static void run(Step& step, State& state, std::size_t i, std::size_t& counter) {
    step(state, i);
    ++counter;
  }

  // `extra` States live outside stored_ (recomputation buffers) at this moment.
  void note_states(std::size_t extra) {
    stats_.peak_states = std::max(stats_.peak_states, stored_.size() + extra);
  }

  void store(std::size_t i, const State& state) {
    stored_.push_back({i, state});
    note_states(1);  // plus the running state
  }

  template <class Step, class AdjointStep>
  void reverse_segments(std::size_t k, Step& step, AdjointStep& adjoint_step) {
    std::vector<State> segment;
    while (!stored_.empty()) {
      stored_state start = std::move(stored_.back());
      stored_.pop_back();
      std::size_t end = std::min(start.iteration + k, n_);
      segment.clear();
      segment.push_back(std::move(start.state));
      for (std::size_t i = start.iteration; i + 1 < end; ++i) {
        segment.push_back(segment.back());
        run(step, segment.back(), i, stats_.reverse_steps);
      }
      note_states(segment.size());
      for (std::size_t i = end; i-- > start.iteration;) {
        adjoint_step(std::as_const(segment[i - start.iteration]), i);
      }
    }
  }

  void drop_above(std::size_t level) {
    stored_.erase(stored_.begin() + std::ptrdiff_t(level + 1), stored_.end());
  }

  // C(c + t, c), saturated at `cap`: the most steps c snapshots reverse with t sweeps each.
  static std::size_t binomial(std::size_t c, std::size_t t, std::size_t cap) {
    unsigned __int128 r = 1;
    for (std::size_t j = 1; j <= c; ++j) {
      r = r * (t + j) / j;  // exact: a product of j consecutive integers is divisible by j!
      if (r >= cap) return cap;
    }
    return std::size_t(r);
  }

  // Where to put the next snapshot when reversing [a, b) holding state_a plus `free` more
  // snapshots (c = free + 1 in revolve's terms): the right part gets as many steps as c - 1
  // snapshots reverse in t sweeps, the left the rest, which c snapshots reverse in t - 1.
  static std::size_t split(std::size_t a, std::size_t b, std::size_t free) {
    std::size_t l = b - a, c = free + 1, t = 0;
    while (binomial(c, t, l) < l) ++t;
    std::size_t right = std::min(binomial(c - 1, t, l), l - 1);
    return b - right;
  }

  // Reverses iterations [a, b); stored_[level] holds state_a and `free` more may be stored.
  // Snapshots above `level` that forward() already took are used instead of recomputed.
  template <class Step, class AdjointStep>
  void revolve(std::size_t level, std::size_t a, std::size_t b, std::size_t free, Step& step,
               AdjointStep& adjoint_step) {
    if (b - a == 1) {
      adjoint_step(std::as_const(stored_[level].state), a);
      return;
    }
    if (free == 0) {
      for (std::size_t i = b; i-- > a;) {
        State work = stored_[level].state;
        note_states(1);
        for (std::size_t j = a; j < i; ++j) run(step, work, j, stats_.reverse_steps);
        adjoint_step(std::as_const(work), i);
      }
      return;
    }
    std::size_t m = split(a, b, free);
    if (stored_.size() <= level + 1 || stored_[level + 1].iteration != m) {
      drop_above(level);
      State work = stored_[level].state;
      for (std::size_t j = a; j < m; ++j) run(step, work, j, stats_.reverse_steps);
      stored_.push_back({m, std::move(work)});
      note_states(0);
    }
    revolve(level + 1, m, b, free - 1, step, adjoint_step);
    drop_above(level);
    revolve(level, a, m, free, step, adjoint_step);
  }

  std::size_t n_;
  recompute_schedule schedule_;
  std::vector<stored_state> stored_;
  bool forward_done_ = false;
  recompute_stats stats_;
};

}  // namespace adjoint
