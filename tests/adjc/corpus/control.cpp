// Corpus: if/else, early return, for/while/do loops with break and continue, nesting.
#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

using namespace gradcheck;

double branch(double x, double y) {
  double r;
  if (x > y) r = x * x;
  else r = y * x + 1.0;
  return r * y;
}
double branch_no_else(double x) {
  double r = x;
  if (x > 0) r = r * x;
  return r;
}
double branch_chain(double x) {
  double r = 0;
  if (x < -0.5) {
    r = x * x;
  } else if (x < 0.5) {
    double t = x * 3;
    r = t * t * t;
  } else {
    r = 1 / x;
  }
  return r + x;
}
double early_return(double x, double y) {
  if (x > 0.3) return x * y;
  double t = x + y;
  if (y < 0) return t * t;
  return t * x;
}
void early_return_void(double* out, double x) {
  out[0] = x * x;
  if (x > 0) return;
  out[0] = out[0] * x;
}
double for_sum(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
double for_product(const double* x, int n) {
  double p = 1;
  for (int i = 0; i < n; ++i) p *= x[i];
  return p;
}
double for_down(const double* x, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i--) s = s * 0.5 + x[i];
  return s;
}
double for_stride(const double* x, int n) {
  double s = 0;
  for (int i = 1; i < n; i += 2) s += x[i] * x[i - 1];
  return s;
}
// Reverse loops step their counters back from the forward's exit value: a strided count down,
// and a triangular nest whose first inner loop runs zero times; the counters' values matter.
double counters_stepped_back(const double* x, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i -= 3) s += x[i] * x[i] * (i + 1);
  for (int r = 0; r < n; r++)
    for (int c = 0; c < r; c++) s += x[r] * x[c] * (c - r);
  return s;
}
double while_loop(const double* x, int n) {
  double s = 0;
  int i = 0;
  while (i < n) {
    s += x[i] * s + x[i];
    i++;
  }
  return s;
}
double do_loop(double x) {
  double s = x;
  int k = 0;
  do {
    s = s * x + 1;
    k += 1;
  } while (k < 4);
  return s;
}
double loop_break(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (x[i] > 0.8) break;
    s += x[i] * x[i];
  }
  return s;
}
double loop_continue(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i] * 2;
    if (v < 0) continue;
    s += v * x[i];
  }
  return s;
}
double while_break_continue(const double* x, int n) {
  double s = 1;
  int i = 0;
  while (true) {
    if (i >= n) break;
    double v = x[i];
    i = i + 1;
    if (v < -0.5) continue;
    s = s * (1 + v * v);
  }
  return s;
}
double nested_loops(const double* a, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double row = 0;
    for (int j = 0; j < n; j++) row += a[i * n + j] * x[j];
    s += row * row;
  }
  return s;
}
double nested_break(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    for (int j = i; j < n; j++) {
      if (j - i > 2) break;
      s += x[i] * x[j];
    }
  }
  return s;
}
double loop_then_branch(const double* x, int n, double t) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (x[i] * t > m) m = x[i] * t;
  return m * m;
}
double loop_carried(double x, int n) {
  double a = x, b = 1;
  for (int i = 0; i < n; i++) {
    double c = a * b;
    b = a;
    a = c + 0.1;
  }
  return a;
}
double empty_loop(const double* x, int n) {
  double s = x[0];
  for (int i = 0; i < n; i++) s = s * x[i];
  return s;
}

