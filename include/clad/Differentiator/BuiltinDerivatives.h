#pragma once
// The derivatives of standard math functions Clad's own header provides for custom derivatives to
// call: clad::custom_derivatives::std::f_pushforward(x, d_x) is {f(x), f'(x) d_x} (pow takes the
// exponent and its tangent too). adjc differentiates these functions itself; this is for user
// code written against Clad. Inside namespace clad::custom_derivatives, `std::` names this
// namespace (as with Clad): write `::std::` for the standard library there.
#include <cmath>

#include "clad/Differentiator/Tape.h"

namespace clad::custom_derivatives::std {

template <class T>
ValueAndPushforward<T, T> sin_pushforward(T x, T d_x) {
  return {::std::sin(x), ::std::cos(x) * d_x};
}
template <class T>
ValueAndPushforward<T, T> cos_pushforward(T x, T d_x) {
  return {::std::cos(x), -::std::sin(x) * d_x};
}
template <class T>
ValueAndPushforward<T, T> tan_pushforward(T x, T d_x) {
  const T c = ::std::cos(x);
  return {::std::tan(x), d_x / (c * c)};
}
template <class T>
ValueAndPushforward<T, T> exp_pushforward(T x, T d_x) {
  const T e = ::std::exp(x);
  return {e, e * d_x};
}
template <class T>
ValueAndPushforward<T, T> log_pushforward(T x, T d_x) {
  return {::std::log(x), d_x / x};
}
template <class T>
ValueAndPushforward<T, T> sqrt_pushforward(T x, T d_x) {
  const T s = ::std::sqrt(x);
  return {s, d_x / (2 * s)};
}
template <class T>
ValueAndPushforward<T, T> tanh_pushforward(T x, T d_x) {
  const T t = ::std::tanh(x);
  return {t, (1 - t * t) * d_x};
}
template <class T>
ValueAndPushforward<T, T> atan_pushforward(T x, T d_x) {
  return {::std::atan(x), d_x / (1 + x * x)};
}

// d(x^e) = e x^(e-1) dx + x^e ln(x) de; the second term only where it is defined (x > 0) or needed.
template <class T, class E>
auto pow_pushforward(T x, E exponent, T d_x, E d_exponent)
    -> ValueAndPushforward<decltype(::std::pow(x, exponent)), decltype(::std::pow(x, exponent))> {
  using R = decltype(::std::pow(x, exponent));
  const R value = ::std::pow(x, exponent);
  R derivative = R(exponent) * ::std::pow(x, exponent - E(1)) * R(d_x);
  if (d_exponent != E(0) && x > T(0)) derivative += value * ::std::log(R(x)) * R(d_exponent);
  return {value, derivative};
}

// std::max and std::min with a comparison (adjc differentiates the two-argument forms itself): the
// seed goes to the argument returned, the first on a tie as the standard picks it (adjc passes
// nullptr for the adjoint of an argument that is a constant to the derivative).
template <class T, class Compare>
void max_pullback(const T& a, const T& b, Compare comp, T d_y, T* d_a, T* d_b, Compare*) {
  if (T* d = comp(a, b) ? d_b : d_a) *d += d_y;
}
template <class T, class Compare>
void min_pullback(const T& a, const T& b, Compare comp, T d_y, T* d_a, T* d_b, Compare*) {
  if (T* d = comp(b, a) ? d_b : d_a) *d += d_y;
}

}  // namespace clad::custom_derivatives::std
