// Corpus: gradient requests through function pointers (parentheses, pointers to them, casts), and
// functions returning a pointer into the array a pointer argument points to (docs/adjc.md,
// "Function pointers" and "Pointers returned by functions").
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

double requested(double i) { return i * i * std::sin(i); }
double decoy(double i) { return 3 * i; }  // the same type: a request resolved to it fails the check

TEST(PointerRequests, spellings) {
  auto fp = &requested;
  auto fpp = &fp;
  auto fppp = &fpp;
  auto p2 = fp;
  auto p3 = p2;
  double (*const fixed)(double) = requested;
  auto other = &decoy;  // never requested
  (void)other;
  check("(f)", adjoint::gradient((requested), "i"), requested, Scalar<double>{});
  check("fp", adjoint::gradient(fp, "i"), requested, Scalar<double>{});
  check("*fpp", adjoint::gradient(*fpp, "i"), requested, Scalar<double>{});
  check("(*(fpp))", adjoint::gradient((*(fpp)), "i"), requested, Scalar<double>{});
  check("**&fpp", adjoint::gradient(**&fpp, "i"), requested, Scalar<double>{});
  check("*(*(&fpp))", adjoint::gradient(*(*(&fpp)), "i"), requested, Scalar<double>{});
  check("***&fppp", adjoint::gradient(***&fppp, "i"), requested, Scalar<double>{});
  check("p3", adjoint::gradient(p3, "i"), requested, Scalar<double>{});
  check("fixed", adjoint::gradient(fixed, "i"), requested, Scalar<double>{});
  check("static_cast", adjoint::gradient(static_cast<decltype(&requested)>(requested), "i"), requested,
        Scalar<double>{});
  check("reinterpret_cast", adjoint::gradient(reinterpret_cast<decltype(&requested)>(requested), "i"), requested,
        Scalar<double>{});
  check("C cast", adjoint::gradient((decltype(&requested))(requested), "i"), requested, Scalar<double>{});
}

#define GRADIENT_OF(f) adjoint::gradient(f, "i")
#define AS_IS(request) request
TEST(PointerRequests, in_macros) {
  auto fp = &requested;
  auto fpp = &fp;
  check("macro body", GRADIENT_OF(*fpp), requested, Scalar<double>{});
  check("macro argument", AS_IS(adjoint::gradient(fp, "i")), requested, Scalar<double>{});
}

// Calls through function pointers (and pointers to them) inside a differentiated body.
double through_pointers(double x, double y) {
  auto fp = &requested;
  auto fpp = &fp;
  auto copy = *fpp;
  return (*fpp)(x) * y + (**fpp)(y) + copy(x * y);
}
TEST(PointerRequests, in_bodies) {
  check("through_pointers", adjoint::gradient(through_pointers), through_pointers, Scalar<double>{},
        Scalar<double>{});
}

// Functions returning a pointer into their argument's array.
double* ptrValFn(double* x, int n) {
  x += n;
  return x;
}
double nestedPtrFn(double x, double y) {
  double arr[] = {x, y};
  double* z = ptrValFn(arr, 1);
  return *z;
}
TEST(PointerResults, nested) {
  double dx = 0, dy = 0;
  adjoint::gradient(nestedPtrFn).execute(2.0, 3.0, &dx, &dy);
  EXPECT_EQ(dx, 0.0);
  EXPECT_EQ(dy, 1.0);
  check("nestedPtrFn", adjoint::gradient(nestedPtrFn), nestedPtrFn, Scalar<double>{}, Scalar<double>{});
}

double* advance(double* p, int k) { return p + k; }
double advanced_sum(double* x, double w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += *advance(x, i) * w * x[(i + 1) % n];
  return s;
}
TEST(PointerResults, in_a_loop) {
  check("advanced_sum", adjoint::gradient(advanced_sum, "x,w"), advanced_sum, In<double>{5}, Scalar<double>{}, 5);
}

// A local pointer moved several times: `p + n - 1`.
const double* wander(const double* p, int n) {
  const double* q = p + 1;
  q += n;
  ++q;
  q = q - 2;
  --q;
  return q;
}
const double* skip(const double* a, int k) { return a + k; }
const double* clamped(const double* a, int k, int n) { return k < n ? a + k : &a[n - 1]; }
double reads(const double* a, int k) {
  double s = *wander(a, k) * *skip(a, k);
  for (int j = 0; j < 3; ++j) s += std::sin(skip(a, 1)[j]) * *clamped(a, j + 2, 4);
  return s + *skip(skip(a, 1), 2) * a[0];
}
TEST(PointerResults, reads) { check("reads", adjoint::gradient(reads, "a"), reads, In<double>{5}, 2); }

// The result kept in a local pointer while what the offset was computed from changes: the pointer
// keeps the offset of its definition (in the forward and in the reverse).
double changed_later(const double* x, int n) {
  int k = 1;
  const double* p = x;
  const double* z = skip(p, k);
  k = 3;
  p += 2;
  double s = *z * *p * x[k];
  p = skip(p, 1);
  s += *z * *p;
  for (int i = 0; i < n; ++i) {
    const double* row = skip(x, i);
    k = i + 1;
    s += row[0] * std::cos(z[i % 2]) * x[k];
  }
  return s;
}
TEST(PointerResults, changed_later) {
  check("changed_later", adjoint::gradient(changed_later, "x"), changed_later, In<double>{6}, 4);
}

// Written through: the returned pointer is a place in the output.
void write_through(double* out, const double* x) {
  *advance(out, 1) = x[0] * x[1];
  advance(out, 0)[2] = std::exp(x[2]);
  double* tail = advance(out, 2);
  *tail *= x[0];
}
TEST(PointerResults, write_through) {
  check("write_through", adjoint::gradient(write_through), write_through, Out<double>{3}, In<double>{3});
}

// In a callee that is itself differentiated, and with a local pointer as the argument.
double inner(const double* a) {
  const double* row = a + 1;
  return *skip(row, 1) * a[0] + skip(row, 0)[2];
}
double outer(const double* a, double w) { return inner(a) * w + inner(a + 1); }
TEST(PointerResults, in_callee) {
  check("outer", adjoint::gradient(outer), outer, In<double>{5}, Scalar<double>{});
}

const float* skipf(const float* a, int k) { return a + k; }
float floats(const float* a, float w) { return *skipf(a, 2) * w + skipf(a, 0)[1] * skipf(a, 1)[1]; }
TEST(PointerResults, floats) { check("floats", adjoint::gradient(floats), floats, In<float>{3}, Scalar<float>{}); }
