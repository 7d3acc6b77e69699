#pragma once
// Forward (tangent) mode: what adjoint::derivative returns, and the value-and-tangent pair the
// generated pushforwards return (docs/adjc.md, "Forward mode: adjoint::derivative"). Included by
// adjoint/ad.hpp.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>

#include "adjoint/unit_direction.hpp"

namespace adjoint {

// What a pushforward returns: the function's value and its tangent (Clad's ValueAndPushforward).
template <class T, class U = T>
struct value_and_pushforward {
  T value;
  U pushforward;
};

namespace detail {
// The element a derivative request names of a std::vector parameter (`"v[2]"`), checked against the
// vector's size when the derivative runs.
inline void check_element(long element, std::size_t size, const char* name) {
  if (element >= 0 && std::size_t(element) < size) return;
  std::fprintf(stderr, "adjoint::derivative: element %ld of '%s' is beyond its size %zu\n", element, name, size);
  std::exit(1);
}
// The type of a function pointer's first parameter (a member function's derivative: its object).
template <class F>
struct first_parameter {
  using type = void*;
};
template <class R, class P, class... A>
struct first_parameter<R (*)(P, A...)> {
  using type = P;
};
template <class R, class P, class... A>
struct first_parameter<R (*)(P, A...) noexcept> {
  using type = P;
};
template <class R, class P, class... A>
struct first_parameter<R (*)(P, A..., ...)> {
  using type = P;
};
}  // namespace detail

// A generated derivative: `Derivative` is the function adjc generated (resolved at compile time);
// execute takes f's arguments (and, for a whole array, the direction after them) and returns the
// derivative of f's result.
template <auto Derivative>
struct derivative_function {
  const char* generated_source;
  void* object = nullptr;  // a member function's object set by setObject

  template <class... Args>
  auto execute(Args&&... args) const {
    if constexpr (std::is_invocable_v<decltype(Derivative), Args...>) return Derivative(std::forward<Args>(args)...);
    else
      return Derivative(static_cast<typename detail::first_parameter<decltype(Derivative)>::type>(object),
                        std::forward<Args>(args)...);
  }
  // A member function's object (`d.execute(obj, x)`), as Clad's execute takes it.
  template <class Object, class... Args>
  requires(std::is_class_v<std::remove_cvref_t<Object>> &&
           !std::is_invocable_v<decltype(Derivative), Object&&, Args...>) auto execute(Object&& object,
                                                                                       Args&&... args) const {
    return Derivative(&object, std::forward<Args>(args)...);
  }
  // Clad's CladFunction::setObject and clearObject: the object execute uses when not given one.
  template <class Object>
  void setObject(Object* o) {
    object = const_cast<void*>(static_cast<const volatile void*>(o));
  }
  template <class Object>
  requires std::is_class_v<Object>
  void setObject(Object& o) { setObject(&o); }
  void clearObject() { object = nullptr; }
  const char* source() const { return generated_source; }
  // Prints the generated code (Clad's CladFunction::dump).
  void dump() const { std::printf("The code is: \n%s\n", generated_source); }
};

namespace detail {

// What a request returns with leading arguments bound: the function object a request names (its
// address; execute differentiates it as it is when execute runs), or a lambda's captured values
// (its copies, and std::reference_wrappers of what it captures by reference). execute passes them
// ahead of its own arguments, which are what Clad's execute takes.
template <class Request, class... Leading>
struct bound_request {
  Request request;
  std::tuple<Leading...> leading;

