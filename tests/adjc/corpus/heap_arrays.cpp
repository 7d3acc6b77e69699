// Corpus: heap arrays (docs/adjc.md, "Heap arrays"): `new T[n]` scratch sized by a parameter,
// `new T(v)` single objects, `delete`/`delete[]` through an alias, pointers declared nullptr and
// given their `new` later (also in a branch), float and int elements, heap arrays passed to callees
// that write and read them. Also built under ASan+UBSan: nothing leaks, nothing is read once freed.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// In a namespace of their own: the corpus files link into one test program.
namespace heap_arrays {

double heap(double x, int n) {
  double* buf = new double[n];
  for (int i = 0; i < n; i++) buf[i] = x * (i + 1);
  double s = 0;
  for (int i = 0; i < n; i++) s += buf[i] * buf[i];
  delete[] buf;
  return s;
}
// Two elements of scratch, one overwritten after it is read (taped), freed through an alias.
double scratch_alias(double x, double y) {
  double* t = new double[2];
  double* owner = t;
  t[0] = x * y;
  t[1] = std::sin(x);
  double r = t[0] * t[1];
  t[0] = t[0] * t[1] + y;
  r += t[0] * t[0];
  delete[] owner;
  return r;
}
// One object, given a value; overwritten after it is read.
double single(double x) {
  double* p = new double(x * x);
  double r = *p * x;
  *p = *p * std::cos(x);
  r += *p;
  delete p;
  return r;
}
float heap_float(const float* x, int n) {
  float* b = new float[n]{};
  for (int i = 0; i < n; i++) b[i] = x[i] * x[i];
  float s = 0;
  for (int i = 0; i < n; i++) s += b[i] * x[(i + 1) % n];
  delete[] b;
  return s;
}
void fill(double* buf, double x, int n) {
  for (int i = 0; i < n; i++) buf[i] = std::exp(x * (i + 1) / n);
}
double cubes(const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += b[i] * b[i] * b[i];
  return s;
}
// A callee writes the heap array, another reads it; a pointer into it writes its second half.
double through_callees(double x, int n) {
  double* buf = new double[n]();
  fill(buf, x, n);
  double* half = buf + n / 2;
  for (int i = 0; i < n - n / 2; i++) half[i] = half[i] * x;
  double s = cubes(buf, n);
  delete[] buf;
  return s;
}
// Indices in an int heap array (no derivative), declared nullptr and given its `new` later.
double gather(const double* x, int n) {
  int* idx = nullptr;
  idx = new int[n];
  for (int i = 0; i < n; i++) idx[i] = (i * 3 + 1) % n;
  double s = 0;
  for (int i = 0; i < n; i++) s += x[idx[i]] * x[i] * x[i];
  delete[] idx;
  return s;
}
// Allocated only on one branch: when it is not, the reverse frees nothing.
double in_branch(double x, int n) {
  double s = x * x;
  double* b = nullptr;
  if (n > 2) {
    b = new double[n];
    for (int i = 0; i < n; i++) b[i] = s * i;
    for (int i = 0; i < n; i++) s += b[i] * b[i];
    delete[] b;
  }
  return s;
}
// A callee that allocates, called in a loop: each call's reverse frees what its forward allocated.
double norm_scratch(const double* x, int n) {
  double* t = new double[n];
  for (int i = 0; i < n; i++) t[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += t[i];
  delete[] t;
  return std::sqrt(s);
}
double calls_in_loop(const double* x, int n) {
  double s = 0;
  for (int k = 0; k < 3; k++) s += norm_scratch(x + k, n - k) * s + x[k];
  return s;
}
// The hints of the heap diagnostics (tests/adjc/diagnostics/heap_*), followed.
double first(const double* p) { return p[0] * p[1]; }
double hints_followed(double x, int n) {
  double* p = new double[n];  // before the loop, reused (heap_in_loop)
  double s = 0;
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < n; i++) p[i] = x * (i + k);
    for (int i = 0; i < n; i++) s += p[i] * p[i];
  }
  double* v = new double[2]();  // values assigned (heap_initial_values), passed to a call (heap_new_argument)
  v[0] = x;
  v[1] = 2 * x;
  s += x * first(v);
  double* q = new double[n]();  // a pointer of its own (heap_second_new)
  q[0] = s;
  s = q[0] * s;
  double* r = q;  // a local pointer moves, not the heap array's (heap_pointer_moved)
  for (int i = 0; i < 2; i++) s += *r++ * x;
  double* one = new double;
  *one = s * x;
  s += *one;
  delete one;
  delete[] q;
  delete[] v;
  delete[] p;
  return s;
}

TEST(HeapArrays, size_from_parameter) {
  check("heap_3", adjoint::gradient(heap, "x"), heap, Scalar<double>{}, 3);
  check("heap_7", adjoint::gradient(heap, "x"), heap, Scalar<double>{}, 7);
}
TEST(HeapArrays, scratch_freed_through_alias) {
  check("scratch_alias", adjoint::gradient(scratch_alias), scratch_alias, Scalar<double>{}, Scalar<double>{});
}
TEST(HeapArrays, single_object) { check("single", adjoint::gradient(single), single, Scalar<double>{}); }
TEST(HeapArrays, float_elements) {
  check("heap_float", adjoint::gradient(heap_float, "x"), heap_float, In<float>{5}, 5);
}
TEST(HeapArrays, callees_write_and_read) {
  check("through_callees", adjoint::gradient(through_callees, "x"), through_callees, Scalar<double>{}, 5);
}
TEST(HeapArrays, int_indices) { check("gather", adjoint::gradient(gather, "x"), gather, In<double>{6}, 6); }
TEST(HeapArrays, allocated_in_a_branch) {
  check("in_branch_4", adjoint::gradient(in_branch, "x"), in_branch, Scalar<double>{}, 4);
  check("in_branch_1", adjoint::gradient(in_branch, "x"), in_branch, Scalar<double>{}, 1);
}
TEST(HeapArrays, callee_allocating_in_a_loop) {
  check("calls_in_loop", adjoint::gradient(calls_in_loop, "x"), calls_in_loop, In<double>{5}, 5);
}
TEST(HeapArrays, hints_followed) {
  check("hints_followed", adjoint::gradient(hints_followed, "x"), hints_followed, Scalar<double>{}, 4);
}

}  // namespace heap_arrays
