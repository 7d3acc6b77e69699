#pragma once
// Jacobians: the matrix adjoint::jacobian fills, and what the request returns (docs/adjc.md,
// "Jacobians"). adjc hands jacobian_function the generated pushforward and pullback of f and, per
// parameter of f, its role; the sweeps over columns (forward) or rows (reverse) run here, where the
// arguments' lengths are known. Included by adjoint/ad.hpp.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "adjoint/tangent_vector.hpp"

namespace adjoint {

// A dense row-major matrix: `J[i][j]` (Clad's clad::matrix spelling) or `J(i, j)`.
template <class T>
class matrix {
 public:
  matrix() = default;
  matrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), data_(rows * cols) {}
  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  T* operator[](std::size_t row) { return data_.data() + row * cols_; }
  const T* operator[](std::size_t row) const { return data_.data() + row * cols_; }
  T& operator()(std::size_t row, std::size_t col) { return data_[row * cols_ + col]; }
  T operator()(std::size_t row, std::size_t col) const { return data_[row * cols_ + col]; }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  // Every element zero, `rows` x `cols`.
  void resize(std::size_t rows, std::size_t cols) {
    rows_ = rows;
    cols_ = cols;
    data_.assign(rows * cols, T{});
  }

 private:
  std::size_t rows_ = 0, cols_ = 0;
  std::vector<T> data_;
};

// What a parameter of f is to its Jacobian: `constant` has no tangent (an integer), `passive` has
// one that stays zero, an input is a column block, an output a row block (`input_output`: both, a
// function that updates an array in place).
enum class jacobian_role : unsigned char { constant, passive, input, output, input_output };
// How the generated code takes its tangent or adjoint: a scalar by value (a pointer in reverse
// mode), a pointer to elements, or a pointer to one object (a std::vector, a std::array, a
// `double&`).
enum class tangent_form : unsigned char { scalar, elements, object };

// A floating scalar parameter's type, when it is not double: its tangent's and adjoint's type,
// whatever the argument's (`execute(7, 9, ...)` of a `long double` parameter).
enum class scalar_type : unsigned char { double_type, float_type, long_double_type };

struct jacobian_param {
  jacobian_role role;
  tangent_form form;
  long length;  // known to adjc (a fixed-size array), else 0: from the argument or the matrix
  // f may read the values execute finds in it: an output is then restored before every sweep (one f
  // only assigns may be uninitialised, and is not read).
  bool read = true;
  scalar_type scalar = scalar_type::double_type;
};

// Which sweeps jacobian_function::execute runs: by shape (fewer inputs: forward, one per column;
// else reverse, one per row), or the one asked for.
enum class jacobian_mode { by_shape, forward, reverse };

namespace detail {

// Bad arguments to execute: one line, and the program's exit (what it printed so far flushed).
[[noreturn]] inline void jacobian_error(const char* what) {
  std::fflush(stdout);
  std::fprintf(stderr, "adjoint::jacobian: %s\n", what);
  std::exit(EXIT_FAILURE);
}

template <class A>
struct jacobian_element {
  using type = std::remove_cvref_t<std::remove_pointer_t<std::decay_t<A>>>;
};
template <class A>
requires requires(A& a) {
  a[0];
} &&(!std::is_pointer_v<std::decay_t<A>>)&&(!std::is_array_v<std::remove_cvref_t<A>>)struct jacobian_element<A> {
  using type = std::remove_cvref_t<decltype(std::declval<A&>()[0])>;
};

// One parameter's tangent (forward) or adjoint (reverse) storage, its place in the matrix, and
// its primal values before the first sweep (outputs, restored before every sweep). With `Lanes` >
// 0 each tangent element is a tangent_vector of that many directions (vector forward mode).
template <jacobian_param P, class A, int Lanes = 0>
struct jacobian_slot {
  using Arg = std::remove_cvref_t<A>;
  using E = typename jacobian_element<A>::type;
  // A scalar's tangent is of the parameter's floating type even when the argument is an integer.
  using Scalar = std::conditional_t<P.scalar == scalar_type::float_type, float,
                                    std::conditional_t<P.scalar == scalar_type::long_double_type, long double, double>>;
  using Number = std::conditional_t<P.form == tangent_form::scalar, Scalar,
                                    std::conditional_t<std::is_floating_point_v<E>, E, double>>;
  using T = std::conditional_t<Lanes == 0, Number, tangent_vector<Number, (Lanes > 0 ? Lanes : 1)>>;
  static constexpr bool in = P.role == jacobian_role::input || P.role == jacobian_role::input_output;
  static constexpr bool out = P.role == jacobian_role::output || P.role == jacobian_role::input_output;
  static constexpr bool whole_scalar = P.form == tangent_form::scalar || std::is_arithmetic_v<Arg>;
  static constexpr bool active = in || out;
  using Storage = std::conditional_t<
      !active, char,
      std::conditional_t<whole_scalar, T, std::conditional_t<P.form == tangent_form::object, Arg, std::vector<T>>>>;