  template <class... Args>
  decltype(auto) execute(Args&&... args) const {
    return std::apply(
        [&](const Leading&... l) -> decltype(auto) { return request.execute(l..., std::forward<Args>(args)...); },
        leading);
  }
  // A Jacobian's sweeps chosen (adjoint::jacobian_function).
  template <class... Args>
  void execute_forward(Args&&... args) const {
    std::apply([&](const Leading&... l) { request.execute_forward(l..., std::forward<Args>(args)...); }, leading);
  }
  template <class... Args>
  void execute_reverse(Args&&... args) const {
    std::apply([&](const Leading&... l) { request.execute_reverse(l..., std::forward<Args>(args)...); }, leading);
  }
  const char* source() const { return request.source(); }
  void dump() const { request.dump(); }
};
template <class Request, class... Leading>
bound_request<Request, Leading...> bind_leading(Request request, Leading... leading) {
  return {request, {leading...}};
}

}  // namespace detail

namespace detail {

// The derivative's result for code only being parsed: f's result when it is a struct (the struct of
// its members' derivatives), else a double. f is called with the first N of execute's arguments:
// those after f's own are directions (one per order along a whole array), dropped one by one.
template <class F, class Args, std::size_t N>
constexpr auto parsed_derivative_result() {
  constexpr bool invocable = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::is_invocable_v<F, std::tuple_element_t<I, Args>...>;
  }
  (std::make_index_sequence<N>());
  if constexpr (invocable) {
    using R = std::remove_cvref_t<typename decltype([]<std::size_t... I>(std::index_sequence<I...>) {
      return std::type_identity<std::invoke_result_t<F, std::tuple_element_t<I, Args>...>>{};
    }(std::make_index_sequence<N>()))::type>;
    if constexpr (std::is_class_v<R> && std::is_default_constructible_v<R>) return R{};
    else return 0.0;
  } else if constexpr (N == 0 || std::tuple_size_v<Args> - N >= 8) {
    return 0.0;
  } else {
    return parsed_derivative_result<F, Args, N - 1>();
  }
}

// What adjoint::derivative of `F` returns to code that is only being parsed by adjc. execute's
// result is of the type the derivative's will be (parsed_derivative_result).
template <class F = void>
struct derivative_request {
  template <class... Args>
  constexpr auto execute(Args&&...) const {
    return parsed_derivative_result<F, std::tuple<Args...>, sizeof...(Args)>();
  }
  constexpr const char* source() const { return ""; }
  constexpr void dump() const {}
  template <class Object>
  constexpr void setObject(Object&&) const {}
  constexpr void clearObject() const {}
};

}  // namespace detail

// `adjoint::derivative<adjoint::vector_mode>(f, "x, y")`: vector forward mode, the derivatives of
// f's result in every named parameter from one sweep (docs/adjc.md, "Vector forward mode").
struct vector_mode {};

// Requests the derivative of `fn`'s result with respect to one parameter: a floating scalar ("x"
// or by position "0"), an element of a fixed-size array parameter ("x[2]"), or a whole array
// parameter ("x": execute then takes a direction after f's arguments). `Order` must be 1 for now.
// adjc replaces the call; see docs/adjc.md.
#ifdef ADJOINT_ADJC
template <int Order = 1, class F, class Spec = const char*>
constexpr detail::derivative_request<std::decay_t<F>> derivative(F&&, Spec = "") {
  return {};
}
template <class Mode, class F, class Spec = const char*>
requires std::is_same_v<Mode, vector_mode>
constexpr detail::derivative_request<std::decay_t<F>> derivative(F&&, Spec = "") { return {}; }
#else
template <int Order = 1, class F, class Spec = const char*>
detail::derivative_request<std::decay_t<F>> derivative(F&&, Spec = "") {
  static_assert(detail::requires_adjc<F>,
                "adjoint::derivative needs the adjc compiler: build this file with "
                "adjoint_add_gradients() in CMake, or run `adjc in.cpp -o out.cpp -- <flags>`");
  return {};
}
template <class Mode, class F, class Spec = const char*>
requires std::is_same_v<Mode, vector_mode> detail::derivative_request<std::decay_t<F>> derivative(F&&, Spec = "") {
  static_assert(detail::requires_adjc<F>,
                "adjoint::derivative needs the adjc compiler: build this file with "
                "adjoint_add_gradients() in CMake, or run `adjc in.cpp -o out.cpp -- <flags>`");
  return {};
}
#endif

}  // namespace adjoint
