#pragma once
// Hessians (docs/adjc.md, "Hessians"): what adjoint::hessian, adjoint::hessian_diagonal and
// adjoint::hessian_vector return once adjc has rewritten them. adjc builds them from its other
// requests (reverse over forward for rows, forward over forward for the diagonal), generated in
// stages (nested requests); these classes only call the generated functions row by row. Included by
// adjoint/ad.hpp.
#include <algorithm>
#include <cstddef>
#include <tuple>
#include <utility>

namespace adjoint {

namespace detail {

// The arguments of execute but the last (the output), and the last.
template <class... Args>
auto&& last_argument(Args&&... args) {
  return std::get<sizeof...(Args) - 1>(std::forward_as_tuple(std::forward<Args>(args)...));
}

// The full Hessian with respect to scalar parameters: row i is the gradient of ∂f/∂x_i (`Rows`,
// one generated gradient each). execute(f's arguments..., H) writes H row-major, n x n.
template <class... Rows>
struct hessian_rows {
  std::tuple<Rows...> rows;
  static constexpr std::size_t n = sizeof...(Rows);

  template <class... Args>
  void execute(Args&&... args) const {
    auto all = std::forward_as_tuple(args...);
    auto* h = last_argument(args...);
    std::fill(h, h + n * n, 0);
    fill_rows(all, h, std::make_index_sequence<sizeof...(Args) - 1>{}, std::make_index_sequence<n>{});
  }
  const char* source() const { return std::get<0>(rows).source(); }

 private:
  template <class All, class T, std::size_t... A, std::size_t... R>
  void fill_rows(All& all, T* h, std::index_sequence<A...> a, std::index_sequence<R...>) const {
    (row<R>(all, h + R * n, a, std::make_index_sequence<n>{}), ...);
  }
  template <std::size_t R, class All, class T, std::size_t... A, std::size_t... C>
  void row(All& all, T* h, std::index_sequence<A...>, std::index_sequence<C...>) const {
    std::get<R>(rows).execute(std::get<A>(all)..., (h + C)...);
  }
};
template <class... Rows>
hessian_rows<Rows...> hessian_of_scalars(Rows... rows) {
  return {{rows...}};
}

// The full Hessian with respect to N elements of an array parameter: row i is the gradient of the
// derivative along e_i (`Gradient`, the generated gradient of f's directional derivative).
template <std::size_t N, class Gradient>
struct hessian_array {
  Gradient gradient;

  template <class... Args>
  void execute(Args&&... args) const {
    auto all = std::forward_as_tuple(args...);
    auto* h = last_argument(args...);
    run(all, h, std::make_index_sequence<sizeof...(Args) - 1>{});
  }
  const char* source() const { return gradient.source(); }

 private:
  template <class All, class T, std::size_t... A>
  void run(All& all, T* h, std::index_sequence<A...>) const {
    T direction[N] = {};
    std::fill(h, h + N * N, 0);
    for (std::size_t i = 0; i < N; ++i) {
      direction[i] = 1;
      gradient.execute(std::get<A>(all)..., direction, h + i * N);
      direction[i] = 0;
    }
  }
};
template <std::size_t N, class Gradient>
hessian_array<N, Gradient> hessian_of_array(Gradient g) {
  return {g};
}

// The Hessian's diagonal with respect to scalar parameters: each entry a second derivative (forward
// over forward). execute(f's arguments..., diagonal).
template <class... Seconds>
struct hessian_diagonal_scalars {
  std::tuple<Seconds...> seconds;

  template <class... Args>
  void execute(Args&&... args) const {
    auto all = std::forward_as_tuple(args...);
    auto* d = last_argument(args...);
    run(all, d, std::make_index_sequence<sizeof...(Args) - 1>{}, std::index_sequence_for<Seconds...>{});
  }
  const char* source() const { return std::get<0>(seconds).source(); }

 private:
  template <class All, class T, std::size_t... A, std::size_t... S>
  void run(All& all, T* d, std::index_sequence<A...>, std::index_sequence<S...>) const {
    ((d[S] = std::get<S>(seconds).execute(std::get<A>(all)...)), ...);
  }
};
template <class... Seconds>
hessian_diagonal_scalars<Seconds...> hessian_diagonal_of_scalars(Seconds... seconds) {
  return {{seconds...}};
}

// The Hessian's diagonal with respect to N elements of an array parameter: entry i is the second
// derivative along e_i twice (`Second`, the generated derivative of order 2 along two directions).
template <std::size_t N, class Second>
struct hessian_diagonal_array {
  Second second;

  template <class... Args>
  void execute(Args&&... args) const {
    auto all = std::forward_as_tuple(args...);
    auto* d = last_argument(args...);
    run(all, d, std::make_index_sequence<sizeof...(Args) - 1>{});
  }
  const char* source() const { return second.source(); }

 private:
  template <class All, class T, std::size_t... A>
  void run(All& all, T* d, std::index_sequence<A...>) const {
    T direction[N] = {};
    for (std::size_t i = 0; i < N; ++i) {
      direction[i] = 1;
      d[i] = second.execute(std::get<A>(all)..., direction, direction);
      direction[i] = 0;
    }
  }
};
template <std::size_t N, class Second>
hessian_diagonal_array<N, Second> hessian_diagonal_of_array(Second s) {
  return {s};
}

// What the Hessian requests return to code that is only being parsed by adjc.
struct hessian_request {
  template <class... Args>
  constexpr void execute(Args&&...) const {}
  constexpr const char* source() const { return ""; }
};

}  // namespace detail

// Requests f's Hessian with respect to scalar parameters ("x, y") or N elements of an array
// parameter ("a[0:N]"): execute(f's arguments..., H) writes the N x N matrix, row-major.
// adjoint::hessian_diagonal writes its diagonal (N values); adjoint::hessian_vector(f, "a") is the
// Hessian-vector product: execute(f's arguments..., v, hv) adds H·v to hv. See docs/adjc.md.
#ifdef ADJOINT_ADJC
template <class F, class Spec = const char*>
constexpr detail::hessian_request hessian(F&&, Spec = "") {
  return {};
}
template <class F, class Spec = const char*>
constexpr detail::hessian_request hessian_diagonal(F&&, Spec = "") {
  return {};
}
template <class F, class Spec = const char*>
constexpr detail::hessian_request hessian_vector(F&&, Spec = "") {
  return {};
}
#else
#define ADJOINT_HESSIAN_NEEDS_ADJC(name)                                                                      \
  template <class F, class Spec = const char*>                                                                \
  detail::hessian_request name(F&&, Spec = "") {                                                              \
    static_assert(detail::requires_adjc<F>,                                                                   \
                  "adjoint::" #name " needs the adjc compiler: build this file with adjoint_add_gradients() " \
                  "in CMake, or run `adjc in.cpp -o out.cpp -- <flags>`");                                    \
    return {};                                                                                                \
  }
ADJOINT_HESSIAN_NEEDS_ADJC(hessian)
ADJOINT_HESSIAN_NEEDS_ADJC(hessian_diagonal)
ADJOINT_HESSIAN_NEEDS_ADJC(hessian_vector)
#undef ADJOINT_HESSIAN_NEEDS_ADJC
#endif

}  // namespace adjoint