TEST(Control, branch) { auto g = adjoint::gradient(branch); check("branch", g, branch, Scalar<double>{}, Scalar<double>{}); }
TEST(Control, branch_no_else) { auto g = adjoint::gradient(branch_no_else); check("branch_no_else", g, branch_no_else, Scalar<double>{}); }
TEST(Control, branch_chain) { auto g = adjoint::gradient(branch_chain); check("branch_chain", g, branch_chain, Scalar<double>{-2, 2}); }
TEST(Control, early_return) {
  auto g = adjoint::gradient(early_return);
  check("early_return", g, early_return, Scalar<double>{}, Scalar<double>{});
}
TEST(Control, early_return_void) {
  auto g = adjoint::gradient(early_return_void);
  check("early_return_void", g, early_return_void, Out<double>{1}, Scalar<double>{});
}
TEST(Control, for_sum) { auto g = adjoint::gradient(for_sum, "x"); check("for_sum", g, for_sum, In<double>{7}, 7); }
TEST(Control, for_product) { auto g = adjoint::gradient(for_product, "x"); check("for_product", g, for_product, In<double>{6}, 6); }
TEST(Control, for_down) { auto g = adjoint::gradient(for_down, "x"); check("for_down", g, for_down, In<double>{6}, 6); }
TEST(Control, for_stride) { auto g = adjoint::gradient(for_stride, "x"); check("for_stride", g, for_stride, In<double>{7}, 7); }
TEST(Control, counters_stepped_back) {
  auto g = adjoint::gradient(counters_stepped_back, "x");
  check("counters_stepped_back", g, counters_stepped_back, In<double>{7}, 7);
}
TEST(Control, while_loop) { auto g = adjoint::gradient(while_loop, "x"); check("while_loop", g, while_loop, In<double>{5}, 5); }
TEST(Control, do_loop) { auto g = adjoint::gradient(do_loop); check("do_loop", g, do_loop, Scalar<double>{}); }
TEST(Control, loop_break) { auto g = adjoint::gradient(loop_break, "x"); check("loop_break", g, loop_break, In<double>{8}, 8); }
TEST(Control, loop_continue) {
  auto g = adjoint::gradient(loop_continue, "x");
  check("loop_continue", g, loop_continue, In<double>{8}, 8);
}
TEST(Control, while_break_continue) {
  auto g = adjoint::gradient(while_break_continue, "x");
  check("while_break_continue", g, while_break_continue, In<double>{8}, 8);
}
TEST(Control, nested_loops) {
  auto g = adjoint::gradient(nested_loops, "a,x");
  check("nested_loops", g, nested_loops, In<double>{16}, In<double>{4}, 4);
}
TEST(Control, nested_break) { auto g = adjoint::gradient(nested_break, "x"); check("nested_break", g, nested_break, In<double>{6}, 6); }
TEST(Control, loop_then_branch) {
  auto g = adjoint::gradient(loop_then_branch, "x,t");
  check("loop_then_branch", g, loop_then_branch, In<double>{6}, 6, Scalar<double>{0.5, 1.5});
}
TEST(Control, loop_carried) { auto g = adjoint::gradient(loop_carried, "x"); check("loop_carried", g, loop_carried, Scalar<double>{}, 5); }
TEST(Control, empty_loop) { auto g = adjoint::gradient(empty_loop, "x"); check("empty_loop", g, empty_loop, In<double>{1}, 0); }

// Jumps past locals the reverse sweep recomputes, in loops of every form.
double continue_after_local(const double* x, int n, int step) {
  double s = 0;
  for (int i = 0; i < n; i += step) {
    double v = x[i] * x[i];
    if (v > 0.5) continue;
    double w = v * x[i];
    s += w * v;
  }
  return s;
}
double do_continue(const double* x, int n) {
  double s = 0.5;
  int i = 0;
  do {
    double v = x[i] + s;
    i = i + 1;
    if (v < 0) continue;
    s = s * v;
  } while (i < n);
  return s;
}
double break_in_nested_if(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double a = x[i] * 3;
    if (a > -1) {
      double b = a * a;
      if (b > 2) break;
      s += b * x[i];
    }
    s = s * 0.9;
  }
  return s;
}
void void_early_return(double* out, const double* x, int n) {
  for (int i = 0; i < n; i++) out[i] = x[i] * x[i];
  if (x[0] > 0) return;
  for (int i = 0; i < n; i++) out[i] = out[i] * x[i];
}

TEST(Control, continue_after_local) {
  auto g = adjoint::gradient(continue_after_local, "x");
  check("continue_after_local", g, continue_after_local, In<double>{9}, 9, 2);
}
TEST(Control, do_continue) { auto g = adjoint::gradient(do_continue, "x"); check("do_continue", g, do_continue, In<double>{6}, 6); }
TEST(Control, break_in_nested_if) {
  auto g = adjoint::gradient(break_in_nested_if, "x");
  check("break_in_nested_if", g, break_in_nested_if, In<double>{8}, 8);
}
TEST(Control, void_early_return) {
  auto g = adjoint::gradient(void_early_return);
  check("void_early_return", g, void_early_return, Out<double>{4}, In<double>{4}, 4);
}

double counter_in_body(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * s + x[i];
    i += 1;  // not a canonical loop: the counter is an ordinary (taped) integer
  }
  return s;
}
double unsigned_counter(const double* x, unsigned long n) {
  double s = 1;
  for (unsigned long i = 0; i < n; ++i) s = s * x[i] + 0.5;
  return s;
}
double forever_break(const double* x, int n) {
  double s = 0;
  int i = 0;
  for (;;) {
    if (i == n) break;
    s = s + x[i] * x[i] * s + x[i];
    ++i;
  }
  return s;
}

TEST(Control, counter_in_body) {
  auto g = adjoint::gradient(counter_in_body, "x");
  check("counter_in_body", g, counter_in_body, In<double>{7}, 7);
}
TEST(Control, unsigned_counter) {
  auto g = adjoint::gradient(unsigned_counter, "x");
  check("unsigned_counter", g, unsigned_counter, In<double>{5}, Fixed<unsigned long>{5});
}
TEST(Control, forever_break) { auto g = adjoint::gradient(forever_break, "x"); check("forever_break", g, forever_break, In<double>{5}, 5); }
