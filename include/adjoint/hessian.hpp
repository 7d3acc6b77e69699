#pragma once
// Hessians (docs/adjc.md, "Hessians"): what adjoint::hessian, adjoint::hessian_diagonal and
// adjoint::hessian_vector return once adjc has rewritten them. adjc builds them from its other
// requests (reverse over forward for rows, forward over forward for the diagonal), generated in
// stages (nested requests); these classes only call the generated functions row by row. Included by
// adjoint/ad.hpp.
#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace adjoint {

namespace detail {

// The last argument of execute (the output) as a pointer to its elements: a pointer or array, or
// Clad's clad::array_ref and clad::array (their ptr()).
template <class... Args>
auto* output_of(Args&&... args) {
  auto&& out = std::get<sizeof...(Args) - 1>(std::forward_as_tuple(std::forward<Args>(args)...));
  using Out = std::decay_t<decltype(out)>;
  if constexpr (std::is_pointer_v<Out>) return Out(out);
  else return out.ptr();
}

// One block of the parameters a Hessian is taken with respect to: a floating scalar (Length 0) or
// the first Length elements of an array parameter of Extent elements (its whole length when known,
// else Length), with the generated function its rows (full matrix: the gradient of the first
// derivative along it) or entries (diagonal: the second derivative along it) come from. An array
// block's function takes a direction of Extent elements after f's arguments (two for a diagonal).
template <std::size_t Length, class Function, std::size_t Extent = Length>
struct hessian_block {
  Function function;
  static constexpr bool scalar = Length == 0;
  static constexpr std::size_t size = scalar ? 1 : Length;
  static constexpr std::size_t extent = scalar ? 1 : Extent;
};
template <std::size_t Length, std::size_t Extent = Length, class Function>
hessian_block<Length, Function, Extent> block(Function f) {
  return {f};
}

// Where each block starts among the n entries of a row (sizes) and among the adjoints a row's
// gradient writes (extents).
template <class... Blocks>
struct hessian_layout {
  static constexpr std::size_t n = (Blocks::size + ...);
  static constexpr std::size_t adjoints = (Blocks::extent + ...);
  template <std::size_t B>
  static constexpr std::size_t offset() {
    constexpr std::size_t sizes[] = {Blocks::size...};
    std::size_t o = 0;
    for (std::size_t i = 0; i < B; ++i) o += sizes[i];
    return o;
  }
  template <std::size_t B>
  static constexpr std::size_t adjoint_offset() {
    constexpr std::size_t extents[] = {Blocks::extent...};
    std::size_t o = 0;
    for (std::size_t i = 0; i < B; ++i) o += extents[i];
    return o;
  }
};

// The full Hessian: row i is the gradient of f's first derivative along entry i, with respect to
// every block (adjoints in block order, into a scratch row of every block's extent, of which each
// block's first `size` entries are kept). execute(f's arguments..., H) writes H row-major, n x n.
template <class... Blocks>
struct hessian_rows : hessian_layout<Blocks...> {
  using layout = hessian_layout<Blocks...>;
  using layout::n;
  std::tuple<Blocks...> blocks;

  template <class... Args>
  void execute(Args&&... args) const {
    auto all = std::forward_as_tuple(args...);
    auto* h = output_of(args...);
    rows(all, h, std::make_index_sequence<sizeof...(Args) - 1>{}, std::index_sequence_for<Blocks...>{});
  }
  const char* source() const { return std::get<0>(blocks).function.source(); }

 private:
  template <class All, class T, std::size_t... A, std::size_t... B>
  void rows(All& all, T* h, std::index_sequence<A...> a, std::index_sequence<B...> b) const {
    (block_rows<B>(all, h, a, b), ...);
  }
  template <std::size_t B, class All, class T, std::size_t... A, std::size_t... C>
  void block_rows(All& all, T* h, std::index_sequence<A...>, std::index_sequence<C...>) const {
    using Block = std::tuple_element_t<B, std::tuple<Blocks...>>;
    const auto& function = std::get<B>(blocks).function;
    for (std::size_t r = 0; r < Block::size; ++r) {
      T adjoint[layout::adjoints] = {};
      if constexpr (Block::scalar) {
        function.execute(std::get<A>(all)..., (adjoint + layout::template adjoint_offset<C>())...);
      } else {
        T direction[Block::extent] = {};
        direction[r] = 1;
        function.execute(std::get<A>(all)..., direction, (adjoint + layout::template adjoint_offset<C>())...);
      }
      T* row = h + (layout::template offset<B>() + r) * n;
      (std::copy_n(adjoint + layout::template adjoint_offset<C>(), std::tuple_element_t<C, std::tuple<Blocks...>>::size,
                   row + layout::template offset<C>()),
       ...);
    }
  }
};
template <class... Blocks>
hessian_rows<Blocks...> hessian_of(Blocks... blocks) {
  return {{}, {blocks...}};
}
template <class... Rows>
auto hessian_of_scalars(Rows... rows) {
  return hessian_of(block<0>(rows)...);
}
template <std::size_t N, class Gradient>
auto hessian_of_array(Gradient g) {
  return hessian_of(block<N>(g));
}

// The Hessian's diagonal: entry i is f's second derivative along entry i twice (forward over
// forward). execute(f's arguments..., diagonal) writes n values.
template <class... Blocks>
struct hessian_diagonal : hessian_layout<Blocks...> {
  std::tuple<Blocks...> blocks;

  template <class... Args>
  void execute(Args&&... args) const {
    auto all = std::forward_as_tuple(args...);
    auto* d = output_of(args...);
    entries(all, d, std::make_index_sequence<sizeof...(Args) - 1>{}, std::index_sequence_for<Blocks...>{});
  }
  const char* source() const { return std::get<0>(blocks).function.source(); }

 private:
  template <class All, class T, std::size_t... A, std::size_t... B>
  void entries(All& all, T* d, std::index_sequence<A...> a, std::index_sequence<B...>) const {
    (block_entries<B>(all, d + hessian_layout<Blocks...>::template offset<B>(), a), ...);
  }
  template <std::size_t B, class All, class T, std::size_t... A>
  void block_entries(All& all, T* d, std::index_sequence<A...>) const {
    using Block = std::tuple_element_t<B, std::tuple<Blocks...>>;
    const auto& function = std::get<B>(blocks).function;
    if constexpr (Block::scalar) {
      *d = function.execute(std::get<A>(all)...);
    } else {
      T direction[Block::extent] = {};
      for (std::size_t i = 0; i < Block::size; ++i) {
        direction[i] = 1;
        d[i] = function.execute(std::get<A>(all)..., direction, direction);
        direction[i] = 0;
      }
    }
  }
};
template <class... Blocks>
hessian_diagonal<Blocks...> hessian_diagonal_of(Blocks... blocks) {
  return {{}, {blocks...}};
}
template <class... Seconds>
auto hessian_diagonal_of_scalars(Seconds... seconds) {
  return hessian_diagonal_of(block<0>(seconds)...);
}
template <std::size_t N, class Second>
auto hessian_diagonal_of_array(Second s) {
  return hessian_diagonal_of(block<N>(s));
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
