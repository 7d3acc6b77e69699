#pragma once
// adjoint/complex.hpp: std::complex<double> and std::complex<float> in code adjc differentiates
// (docs/adjc.md, "std::complex"). adjoint/ad.hpp includes it when <complex> was included first;
// adjc adds it after the unit otherwise.
//
// std::complex<T> is a value class to adjc: the adjoint of a complex z = x + iy is the complex
// dL/dx + i dL/dy, and everything done to complex values is a call with a custom pullback below.
// For a holomorphic w = f(z) the adjoint flows back as d_z += d_w * conj(f'(z)).

#include <cmath>
#include <complex>

namespace std {
// Makes std::complex<T> a value class (its adjoint is a complex too). Declared in std, where the
// generated code's unqualified call finds it by argument-dependent lookup.
inline void accumulate_adjoint(complex<double>& into, const complex<double>& from) { into += from; }
inline void accumulate_adjoint(complex<float>& into, const complex<float>& from) { into += from; }
}  // namespace std

namespace adjoint::complex_ops {

// What adjc makes of `std::complex<T> c(re, im)`, `c{re}`, a number converted to a complex and
// `c = x`; and of the updates in place `c += z` (complex_sum(c, z)), `-=`, `*=`, `/=`,
// `c.real(v)` (complex_with_real(c, v)) and `c.imag(v)`, each of which it assigns to c
// (adjc/complex_numbers.cpp). Overloads, not templates: adjc calls them by their declarations.
#define ADJOINT_COMPLEX_OPS(T)                                                                                    \
  inline std::complex<T> complex_from_parts(T re, T im) { return {re, im}; }                                      \
  inline std::complex<T> complex_sum(const std::complex<T>& a, const std::complex<T>& b) { return a + b; }        \
  inline std::complex<T> complex_sum(const std::complex<T>& a, const T& b) { return a + b; }                      \
  inline std::complex<T> complex_difference(const std::complex<T>& a, const std::complex<T>& b) { return a - b; } \
  inline std::complex<T> complex_difference(const std::complex<T>& a, const T& b) { return a - b; }               \
  inline std::complex<T> complex_product(const std::complex<T>& a, const std::complex<T>& b) { return a * b; }    \
  inline std::complex<T> complex_product(const std::complex<T>& a, const T& b) { return a * b; }                  \
  inline std::complex<T> complex_quotient(const std::complex<T>& a, const std::complex<T>& b) { return a / b; }   \
  inline std::complex<T> complex_quotient(const std::complex<T>& a, const T& b) { return a / b; }                 \
  inline std::complex<T> complex_with_real(const std::complex<T>& a, const T& re) { return {re, a.imag()}; }      \
  inline std::complex<T> complex_with_imag(const std::complex<T>& a, const T& im) { return {a.real(), im}; }
ADJOINT_COMPLEX_OPS(double)
ADJOINT_COMPLEX_OPS(float)
#undef ADJOINT_COMPLEX_OPS

// The adjoint arithmetic the pullbacks share; `d_x == nullptr` means "not differentiated".
template <class T>
void add_complex(std::complex<T>* d_x, std::complex<T> v) {
  if (d_x) *d_x += v;
}
template <class T>
void add_real(T* d_x, T v) {
  if (d_x) *d_x += v;
}
}  // namespace adjoint::complex_ops

// The pullbacks of `update` (a complex_ops function of `c op z`), those of the operator `op`.
#define ADJOINT_COMPLEX_UPDATE_PULLBACKS(T, update, op)                                                          \
  inline void update##_pullback(const complex_##T& a, const complex_##T& b, complex_##T d, complex_##T* d_a,    \
                                complex_##T* d_b) {                                                             \
    op##_pullback(a, b, d, d_a, d_b);                                                                           \
  }                                                                                                             \
  inline void update##_pullback(const complex_##T& a, const T& b, complex_##T d, complex_##T* d_a, T* d_b) {    \
    op##_pullback(a, b, d, d_a, d_b);                                                                           \
  }

