// Gradient requests through function pointers, parentheses and casts, and functions returning a
// pointer into their pointer argument's array (Clad's Gradient/Pointers.C kinds).
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double nonMemFn(double i) { return i * i; }

double* ptrValFn(double* x, int n) {
  x += n;
  return x;
}
double nestedPtrFn(double x, double y) {
  double arr[] = {x, y};
  double* z = ptrValFn(arr, 1);
  return *z;
}

const double* skip(const double* a, int k) { return a + k; }
double weighted(const double* a, double w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += *skip(a, i) * w * skip(a, 1)[i % 2];
  return s;
}

#define NON_MEM_FN_TEST(g, name)                                                  \
  {                                                                               \
    double i = 5, di = 0;                                                         \
    (g).execute(i, &di);                                                          \
    expect_gradient(name, di, i, [&] { return nonMemFn(i); });                    \
  }

int main() {
  auto nonMemFnPtr = &nonMemFn;
  auto nonMemFnPtrToPtr = &nonMemFnPtr;
  auto nonMemFnPtrToPtrToPtr = &nonMemFnPtrToPtr;
  auto nonMemFnIndirectPtr = nonMemFnPtr;
  auto nonMemFnIndirectIndirectPtr = nonMemFnIndirectPtr;

  NON_MEM_FN_TEST(adjoint::gradient(nonMemFn, "i"), "d nonMemFn");
  NON_MEM_FN_TEST(adjoint::gradient((nonMemFn), "i"), "d (nonMemFn)");
  NON_MEM_FN_TEST(adjoint::gradient(nonMemFnPtr, "i"), "d nonMemFnPtr");
  NON_MEM_FN_TEST(adjoint::gradient(*nonMemFnPtrToPtr, "i"), "d *nonMemFnPtrToPtr");
  NON_MEM_FN_TEST(adjoint::gradient((*(nonMemFnPtrToPtr)), "i"), "d (*(nonMemFnPtrToPtr))");
  NON_MEM_FN_TEST(adjoint::gradient(**&nonMemFnPtrToPtr, "i"), "d **&nonMemFnPtrToPtr");
  NON_MEM_FN_TEST(adjoint::gradient(*(*(&nonMemFnPtrToPtr)), "i"), "d *(*(&nonMemFnPtrToPtr))");
  NON_MEM_FN_TEST(adjoint::gradient(***&nonMemFnPtrToPtrToPtr, "i"), "d ***&nonMemFnPtrToPtrToPtr");
  NON_MEM_FN_TEST(adjoint::gradient(nonMemFnIndirectPtr, "i"), "d nonMemFnIndirectPtr");
  NON_MEM_FN_TEST(adjoint::gradient(nonMemFnIndirectIndirectPtr, "i"), "d nonMemFnIndirectIndirectPtr");
  NON_MEM_FN_TEST(adjoint::gradient(static_cast<decltype(&nonMemFn)>(nonMemFn), "i"), "d static_cast");
  NON_MEM_FN_TEST(adjoint::gradient(reinterpret_cast<decltype(&nonMemFn)>(nonMemFn), "i"), "d reinterpret_cast");
  NON_MEM_FN_TEST(adjoint::gradient((decltype(&nonMemFn))(nonMemFn), "i"), "d C-style cast");

  double x = 2, y = 3;
  clad_style::expect_gradients("d nestedPtrFn", nestedPtrFn, adjoint::gradient(nestedPtrFn), x, y);

  double a[3] = {0.5, -1.5, 2.0}, w = 0.7, da[3] = {}, dw = 0;
  adjoint::gradient(weighted).execute(a, w, 3, da, &dw);
  for (int i = 0; i < 3; i++) expect_gradient("d weighted / da[i]", da[i], a[i], [&] { return weighted(a, w, 3); });
  expect_gradient("d weighted / dw", dw, w, [&] { return weighted(a, w, 3); });
  return clad_style::report();
}