  Storage d{};
  std::vector<E> saved;
  long length = 0, col = 0, row = 0;  // its first column (an input) and row (an output)

  explicit jacobian_slot(A& arg) {
    if constexpr (!active) (void)arg;
    else if constexpr (whole_scalar) length = 1;
    else if constexpr (requires { arg.size(); }) length = long(arg.size());
    else length = P.length > 0 ? P.length : -1;
    if constexpr (active && !whole_scalar && P.form == tangent_form::object) d = arg;  // its shape
  }
  void allocate() {
    if constexpr (active && !whole_scalar && P.form == tangent_form::elements) d.assign(std::size_t(length), T{});
  }
  T& at(long k) {
    if constexpr (whole_scalar) return d;
    else return d[k];
  }
  // Direction `lane` of element k.
  Number& at(long k, int lane) {
    if constexpr (Lanes == 0) return at(k);
    else return at(k)[lane];
  }
  void zero() {
    if constexpr (active)
      for (long k = 0; k < length; ++k) at(k) = T{};
  }
  static decltype(auto) primal(A& arg, long k) {
    if constexpr (std::is_arithmetic_v<Arg>) return (arg);
    else return (arg[k]);
  }
  void save(A& arg) {
    if constexpr (out && P.read)
      for (long k = 0; k < length; ++k) saved.push_back(primal(arg, k));
  }
  void restore(A& arg) {
    if constexpr (out && P.read)
      if constexpr (!std::is_const_v<std::remove_reference_t<decltype(primal(arg, 0))>>)
        for (long k = 0; k < length; ++k) primal(arg, k) = saved[std::size_t(k)];
  }
  // Its argument of the pushforward, as a tuple of none or one.
  auto tangent_argument() {
    if constexpr (P.role == jacobian_role::constant) return std::tuple<>{};
    else if constexpr (P.role == jacobian_role::passive) {
      if constexpr (P.form == tangent_form::scalar) return std::tuple<T>{T{}};
      else return std::tuple<std::nullptr_t>{nullptr};
    } else if constexpr (P.form == tangent_form::scalar) return std::tuple<T>{d};
    else if constexpr (P.form == tangent_form::elements) return std::tuple<T*>{d.data()};
    else return std::tuple<Storage*>{&d};
  }
  // Its argument of the pullback.
  auto adjoint_argument() {
    if constexpr (P.role == jacobian_role::constant) return std::tuple<>{};
    else if constexpr (P.role == jacobian_role::passive) return std::tuple<inactive>{};
    else if constexpr (P.form == tangent_form::scalar) return std::tuple<T*>{&d};
    else return tangent_argument();
  }
};

template <class T>
T lane_of(const T& value, int) {
  return value;
}
template <class T, int N>
T lane_of(const tangent_vector<T, N>& value, int lane) {
  return value[lane];
}

}  // namespace detail

// A generated Jacobian: `execute(f's arguments..., J)` fills J (an adjoint::matrix, by reference
// or pointer; or a row-major T* when every length is known to adjc) with d(outputs)/d(inputs):
// a row per output element (output parameters in order, then f's floating result), a column per
// input element (inputs in order). `Lanes` > 0: the pushforward is vector mode's, `Lanes` columns
// per forward sweep.
template <class Pushforward, class Pullback, bool ResultRow, int Lanes, jacobian_param... Params>
struct jacobian_function {
  Pushforward pushforward;
  Pullback pullback;
  const char* forward_source;
  const char* reverse_source;

  template <class... Args>
  void execute(Args&&... args) const {
    run(jacobian_mode::by_shape, std::forward_as_tuple(args...), std::make_index_sequence<sizeof...(Params)>{});
  }
  // One sweep per column (pushforwards), or per row (pullbacks), whatever the shape.
  template <class... Args>
  void execute_forward(Args&&... args) const {
    run(jacobian_mode::forward, std::forward_as_tuple(args...), std::make_index_sequence<sizeof...(Params)>{});
  }
  template <class... Args>
  void execute_reverse(Args&&... args) const {
    run(jacobian_mode::reverse, std::forward_as_tuple(args...), std::make_index_sequence<sizeof...(Params)>{});
  }
  // The generated code: the pushforwards, then the gradient and pullbacks.
  const char* source() const {
    static const std::string text = std::string(forward_source) + "\n" + reverse_source;
    return text.c_str();
  }
  void dump() const { std::printf("The code is: \n%s\n", source()); }

