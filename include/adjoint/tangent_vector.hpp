#pragma once
// Vector forward mode: the tangent of one value along N directions at once, what adjc's vector-mode
// pushforwards compute with (docs/adjc.md, "Vector forward mode"). A fixed-size array with
// element-wise arithmetic, so that the compiler keeps it in SIMD registers. Included by
// adjoint/ad.hpp.
#include <type_traits>

namespace adjoint {

template <class T, int N>
struct tangent_vector {
  T lane[N];

  tangent_vector() : lane{} {}
  // Every direction `value`: generated code writes a zero tangent as `0.`.
  tangent_vector(T value) {
    for (int i = 0; i < N; ++i) lane[i] = value;
  }
  T& operator[](int i) { return lane[i]; }
  const T& operator[](int i) const { return lane[i]; }

  tangent_vector& operator+=(const tangent_vector& o) {
    for (int i = 0; i < N; ++i) lane[i] += o.lane[i];
    return *this;
  }
  tangent_vector& operator-=(const tangent_vector& o) {
    for (int i = 0; i < N; ++i) lane[i] -= o.lane[i];
    return *this;
  }
  template <class S>
  requires std::is_arithmetic_v<S> tangent_vector& operator*=(S s) {
    for (int i = 0; i < N; ++i) lane[i] *= T(s);
    return *this;
  }
  template <class S>
  requires std::is_arithmetic_v<S> tangent_vector& operator/=(S s) {
    for (int i = 0; i < N; ++i) lane[i] /= T(s);
    return *this;
  }
  friend tangent_vector operator+(tangent_vector a, const tangent_vector& b) { return a += b; }
  friend tangent_vector operator-(tangent_vector a, const tangent_vector& b) { return a -= b; }
  friend tangent_vector operator-(tangent_vector a) { return a *= -1; }
  friend tangent_vector operator+(const tangent_vector& a) { return a; }
  template <class S>
  requires std::is_arithmetic_v<S>
  friend tangent_vector operator*(tangent_vector a, S s) { return a *= s; }
  template <class S>
  requires std::is_arithmetic_v<S>
  friend tangent_vector operator*(S s, tangent_vector a) { return a *= s; }
  template <class S>
  requires std::is_arithmetic_v<S>
  friend tangent_vector operator/(tangent_vector a, S s) { return a /= s; }
};

}  // namespace adjoint