// The pullbacks of one element type T, for float and double (adjc finds custom pullbacks by name
// and parameter types, so they cannot be templates).
#define ADJOINT_COMPLEX_PULLBACKS(T)                                                                              \
  namespace adjoint::custom_derivatives {                                                                         \
  using complex_##T = std::complex<T>;                                                                                  \
  inline void complex_from_parts_pullback(T, T, complex_##T d, T* d_re, T* d_im) {                                      \
    complex_ops::add_real(d_re, d.real());                                                                        \
    complex_ops::add_real(d_im, d.imag());                                                                        \
  }                                                                                                               \
  inline void operator_plus_pullback(const complex_##T&, const complex_##T&, complex_##T d, complex_##T* d_a, complex_##T* d_b) {              \
    complex_ops::add_complex(d_a, d);                                                                             \
    complex_ops::add_complex(d_b, d);                                                                             \
  }                                                                                                               \
  inline void operator_plus_pullback(const complex_##T&, const T&, complex_##T d, complex_##T* d_a, T* d_b) {                       \
    complex_ops::add_complex(d_a, d);                                                                             \
    complex_ops::add_real(d_b, d.real());                                                                         \
  }                                                                                                               \
  inline void operator_plus_pullback(const T&, const complex_##T&, complex_##T d, T* d_a, complex_##T* d_b) {                       \
    complex_ops::add_real(d_a, d.real());                                                                         \
    complex_ops::add_complex(d_b, d);                                                                             \
  }                                                                                                               \
  inline void operator_plus_pullback(const complex_##T&, complex_##T d, complex_##T* d_a) { complex_ops::add_complex(d_a, d); }     \
  inline void operator_minus_pullback(const complex_##T&, const complex_##T&, complex_##T d, complex_##T* d_a, complex_##T* d_b) {             \
    complex_ops::add_complex(d_a, d);                                                                             \
    complex_ops::add_complex(d_b, -d);                                                                            \
  }                                                                                                               \
  inline void operator_minus_pullback(const complex_##T&, const T&, complex_##T d, complex_##T* d_a, T* d_b) {                      \
    complex_ops::add_complex(d_a, d);                                                                             \
    complex_ops::add_real(d_b, -d.real());                                                                        \
  }                                                                                                               \
  inline void operator_minus_pullback(const T&, const complex_##T&, complex_##T d, T* d_a, complex_##T* d_b) {                      \
    complex_ops::add_real(d_a, d.real());                                                                         \
    complex_ops::add_complex(d_b, -d);                                                                            \
  }                                                                                                               \
  inline void operator_minus_pullback(const complex_##T&, complex_##T d, complex_##T* d_a) { complex_ops::add_complex(d_a, -d); }   \
  inline void operator_star_pullback(const complex_##T& a, const complex_##T& b, complex_##T d, complex_##T* d_a, complex_##T* d_b) {          \
    complex_ops::add_complex(d_a, d * std::conj(b));                                                              \
    complex_ops::add_complex(d_b, d * std::conj(a));                                                              \
  }                                                                                                               \
  inline void operator_star_pullback(const complex_##T& a, const T& b, complex_##T d, complex_##T* d_a, T* d_b) {                   \
    complex_ops::add_complex(d_a, d * b);                                                                         \
    complex_ops::add_real(d_b, (d * std::conj(a)).real());                                                        \
  }                                                                                                               \
  inline void operator_star_pullback(const T& a, const complex_##T& b, complex_##T d, T* d_a, complex_##T* d_b) {                   \
    complex_ops::add_real(d_a, (d * std::conj(b)).real());                                                        \
    complex_ops::add_complex(d_b, d * a);                                                                         \
  }                                                                                                               \
  inline void operator_slash_pullback(const complex_##T& a, const complex_##T& b, complex_##T d, complex_##T* d_a, complex_##T* d_b) {         \
    complex_ops::add_complex(d_a, d / std::conj(b));                                                              \
    complex_ops::add_complex(d_b, -d * std::conj(a / (b * b)));                                                   \
  }                                                                                                               \
  inline void operator_slash_pullback(const complex_##T& a, const T& b, complex_##T d, complex_##T* d_a, T* d_b) {                  \
    complex_ops::add_complex(d_a, d / b);                                                                         \
    complex_ops::add_real(d_b, -(d * std::conj(a)).real() / (b * b));                                            \
  }                                                                                                               \
  inline void operator_slash_pullback(const T& a, const complex_##T& b, complex_##T d, T* d_a, complex_##T* d_b) {                  \
    complex_ops::add_real(d_a, (d / std::conj(b)).real());                                                        \
    complex_ops::add_complex(d_b, -d * std::conj(a / (b * b)));                                                   \
  }                                                                                                               \
  /* The updates in place are the operators' values (complex_ops above). */                                       \
  ADJOINT_COMPLEX_UPDATE_PULLBACKS(T, complex_sum, operator_plus)                                                 \
  ADJOINT_COMPLEX_UPDATE_PULLBACKS(T, complex_difference, operator_minus)                                         \
  ADJOINT_COMPLEX_UPDATE_PULLBACKS(T, complex_product, operator_star)                                             \
  ADJOINT_COMPLEX_UPDATE_PULLBACKS(T, complex_quotient, operator_slash)                                           \
  inline void complex_with_real_pullback(const complex_##T&, const T&, complex_##T d, complex_##T* d_a, T* d_re) {                  \
    complex_ops::add_complex(d_a, complex_##T(0, d.imag()));                                                            \
    complex_ops::add_real(d_re, d.real());                                                                        \
  }                                                                                                               \
  inline void complex_with_imag_pullback(const complex_##T&, const T&, complex_##T d, complex_##T* d_a, T* d_im) {                  \
    complex_ops::add_complex(d_a, complex_##T(d.real(), 0));                                                            \
    complex_ops::add_real(d_im, d.imag());                                                                        \
  }                                                                                                               \
  inline void real_pullback(const complex_##T&, T d, complex_##T* d_z) { complex_ops::add_complex(d_z, complex_##T(d, 0)); }        \
  inline void imag_pullback(const complex_##T&, T d, complex_##T* d_z) { complex_ops::add_complex(d_z, complex_##T(0, d)); }        \
  /* |z| is not differentiable at 0: adjc gives 0 there. */                                                       \
  inline void abs_pullback(const complex_##T& z, T d, complex_##T* d_z) {                                                     \
    T r = std::abs(z);                                                                                            \
    if (r != 0) complex_ops::add_complex(d_z, z * (d / r));                                                       \
  }                                                                                                               \
  inline void norm_pullback(const complex_##T& z, T d, complex_##T* d_z) { complex_ops::add_complex(d_z, z * (2 * d)); }      \
  /* arg z = atan2(im, re): d/dre = -im / |z|^2, d/dim = re / |z|^2; not differentiable at 0 (gives 0). */        \
  inline void arg_pullback(const complex_##T& z, T d, complex_##T* d_z) {                                                     \
    T n = std::norm(z);                                                                                           \
    if (n != 0) complex_ops::add_complex(d_z, complex_##T(-z.imag(), z.real()) * (d / n));                              \
  }                                                                                                               \
  inline void conj_pullback(const complex_##T&, complex_##T d, complex_##T* d_z) { complex_ops::add_complex(d_z, std::conj(d)); }   \
  inline void exp_pullback(const complex_##T& z, complex_##T d, complex_##T* d_z) {                                                 \
    complex_ops::add_complex(d_z, d * std::conj(std::exp(z)));                                                    \
  }                                                                                                               \
  inline void log_pullback(const complex_##T& z, complex_##T d, complex_##T* d_z) { complex_ops::add_complex(d_z, d / std::conj(z)); } \
  inline void sqrt_pullback(const complex_##T& z, complex_##T d, complex_##T* d_z) {                                               \
    complex_ops::add_complex(d_z, d / std::conj(T(2) * std::sqrt(z)));                                            \
  }                                                                                                               \
  /* polar(r, t) = r e^{it}: dw/dr = e^{it}, dw/dt = i w. */                                                      \
  inline void polar_pullback(const T& r, const T& t, complex_##T d, T* d_r, T* d_t) {                                   \
    complex_##T unit = std::polar(T(1), t);                                                                             \
    complex_ops::add_real(d_r, (d * std::conj(unit)).real());                                                     \
    complex_ops::add_real(d_t, (d * std::conj(complex_##T(0, 1) * r * unit)).real());                                   \
  }                                                                                                               \
  }                                                                                                               \
  namespace adjoint::custom_derivatives::class_functions {                                                        \
  inline void real_pullback(const std::complex<T>*, T d, std::complex<T>* d_self) {                               \
    complex_ops::add_complex(d_self, std::complex<T>(d, 0));                                                      \
  }                                                                                                               \
  inline void imag_pullback(const std::complex<T>*, T d, std::complex<T>* d_self) {                               \
    complex_ops::add_complex(d_self, std::complex<T>(0, d));                                                      \
  }                                                                                                               \
  }

ADJOINT_COMPLEX_PULLBACKS(double)
ADJOINT_COMPLEX_PULLBACKS(float)
#undef ADJOINT_COMPLEX_PULLBACKS
#undef ADJOINT_COMPLEX_UPDATE_PULLBACKS