  // Vector mode's derivative request (adjoint::derivative<adjoint::vector_mode>): f's arguments,
  // then one derivative per input, filled with the derivatives of f's result: a pointer (to a
  // scalar or to an array adjc knows the length of), or an array with a size (clad::array_ref,
  // std::span) for a pointer input, whose length is that size.
  template <class... Args>
  void execute_derivatives(Args&&... args) const {
    constexpr std::size_t n = sizeof...(Params);
    auto all = std::forward_as_tuple(args...);
    constexpr long lengths[] = {(Params.form == tangent_form::scalar ? 1 : Params.length)...};
    constexpr bool inputs[] = {(Params.role == jacobian_role::input)...};
    // Calls `each(derivative, length)` for each input's derivative argument, in order.
    auto for_each_input = [&](auto each) {
      std::size_t param = 0;
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        auto one = [&](auto& out) {
          while (!inputs[param]) ++param;
          each(out, lengths[param] > 0 ? lengths[param] : size_of(out));
          ++param;
        };
        (one(std::get<n + K>(all)), ...);
      }
      (std::make_index_sequence<sizeof...(Args) - n>{});
    };
    long columns = 0;
    for_each_input([&](auto&, long length) { columns += length; });
    matrix<double> row(1, std::size_t(columns));
    [&]<std::size_t... I>(std::index_sequence<I...>) { execute_forward(std::get<I>(all)..., row); }
    (std::make_index_sequence<n>{});
    long column = 0;
    for_each_input([&](auto& out, long length) {
      for (long k = 0; k < length; ++k) element(out, k) = row(0, std::size_t(column + k));
      column += length;
    });
  }

 private:
  // Element k of a derivative argument: `T*`, a pointer to a std::array, or an array with a size.
  template <class Out>
  static auto& element(Out& out, long k) {
    if constexpr (std::is_pointer_v<Out> && std::is_arithmetic_v<std::remove_pointer_t<Out>>) return out[k];
    else if constexpr (std::is_pointer_v<Out>) return (*out)[std::size_t(k)];
    else return out[std::size_t(k)];
  }
  // The length of a pointer input, from its derivative argument.
  template <class Out>
  static long size_of(const Out& out) {
    if constexpr (requires { out.size(); } && !std::is_pointer_v<Out>) return long(out.size());
    else {
      detail::jacobian_error(
          "a pointer parameter's length is unknown: pass its derivative as an array with a size (clad::array_ref)");
      return 0;
    }
  }

  template <class Tuple, std::size_t... I>
  void run(jacobian_mode mode, Tuple args, std::index_sequence<I...>) const {
    static_assert(std::tuple_size_v<Tuple> == sizeof...(Params) + 1,
                  "adjoint::jacobian: execute takes f's arguments, then the matrix");
    std::tuple<detail::jacobian_slot<Params, std::tuple_element_t<I, Tuple>>...> slots{
        detail::jacobian_slot<Params, std::tuple_element_t<I, Tuple>>(std::get<I>(args))...};
    long rows = 0, cols = 0;
    auto* out = layout(std::get<sizeof...(Params)>(args), slots, rows, cols, std::index_sequence<I...>{});
    ((std::get<I>(slots).allocate(), std::get<I>(slots).save(std::get<I>(args))), ...);
    if (mode == jacobian_mode::reverse || (mode == jacobian_mode::by_shape && cols > rows))
      return reverse_sweeps(args, slots, out, rows, cols, std::index_sequence<I...>{});
    if constexpr (Lanes == 0) {
      forward_sweeps(args, slots, slots, out, rows, cols, std::index_sequence<I...>{});
    } else {
      std::tuple<detail::jacobian_slot<Params, std::tuple_element_t<I, Tuple>, Lanes>...> lanes{
          detail::jacobian_slot<Params, std::tuple_element_t<I, Tuple>, Lanes>(std::get<I>(args))...};
      ((std::get<I>(lanes).length = std::get<I>(slots).length, std::get<I>(lanes).col = std::get<I>(slots).col,
        std::get<I>(lanes).row = std::get<I>(slots).row, std::get<I>(lanes).allocate()),
       ...);
      forward_sweeps(args, lanes, slots, out, rows, cols, std::index_sequence<I...>{});
    }
  }

  // Each slot's length and place, checked against the matrix (sized here when it is empty); the
  // matrix's elements.
  template <class Matrix, class Slots, std::size_t... I>
  static auto* layout(Matrix& J, Slots& slots, long& rows, long& cols, std::index_sequence<I...>) {
    using M = std::decay_t<Matrix>;
    constexpr bool raw = std::is_pointer_v<M> && std::is_arithmetic_v<std::remove_pointer_t<M>>;
    long unknown_in = 0, unknown_out = 0, matrix_rows = 0, matrix_cols = 0;
    (count(std::get<I>(slots), unknown_in, unknown_out, cols, rows), ...);
    if constexpr (ResultRow) rows += 1;
    if constexpr (std::is_pointer_v<M> && !raw) {
      matrix_rows = long(J->rows());
      matrix_cols = long(J->cols());
    } else if constexpr (!raw) {
      matrix_rows = long(J.rows());
      matrix_cols = long(J.cols());
    }
    // A pointer's length is what the matrix has left for it.
    if (unknown_in + unknown_out > 0 && (matrix_rows == 0 || matrix_cols == 0))
      detail::jacobian_error("a pointer parameter's length is unknown: pass a matrix sized outputs x inputs");
    if (unknown_in > 1 || unknown_out > 1)
      detail::jacobian_error("more than one pointer parameter of unknown length on one side of the matrix");
    (resolve(std::get<I>(slots), matrix_cols - cols, matrix_rows - rows), ...);
    cols += unknown_in ? matrix_cols - cols : 0;
    rows += unknown_out ? matrix_rows - rows : 0;
    if (cols <= 0 || rows <= 0) detail::jacobian_error("the matrix is too small for the function's inputs and outputs");
    if ((matrix_rows || matrix_cols) && (matrix_rows != rows || matrix_cols != cols))
      detail::jacobian_error("the matrix's shape is not outputs x inputs");
    long next_in = 0, next_out = 0;
    (place(std::get<I>(slots), next_in, next_out), ...);
    if constexpr (raw) return M(J);
    else if constexpr (std::is_pointer_v<M>) return J->data();
    else {
      if (J.rows() == 0) J.resize(std::size_t(rows), std::size_t(cols));
      return J.data();
    }
  }

  // One pushforward per `Lanes` columns (one when scalar), with the outputs restored from `primal`.
  template <class Tuple, class Tangents, class Primal, class T, std::size_t... I>
  void forward_sweeps(Tuple& args, Tangents& tangents, Primal& primal, T* out, long rows, long cols,
                      std::index_sequence<I...>) const {
    constexpr int width = Lanes > 0 ? Lanes : 1;
    for (long first = 0; first < cols; first += width) {
      const int used = int(cols - first < width ? cols - first : width);
      ((std::get<I>(primal).restore(std::get<I>(args)), std::get<I>(tangents).zero()), ...);
      for (int lane = 0; lane < used; ++lane) (seed_input(std::get<I>(tangents), first + lane, lane), ...);
      auto call = [&] {
        return std::apply(pushforward,
                          std::tuple_cat(select(std::get<I>(args))..., std::get<I>(tangents).tangent_argument()...));
      };
      if constexpr (ResultRow) {
        const auto result = call().pushforward;
        for (int lane = 0; lane < used; ++lane)
          out[(rows - 1) * cols + first + lane] = detail::lane_of(result, lane) + T(0);
      } else {
        call();
      }
      for (int lane = 0; lane < used; ++lane) (read_output(std::get<I>(tangents), out, cols, first + lane, lane), ...);
    }
  }

  // One pullback per row.
  template <class Tuple, class Slots, class T, std::size_t... I>
  void reverse_sweeps(Tuple& args, Slots& slots, T* out, long rows, long cols, std::index_sequence<I...>) const {
    for (long r = 0; r < rows; ++r) {
      ((std::get<I>(slots).restore(std::get<I>(args)), std::get<I>(slots).zero(), seed_output(std::get<I>(slots), r)),
       ...);
      if constexpr (ResultRow)
        std::apply(pullback, std::tuple_cat(select(std::get<I>(args))..., std::make_tuple(r == rows - 1 ? 1.0 : 0.0),
                                            std::get<I>(slots).adjoint_argument()...));
      else std::apply(pullback, std::tuple_cat(select(std::get<I>(args))..., std::get<I>(slots).adjoint_argument()...));
      (read_input(std::get<I>(slots), out, cols, r), ...);
    }
  }

  template <class Slot>
  static void count(const Slot& s, long& unknown_in, long& unknown_out, long& cols, long& rows) {
    if (Slot::in) (s.length < 0 ? unknown_in : cols) += s.length < 0 ? 1 : s.length;
    if (Slot::out) (s.length < 0 ? unknown_out : rows) += s.length < 0 ? 1 : s.length;
  }
  template <class Slot>
  static void resolve(Slot& s, long cols_left, long rows_left) {
    if (s.length >= 0) return;
    s.length = Slot::in ? cols_left : rows_left;
    if (Slot::in && Slot::out && cols_left != rows_left)
      detail::jacobian_error("an array both read and written needs a square block of the matrix");
  }
  template <class Slot>
  static void place(Slot& s, long& next_in, long& next_out) {
    if (Slot::in) s.col = next_in, next_in += s.length;
    if (Slot::out) s.row = next_out, next_out += s.length;
  }
  template <class Slot>
  static void seed_input(Slot& s, long c, int lane) {
    if constexpr (Slot::in)
      if (c >= s.col && c < s.col + s.length) s.at(c - s.col, lane) = 1;
  }
  template <class Slot>
  static void seed_output(Slot& s, long r) {
    if constexpr (Slot::out)
      if (r >= s.row && r < s.row + s.length) s.at(r - s.row) = 1;
  }
  template <class A>
  static std::tuple<A&> select(A& arg) {
    return std::tuple<A&>(arg);
  }
  // `+ 0` turns a zero derivative's -0 (0 times a negative partial) into 0.
  template <class Slot, class T>
  static void read_output(Slot& s, T* out, long cols, long c, int lane) {
    if constexpr (Slot::out)
      for (long k = 0; k < s.length; ++k) out[(s.row + k) * cols + c] = s.at(k, lane) + T(0);
  }
  template <class Slot, class T>
  static void read_input(Slot& s, T* out, long cols, long r) {
    if constexpr (Slot::in)
      for (long k = 0; k < s.length; ++k) out[r * cols + s.col + k] = s.at(k) + T(0);
  }
};

