#pragma once
// Vector forward mode: the tangent of one value along N directions at once, what adjc's vector-mode
// pushforwards compute with (docs/adjc.md, "Vector forward mode"). A fixed-size array with
// element-wise arithmetic, so that the compiler keeps it in SIMD registers. Included by
// adjoint/ad.hpp.
#include <type_traits>

namespace adjoint {

template <class T, int N>
struct tangent_vector;

namespace detail {
// Whether every value of U is one of T (float to double): the conversion a mixed expression makes.
template <class U, class T>
constexpr bool widens = std::is_floating_point_v<U>&& std::is_floating_point_v<T> && sizeof(U) <= sizeof(T);
}  // namespace detail

template <class T, int N>
struct tangent_vector {
  T lane[N];

  tangent_vector() : lane{} {}
  // Every direction `value`: generated code writes a zero tangent as `0.`.
  tangent_vector(T value) {
    for (int i = 0; i < N; ++i) lane[i] = value;
  }
  // Tangents of different element types mix as their scalars do (a float parameter's tangent into
  // a double output): a widening conversion is implicit, so that `c ? float_tangent :
  // double_tangent` has one type; a narrowing one is explicit, or an assignment, as `float y = d;`.
  template <class U>
  requires(!std::is_same_v<U, T>) explicit(!detail::widens<U, T>) tangent_vector(const tangent_vector<U, N>& o) {
    for (int i = 0; i < N; ++i) lane[i] = T(o.lane[i]);
  }
  template <class U>
  requires(!std::is_same_v<U, T>) tangent_vector& operator=(const tangent_vector<U, N>& o) {
    return *this = tangent_vector(o);
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
  template <class U>
  requires(!std::is_same_v<U, T>) tangent_vector& operator+=(const tangent_vector<U, N>& o) {
    return *this += tangent_vector(o);
  }
  template <class U>
  requires(!std::is_same_v<U, T>) tangent_vector& operator-=(const tangent_vector<U, N>& o) {
    return *this -= tangent_vector(o);
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
  // Of mixed element types, in the wider one (as float + double is a double).
  template <class U>
  requires(!std::is_same_v<U, T>) friend auto operator+(const tangent_vector& a, const tangent_vector<U, N>& b) {
    return tangent_vector<std::common_type_t<T, U>, N>(a) += b;
  }
  template <class U>
  requires(!std::is_same_v<U, T>) friend auto operator-(const tangent_vector& a, const tangent_vector<U, N>& b) {
    return tangent_vector<std::common_type_t<T, U>, N>(a) -= b;
  }
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
