// The macros Clad's test files take from their ../TestUtils.h (INIT_GRADIENT, TEST_GRADIENT, ...),
// written for measure.py so that Clad's tests run unchanged through adjc++: TEST_GRADIENT zeroes
// the last n arguments (the adjoints), calls execute and prints them as {a, b, ...} with %.2f (a
// pair or a complex number as its two parts, another class by the test's own print()).
#ifndef HARNESS_TEST_UTILS_H
#define HARNESS_TEST_UTILS_H
#include "clad/Differentiator/ArrayRef.h"
#include <complex>
#include <cstdio>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
namespace test_utils {
inline void show() {}
// A number as the harness prints it (test files call test_utils::print for their elements).
inline void print(double d) { printf("%.2f", d); }
inline void show_one(const char* s) { printf("%s", s); }
inline void show_one(double d) { printf("%.2f", d); }
inline void show_one(float d) { printf("%.2f", d); }
inline void show_one(long double d) { printf("%.2Lf", d); }
inline void show_one(int i) { printf("%d", i); }
template <class A, class B> void show_one(const std::pair<A, B>& p) { show_one(p.first); printf(", "); show_one(p.second); }
template <class T> void show_one(const std::complex<T>& c) { show_one(c.real()); printf(", "); show_one(c.imag()); }
// Another class: the test's own print(const T&), found by ADL, as Clad's harness prints it.
template <class T> requires std::is_class_v<T> void show_one(const T& v) { print(v); }
template <class T> void show_one(T* p) { show_one(*p); }
template <class T> void show_one(clad::array_ref<T> a) {
  for (std::size_t i = 0; i < a.size(); ++i) { show_one(a[i]); if (i + 1 != a.size()) printf(", "); }
}
template <class A, class... R> void show(A a, R... r) {
  show_one(a);
  if (sizeof...(R)) printf(", ");
  show(r...);
}
template <class... A> void display(A... a) { printf("{"); show(a...); printf("}\n"); }
template <class T> void zero(T* p) { *p = T(); }
template <class T> void zero(clad::array_ref<T> a) { for (std::size_t i = 0; i < a.size(); ++i) a[i] = T(); }
template <class T> void zero(T&) {}
template <std::size_t N, class CF, class... A> void run_gradient(CF cf, A&&... a) {
  std::tuple<A...> t{a...};
  constexpr std::size_t first = sizeof...(A) - N;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (zero(std::get<first + I>(t)), ...);
    cf.execute(a...);
    display(std::get<first + I>(t)...);
  }(std::make_index_sequence<N>{});
}
// Hessians and Jacobians: the last argument is the matrix (n entries), zeroed, filled by execute,
// then printed.
template <class T> void zero_n(T* p, std::size_t n) { for (std::size_t i = 0; i < n; ++i) p[i] = T(); }
template <class T> void zero_n(clad::array_ref<T> a, std::size_t) { zero(a); }
template <class T> void display_n(T* p, std::size_t n) { display(clad::array_ref<T>(p, n)); }
template <class T> void display_n(clad::array_ref<T> a, std::size_t) { display(a); }
template <std::size_t Entries, class CF, class... A> void run_matrix(CF cf, A&&... a) {
  auto&& matrix = std::get<sizeof...(A) - 1>(std::forward_as_tuple(a...));
  zero_n(matrix, Entries);
  cf.execute(a...);
  display_n(matrix, Entries);
}
}  // namespace test_utils
#define INIT_GRADIENT_ALL(fn) auto fn##_grad = clad::gradient(fn);
#define INIT_GRADIENT_SPECIFIC(fn, args) auto fn##_grad = clad::gradient(fn, args);
#define GET_MACRO(_1, _2, MACRO, ...) MACRO
#define INIT_GRADIENT(...) GET_MACRO(__VA_ARGS__, INIT_GRADIENT_SPECIFIC, INIT_GRADIENT_ALL)(__VA_ARGS__)
#define TEST_GRADIENT(fn, n, ...) test_utils::run_gradient<n>(fn##_grad, __VA_ARGS__);
#define INIT_DIFFERENTIATE(fn, ...) auto fn##_diff = clad::differentiate(fn, __VA_ARGS__);
#define TEST_DIFFERENTIATE(fn, ...) test_utils::display(fn##_diff.execute(__VA_ARGS__));
#define INIT_HESSIAN(...) GET_MACRO(__VA_ARGS__, INIT_HESSIAN_SPECIFIC, INIT_HESSIAN_ALL)(__VA_ARGS__)
#define INIT_HESSIAN_ALL(fn) auto fn##_hessian = clad::hessian(fn);
#define INIT_HESSIAN_SPECIFIC(fn, args) auto fn##_hessian = clad::hessian(fn, args);
#define TEST_HESSIAN(fn, n, ...) test_utils::run_matrix<0>(fn##_hessian, __VA_ARGS__);
#define INIT_JACOBIAN(fn) auto fn##_jac = clad::jacobian(fn);
#define TEST_JACOBIAN(fn, n, entries, ...) test_utils::run_matrix<entries>(fn##_jac, __VA_ARGS__);
#endif
