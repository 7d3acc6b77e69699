// Corpus: heap arrays (docs/adjc.md, "Heap arrays"): `new T[n]` scratch sized by a parameter,
// `new T(v)` single objects, `delete`/`delete[]` through an alias, pointers declared nullptr and
// given their `new` later (also in a branch), float and int elements, heap arrays passed to callees
// that write and read them; the C library's malloc/calloc/realloc/free and memset zero fill, and
// structs on the heap (`new T{x}`, malloc of an array of structs). Also built under ASan+UBSan:
// nothing leaks, nothing is read once freed.
#include <adjoint/ad.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>

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

// Clad's test/Gradient/Pointers.C: one struct by `new`, and C allocation of structs and numbers.
struct T {
  double x;
  int y;
};
double structPointer(double x) {
  T* t = new T{x, 1};
  double res = t->x * t->x + t->y;
  delete t;
  return res;
}
double cStyleMemoryAlloc(double x, std::size_t n) {
  T* t = (T*)malloc(sizeof(T) * n);
  memset(t, 0, n * sizeof(T));
  t->x = x;
  double* p = (double*)calloc(1, sizeof(double));
  *p = x;
  double res = t->x + *p;
  p = (double*)realloc(p, 2 * sizeof(double));
  p[1] = 2 * x;
  res += p[1];
  free(p);
  free(t);
  return res;
}
// calloc's zeros are read (p[1], p[2] are never written), so dropping them changes the value.
double calloc_zeros(double x, int n) {
  double* p = static_cast<double*>(std::calloc(n, sizeof(double)));
  p[0] = x * x;
  double s = 0;
  for (int i = 0; i < n; i++) s += (p[i] + 1) * x;
  std::free(p);
  return s;
}
// malloc in a callee called twice, and in a branch.
double malloc_scratch(const double* x, int n) {
  double* t = (double*)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) t[i] = std::sin(x[i]) * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += t[i] * t[(i + 1) % n];
  free(t);
  return s;
}
double malloc_in_callee(const double* x, int n) { return malloc_scratch(x, n) * malloc_scratch(x + 1, n - 1); }
double malloc_in_branch(double x, int n) {
  double s = x;
  double* b = nullptr;
  if (n > 2) {
    b = (double*)malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) b[i] = s * (i + 1);
    for (int i = 0; i < n; i++) s += b[i] * b[i];
    free(b);
  }
  return s;
}
// memset zero fill of a heap array and of a local array, over values the derivative still needs.
double memset_zero(double x, int n) {
  double* h = (double*)calloc(n, sizeof(double));
  double a[4];
  for (int i = 0; i < n; i++) h[i] = x * (i + 1);
  for (int i = 0; i < 4; i++) a[i] = x * x * i;
  double s = h[n - 1] * a[3];
  memset(h, 0, sizeof(double) * n);
  std::memset(a, 0, sizeof a);
  h[1] += x;
  a[2] = x * s;
  for (int i = 0; i < n; i++) s += h[i] * x;
  for (int i = 0; i < 4; i++) s += a[i] * a[i];
  free(h);
  return s;
}
// realloc growing (the copied elements' derivatives flow back to the old array's), then shrinking.
double realloc_grow_shrink(double x, int n) {
  double* p = (double*)malloc(2 * sizeof(double));
  p[0] = x * x;
  p[1] = std::cos(x);
  p = (double*)realloc(p, n * sizeof(double));
  for (int i = 2; i < n; i++) p[i] = p[i - 1] * p[i - 2];
  double s = 0;
  for (int i = 0; i < n; i++) s += p[i];
  p = (double*)realloc(p, sizeof(double));
  s *= p[0];
  free(p);
  return s;
}
// realloc of a pointer still nullptr allocates (as malloc), then grows it.
double realloc_from_null(double x, int n) {
  double* p = nullptr;
  p = (double*)realloc(p, 2 * sizeof(double));
  p[0] = x;
  p[1] = x * x;
  p = (double*)realloc(p, n * sizeof(double));
  for (int i = 2; i < n; i++) p[i] = std::sin(p[i - 1]) * p[i - 2];
  double s = p[n - 1] * p[0];
  free(p);
  return s;
}
// Structs on the heap: one by `new`, passed to a callee by reference and read through `->` and
// `(*q).`; an array of them by malloc, passed to a callee as a pointer.
struct Particle {
  double a, b;
};
double energy(const Particle* ps, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += ps[i].a * ps[i].b;
  return s;
}
void scale(Particle& p, double k) {
  p.a *= k;
  p.b = p.a * p.b;
}
double heap_structs(double x, int n) {
  Particle* ps = (Particle*)malloc(n * sizeof(Particle));
  for (int i = 0; i < n; i++) {
    ps[i].a = x * i;
    ps[i].b = x + i;
  }
  Particle* q = new Particle(x, 2 * x);
  scale(*q, x);
  (*q).a += q->b * x;
  double s = energy(ps, n) + q->a + (*q).b;
  free(ps);
  delete q;
  return s;
}
// Floats: calloc, realloc and memset.
float c_floats(float x, int n) {
  float* f = (float*)calloc(n, sizeof(float));
  f[0] = x * x;
  f = (float*)realloc(f, (n + 2) * sizeof(float));
  for (int i = 1; i < n + 2; i++) f[i] = f[i - 1] * x + 1;
  float s = f[n + 1];
  memset(f, 0, n * sizeof(float));
  for (int i = 0; i < n + 2; i++) s += f[i] * x;
  free(f);
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

TEST(HeapArrays, clad_struct_pointer) {
  check("structPointer", adjoint::gradient(structPointer), structPointer, Scalar<double>{});
}
TEST(HeapArrays, clad_c_style_memory_alloc) {
  check("cStyleMemoryAlloc", adjoint::gradient(cStyleMemoryAlloc, "x"), cStyleMemoryAlloc, Scalar<double>{},
        7L);
  double d = 0;
  adjoint::gradient(cStyleMemoryAlloc, "x").execute(0.3, 7, &d);
  EXPECT_EQ(d, 4);
}
TEST(HeapArrays, calloc_zeros) {
  check("calloc_zeros", adjoint::gradient(calloc_zeros, "x"), calloc_zeros, Scalar<double>{}, 4);
  // Exactly 3 x^2 + n: any garbage in p[1..n-1] shows (ASan fills new memory with it).
  double d = 0;
  adjoint::gradient(calloc_zeros, "x").execute(0.5, 4, &d);
  EXPECT_EQ(d, 3 * 0.25 + 4);
}
TEST(HeapArrays, malloc_in_callee_and_branch) {
  check("malloc_in_callee", adjoint::gradient(malloc_in_callee, "x"), malloc_in_callee, In<double>{5}, 4);
  check("malloc_in_branch_4", adjoint::gradient(malloc_in_branch, "x"), malloc_in_branch, Scalar<double>{}, 4);
  check("malloc_in_branch_1", adjoint::gradient(malloc_in_branch, "x"), malloc_in_branch, Scalar<double>{}, 1);
}
TEST(HeapArrays, memset_zero_fill) {
  check("memset_zero", adjoint::gradient(memset_zero, "x"), memset_zero, Scalar<double>{}, 5);
}
TEST(HeapArrays, realloc_from_null) {
  check("realloc_from_null", adjoint::gradient(realloc_from_null, "x"), realloc_from_null, Scalar<double>{}, 5);
}
TEST(HeapArrays, realloc_grow_shrink) {
  check("realloc_grow_shrink", adjoint::gradient(realloc_grow_shrink, "x"), realloc_grow_shrink, Scalar<double>{}, 5);
}
TEST(HeapArrays, heap_structs) {
  check("heap_structs", adjoint::gradient(heap_structs, "x"), heap_structs, Scalar<double>{}, 4);
}
TEST(HeapArrays, c_floats) { check("c_floats", adjoint::gradient(c_floats, "x"), c_floats, Scalar<float>{}, 3); }

}  // namespace heap_arrays
