#pragma once
// Clad's numerical fallback: a call of a function without a body (its definition is in another
// unit or a library) and without a custom pullback is differentiated by central differences, as
// Clad does. adjc calls central_difference_pullback<&f, R, A...> where it would call f's
// pullback, for f whose parameters and result are floating scalars; any other such call stays
// an error. Defining CLAD_NO_NUM_DIFF (Clad's opt-out) leaves this header out, and every call
// without a body is an error again.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <tuple>
#include <utility>

namespace clad::numerical_diff {

namespace detail {

// The step for argument x: the cube root of the type's epsilon balances the O(h²) truncation
// error of a central difference against the rounding error of f's values divided by h.
template <class T>
T step(T x) {
  return std::cbrt(std::numeric_limits<T>::epsilon()) * std::max(T(1), std::fabs(x));
}

template <bool Moved, class V, class T>
V shifted(V v, T by) {
  if constexpr (Moved) return static_cast<V>(v + by);
  else return v;
}

// ∂F/∂(argument I) at `args`, by a central difference over the step the arguments really moved.
template <auto F, std::size_t I, std::size_t... K, class... A>
auto partial(std::index_sequence<K...>, A... args) {
  using T = std::tuple_element_t<I, std::tuple<A...>>;
  const T x = std::get<I>(std::tuple<A...>(args...));
  const T h = step(x);
  const T up = x + h, down = x - h;
  const auto f_up = F(shifted<K == I>(args, up - x)...);
  const auto f_down = F(shifted<K == I>(args, down - x)...);
  return (f_up - f_down) / (up - down);
}

template <auto F, class R, std::size_t... K, class... A, class... D>
void add_partials(std::index_sequence<K...> all, R d_result, std::tuple<A...> args, D*... d_args) {
  auto add = [&](auto index, auto* d) {
    // A parameter the call does not differentiate may get no adjoint.
    if (d) *d += d_result * std::apply([&](auto... a) { return partial<F, decltype(index)::value>(all, a...); }, args);
  };
  (add(std::integral_constant<std::size_t, K>{}, d_args), ...);
}

}  // namespace detail

// Adds d_result · ∂F/∂argᵢ to *d_args[i] for each argument (Clad's pullback signature: the
// arguments, the result's adjoint, then a pointer to each argument's adjoint).
template <auto F, class R, class... A>
void central_difference_pullback(A... args, R d_result, A*... d_args) {
  detail::add_partials<F>(std::index_sequence_for<A...>{}, d_result, std::tuple<A...>(args...), d_args...);
}

}  // namespace clad::numerical_diff