// What adjoint::derivative<adjoint::vector_mode> returns: execute takes f's arguments, then a
// pointer per named parameter (`&d_x` for a scalar, the array for an array), and fills them.
template <class Jacobian>
struct vector_derivative_function {
  Jacobian jacobian;
  template <class... Args>
  void execute(Args&&... args) const {
    jacobian.execute_derivatives(std::forward<Args>(args)...);
  }
  const char* source() const { return jacobian.source(); }
  void dump() const { jacobian.dump(); }
};

namespace detail {

// What adjc writes in place of a request: the roles explicit, the two callables deduced.
template <bool ResultRow, int Lanes, jacobian_param... Params, class Pushforward, class Pullback>
jacobian_function<Pushforward, Pullback, ResultRow, Lanes, Params...> make_jacobian(Pushforward pf, Pullback pb,
                                                                                    const char* forward_source,
                                                                                    const char* reverse_source) {
  return {pf, pb, forward_source, reverse_source};
}

template <class Jacobian>
vector_derivative_function<Jacobian> make_vector_derivative(Jacobian jacobian) {
  return {jacobian};
}

// What adjoint::jacobian returns to code that is only being parsed by adjc.
struct jacobian_request {
  template <class... Args>
  constexpr void execute(Args&&...) const {}
  template <class... Args>
  constexpr void execute_forward(Args&&...) const {}
  template <class... Args>
  constexpr void execute_reverse(Args&&...) const {}
  constexpr const char* source() const { return ""; }
  constexpr void dump() const {}
};

}  // namespace detail

// Requests the Jacobian of `fn`'s outputs (the arrays and references it writes, then its floating
// result) with respect to the parameters the list names ("x, y"; none = every differentiable one
// it does not write). adjc replaces the call; see docs/adjc.md.
#ifdef ADJOINT_ADJC
template <class F, class Spec = const char*>
constexpr detail::jacobian_request jacobian(F&&, Spec = "") {
  return {};
}
#else
template <class F, class Spec = const char*>
detail::jacobian_request jacobian(F&&, Spec = "") {
  static_assert(detail::requires_adjc<F>,
                "adjoint::jacobian needs the adjc compiler: build this file with "
                "adjoint_add_gradients() in CMake, or run `adjc in.cpp -o out.cpp -- <flags>`");
  return {};
}
#endif

}  // namespace adjoint
