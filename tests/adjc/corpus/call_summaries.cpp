// Corpus: calls that write memory later calls overwrite again, accepted because the callee's
// summary (CallSummary: what its reverse reads of each pointer or reference parameter, and what it
// writes) shows the overwritten values are not needed. The cases the summaries must still reject
// are tests/adjc/diagnostics/call_overwrites_*.cpp.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace summaries {  // the corpus is one program: its names are its own

// Out-parameters and references (the shape of Clad's function-call tests): neither callee's
// reverse reads the old value of *out or acc, so the second call may overwrite what the first wrote.
void scale_into(double* out, double x, double k) { *out = x * k; }
void add_square_to(double& acc, double v) { acc += v * v; }
double out_params(double x, double y) {
  double t = x * y + std::sin(y);
  double u = 0;
  scale_into(&u, t, x);
  add_square_to(u, y);
  double c = u;  // a copy: the product's reverse reads c, not u
  double r = c * c;
  scale_into(&u, r, y);  // overwrites u again
  add_square_to(u, x);
  return u + r;
}

TEST(CallSummaries, out_params) {
  auto g = adjoint::gradient(out_params);
  check("out_params", g, out_params, Scalar<double>{}, Scalar<double>{});
}

// A scratch buffer reused by calls: `fill` writes it from x, `add_twice` reads it only linearly
// (its reverse needs none of its values), then `fill` overwrites it from z.
void fill(double* tmp, const double* x, int n) {
  for (int i = 0; i < n; i++) tmp[i] = std::sin(x[i]);
}
void add_twice(double* y, const double* tmp, int n) {
  for (int i = 0; i < n; i++) y[i] += 2 * tmp[i];
}
void reused_scratch(double* y, const double* x, const double* z, double* tmp, int n) {
  fill(tmp, x, n);
  add_twice(y, tmp, n);
  fill(tmp, z, n);
  add_twice(y, tmp, n);
}

TEST(CallSummaries, reused_scratch) {
  auto g = adjoint::gradient(reused_scratch);
  check("reused_scratch", g, reused_scratch, InOut<double>{4}, In<double>{4}, In<double>{4}, Out<double>{4}, 4);
}

// A callee that updates a cell in place from its old value, as the random tester's helpers do: its
// own tape restores the old value before its reverse reads it, so later calls may overwrite the
// cell, and so may the same call in later iterations. The caller's own in-place update reads y[0]
// the same way.
void damp_cell(double* o, const double* p, double a) { o[0] = o[0] * std::tanh(a * p[0]) + 0.25 * p[1]; }
void cells(double* y, const double* x, const double* c, int n) {
  y[0] = y[0] * std::cos(y[0]);
  damp_cell(y, x, c[0]);
  damp_cell(y, x + 1, c[1]);
  for (int i = 0; i < n; i++) {
    damp_cell(y + 1, x + i, c[i]);
    y[2] = y[2] * std::tanh(c[i]);  // taped: restored before its reverse reads it
  }
}

TEST(CallSummaries, cells) {
  auto g = adjoint::gradient(cells);
  check("cells", g, cells, InOut<double>{3}, In<double>{5}, In<double>{4}, 4);
}

// A non-const pointer the callee only reads: the call writes nothing, so it may read memory whose
// earlier values the caller's derivative still needs.
double peek(double* p) { return p[0] * p[1]; }
double reads_through_mutable(double* y) {
  double a = y[0] * y[0];
  double b = peek(y);
  return a * b;
}

TEST(CallSummaries, reads_through_mutable) {
  auto g = adjoint::gradient(reads_through_mutable);
  check("reads_through_mutable", g, reads_through_mutable, In<double>{2});
}

// Summaries compose: `stage` calls `scale_into`, so its reverse reads nothing of `out` either.
void stage(double* out, double x, double k) { scale_into(out, x * x, k); }
double nested(double x, double k) {
  double u = 0;
  stage(&u, x, k);
  double c = u;
  double v = c * x;
  stage(&u, v, k);
  return u + v;
}

TEST(CallSummaries, nested) {
  auto g = adjoint::gradient(nested);
  check("nested", g, nested, Scalar<double>{}, Scalar<double>{});
}

// Accumulating calls into one buffer, in a loop and after it, read by a later call: none of them
// reads the buffer's values in its reverse.
void accumulate(double* acc, const double* x, double w, int n) {
  for (int i = 0; i < n; i++) acc[i] += w * x[i] * x[i];
}
double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
double accumulated(const double* x, const double* w, double* acc, int L, int n) {
  for (int l = 0; l < L; l++) accumulate(acc, x + l * n, w[l], n);
  accumulate(acc, x, w[0] * w[1], n);
  return dot(acc, acc, n);
}

TEST(CallSummaries, accumulated) {
  auto g = adjoint::gradient(accumulated, "x, w, acc");
  check("accumulated", g, accumulated, In<double>{9}, In<double>{3}, InOut<double>{3}, 3, 3);
}

// Calls that each write one element the caller names (CallSummary::element_index): `set_tanh`'s
// reverse reads o[k] back (tanh's derivative from its value), yet each iteration's call writes an
// element of its own, so no later call overwrites what an earlier call's reverse reads. The loop
// reads its own element after the call; the second loop writes at an offset. The cases that must
// still be rejected are tests/adjc/diagnostics/call_overwrites_{same,next}_element.cpp.
void set_tanh(double* o, int k, double v) { o[k] = std::tanh(v); }
double elements(double* o, double* p, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    set_tanh(o, i, x[i] * x[i]);
    s += o[i] * x[i];
  }
  for (int i = 0; i + 1 < n; i++) set_tanh(p, i + 1, x[i] * s);
  return s + p[n - 1] * o[1];
}

TEST(CallSummaries, elements) {
  auto g = adjoint::gradient(elements, "o, p, x");
  check("elements", g, elements, Out<double>{4}, Out<double>{4}, In<double>{4}, 4);
}

// A number passed by reference (`scale_in_place(v[i])`): the call writes the one element it is
// bound to, so each iteration's call has an element of its own, read nonlinearly after the call.
// (The callee is linear: its reverse tapes nothing and puts nothing back.)
void scale_in_place(double& d) { d = 3 * d + 0.5; }
double reference_elements(double* v, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    v[i] = x[i] * s + x[i];
    scale_in_place(v[i]);
    s += v[i] * v[i];
  }
  return s;
}

TEST(CallSummaries, reference_elements) {
  auto g = adjoint::gradient(reference_elements, "v, x");
  check("reference_elements", g, reference_elements, Out<double>{4}, In<double>{4}, 4);
}

}  // namespace summaries
