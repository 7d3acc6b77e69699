#pragma once
// adjoint/ad.hpp: the user-facing side of adjc, the compile-time reverse-mode AD compiler.
//
//   float loss(const float* w, const float* x, int n);
//   auto g = adjoint::gradient(loss, "w");   // parameters by name, comma-separated; none = all
//   g.execute(w, x, n, d_w);                 // original args, then one adjoint per chosen param
//   std::puts(g.source());                   // the generated code
//
// adjc rewrites each adjoint::gradient(...) call into an adjoint::gradient_function naming the
// generated `loss_grad`; compiled without adjc the call is a compile error (see below), never a
// silent no-op. The generated code needs only this header (and the tape it includes).
// Conventions and limits: docs/adjc.md.

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "adjoint/tape.hpp"

#ifdef _OPENMP
// Declared here rather than through <omp.h>, which adjc's clang may not find.
extern "C" int omp_get_thread_num() noexcept;
extern "C" int omp_get_num_threads() noexcept;
#endif

// `ADJOINT_SIMD(clauses)`: `#pragma omp simd clauses` where OpenMP's simd directive is on
// (-fopenmp; or -fopenmp-simd with ADJOINT_OPENMP_SIMD defined, as adjoint_add_gradients compiles
// generated code), nothing elsewhere. adjc puts it on reverse loops whose iterations share nothing
// but sums into scalar adjoints, so that the compiler may vectorise the sums (docs/adjc.md).
#if defined(_OPENMP) || defined(ADJOINT_OPENMP_SIMD)
#define ADJOINT_PRAGMA_TEXT(...) #__VA_ARGS__
#define ADJOINT_SIMD(...) _Pragma(ADJOINT_PRAGMA_TEXT(omp simd __VA_ARGS__))
#else
#define ADJOINT_SIMD(...)
#endif

// Marks a pointer, reference or struct parameter whose memory the function's calls write at most
// once per element (activations laid out per layer, say): adjc then needs no snapshot when a
// call writes into it after other calls read it. A promise adjc cannot check; see docs/adjc.md.
#ifdef __clang__
#define ADJOINT_WRITE_ONCE [[clang::annotate("adjoint_write_once")]]
#else
#define ADJOINT_WRITE_ONCE
#endif

namespace adjoint {

// The adjoint argument passed for a parameter that is not differentiated at a call: generated
// pullbacks are overloaded on it, so the inactive case costs nothing at run time.
struct inactive {};

// The tape of element type T of the calling thread. Generated code pushes the values its reverse
// pass needs here; each OpenMP thread has its own, so parallel loops never share one.
template <class T>
inline tape<T>& thread_tape();

// Bytes currently held by all of the calling thread's tapes (benchmarks report it after a
// forward sweep, when the tape is fullest).
inline std::size_t thread_tape_bytes();

namespace detail {

struct tape_usage {
  const void* tape;
  std::size_t (*bytes)(const void*);
};

inline std::vector<tape_usage>& thread_tapes() {
  thread_local std::vector<tape_usage> tapes;
  return tapes;
}

// Scalars by value and popped by return, so no local's address escapes into the tape (which
// would stop the compiler keeping it in a register).
template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};

// The bytes of a T, and a T made from them. adjc hands T here, not being trivially copyable, only
// when its copy and move constructors copy each member (a move may also reset its source) and its
// destructor does nothing (docs/adjc.md, "Structs with special members of their own"), so a T
// built from another's bytes is that T's copy.
template <class T>
struct object_bytes {
  unsigned char b[sizeof(T)];
};

template <class T>
object_bytes<T> bytes_of(const T& value) {
  object_bytes<T> out;
  std::memcpy(out.b, static_cast<const void*>(std::addressof(value)), sizeof(T));
  return out;
}

template <class T>
T from_bytes(const object_bytes<T>& bytes) {
  union held {
    unsigned char b[sizeof(T)];
    T value;
    held() {}
    ~held() {}
  } h;
  std::memcpy(h.b, bytes.b, sizeof(T));
  return static_cast<const T&>(h.value);
}

// A struct of the user's that is not trivially copyable (above) taped as its bytes, and popped
// into an object in place: no constructor of its runs (adjc also tapes so structs whose copy
// constructor does more than copy members, whose copies it never makes).
template <class T>
void push_object(const T& value) {
  thread_tape<object_bytes<T>>().push(bytes_of(value));
}

template <class T>
void pop_object(T& into) {
  const object_bytes<T> bytes = thread_tape<object_bytes<T>>().pop();
  std::memcpy(static_cast<void*>(std::addressof(into)), bytes.b, sizeof(T));
}

// A std::pair of numbers (not trivially copyable, for its assignment) goes member by member; a
// struct of the user's that is not trivially copyable (above) as its bytes.
template <class T>
void push(T value) {
  if constexpr (is_pair<T>::value) {
    push(value.first);
    push(value.second);
  } else if constexpr (!std::is_trivially_copyable_v<T>) {
    push_object(value);
  } else {
    thread_tape<T>().push(value);
  }
}

template <class T>
T pop() {
  if constexpr (is_pair<T>::value) {
    T value;
    value.second = pop<typename T::second_type>();
    value.first = pop<typename T::first_type>();
    return value;
  } else if constexpr (!std::is_trivially_copyable_v<T>) {
    return from_bytes(thread_tape<object_bytes<T>>().pop());
  } else {
    return thread_tape<T>().pop();
  }
}

// `to = from` for a struct whose assignment the compiler deletes (a move constructor of the user's
// own) or deprecates (a copy constructor or destructor of the user's own): a copy constructed in its
// place, which is the assignment for the structs adjc hands here (above).
template <class T>
void assign(T& to, const T& from) {
  T copy(from);
  to.~T();
  ::new (static_cast<void*>(std::addressof(to))) T(static_cast<const T&>(copy));
}

// Generated code reaches a private or protected member (data or function) through a pointer to it:
// an explicit instantiation may name any member (`template struct private_member<member_tag<C, 2>,
// &C::x>;`, which adjc emits), and its friend function hands the pointer out to the member's tag
// (the class and the member's place among its declarations).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-template-friend"  // defined by private_member, as intended
#endif
template <class Class, unsigned Member>
struct member_tag {
  friend constexpr auto member_pointer(member_tag);
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
template <class Tag, auto Member>
struct private_member {
  friend constexpr auto member_pointer(Tag) { return Member; }
};

// A struct with every member zero, for structs whose `T{}` would not be (default member
// initialisers, a default constructor of the user's) or does not compile (no default constructor).
template <class T>
T zeroed() {
  if constexpr (std::is_trivially_copyable_v<T>) {
    struct bytes {
      unsigned char b[sizeof(T)];
    };
    return std::bit_cast<T>(bytes{});
  } else {
    return from_bytes(object_bytes<T>{});
  }
}

// An object every member of which is zero (as zeroed), whose destructor never runs: a function
// object's tangent, whose pointer members point to tangent memory its class did not allocate.
template <class T>
union zeroed_object {
  unsigned char bytes[sizeof(T)];
  T value;
  zeroed_object() : bytes{} {}
  ~zeroed_object() {}
};

// A heap array of n structs, every member zero (the adjoint of a heap array of structs).
template <class T>
T* zeroed_array(long n) {
  T* a = new T[n];
  for (long i = 0; i < n; ++i) a[i] = zeroed<T>();
  return a;
}

// Whole arrays of any rank (local arrays and structs the reverse sweep needs back), as their
// elements in memory order; elements that are not trivially copyable as their bytes (object_bytes).
template <class T, std::size_t N>
void push_array(const T (&values)[N]) {
  using Element = std::remove_all_extents_t<T>;
  using Taped = std::conditional_t<std::is_trivially_copyable_v<Element>, Element, object_bytes<Element>>;
  thread_tape<Taped>().push_n(reinterpret_cast<const Taped*>(static_cast<const void*>(values)),
                              N * (sizeof(T) / sizeof(Element)));
}

template <class T, std::size_t N>
void pop_array(T (&values)[N]) {
  using Element = std::remove_all_extents_t<T>;
  using Taped = std::conditional_t<std::is_trivially_copyable_v<Element>, Element, object_bytes<Element>>;
  thread_tape<Taped>().pop_n(reinterpret_cast<Taped*>(static_cast<void*>(values)), N * (sizeof(T) / sizeof(Element)));
}

// Every element of an array of any rank set to `value`.
template <class T, std::size_t N, class E>
void fill_array(T (&values)[N], const E& value) {
  std::fill_n(reinterpret_cast<E*>(values), N * (sizeof(T) / sizeof(E)), value);
}

// A local std::vector, whole: its elements, then its size.
template <class Vector>
void push_vector(const Vector& v) {
  thread_tape<typename Vector::value_type>().push_n(v.data(), v.size());
  thread_tape<long>().push(static_cast<long>(v.size()));
}

template <class Vector>
void pop_vector(Vector& v) {
  v.resize(static_cast<std::size_t>(thread_tape<long>().pop()));
  thread_tape<typename Vector::value_type>().pop_n(v.data(), v.size());
}

// The reverse of a local std::vector's resize, assign or clear, once the vector is restored: the
// elements from `first` on were filled with a constant or dropped, so their adjoints are zero, and
// the adjoint covers at least the restored `size` elements.
template <class Vector>
void refill_adjoint(Vector& adjoint, std::size_t first, std::size_t size) {
  for (std::size_t i = first; i < adjoint.size(); ++i) adjoint[i] = 0;
  if (adjoint.size() < size) adjoint.resize(size);
}

// A straight loop's overwritten elements [first, first + n), saved in one block before the loop
// and restored in one block by its reverse (docs/adjc.md, "bulk saves").
template <class T>
void push_n(const T* first, long n) {
  thread_tape<T>().push_n(first, static_cast<std::size_t>(n));
}

template <class T>
void pop_n(T* first, long n) {
  thread_tape<T>().pop_n(first, static_cast<std::size_t>(n));
}

// Iterations of `for (i = start; i < end; i++)`.
inline long trip_count(long start, long end) { return end > start ? end - start : 0; }

// Iterations of `for (i = start; i < bound; i += step)` (`<=` when inclusive), or for a negative
// step of `i > bound` (`>=`): what the threads of a parallel loop split.
inline long trip_count(long start, long bound, long step, bool inclusive) {
  if (step < 0) {
    start = -start;
    bound = -bound;
    step = -step;
  }
  const long span = bound - start + (inclusive ? 1 : 0);
  return span > 0 ? (span + step - 1) / step : 0;
}

// The highest set bit of a non-zero word of branch bits: the reverse of a loop whose only work is
// one rarely taken branch visits just the iterations that took it.
inline int highest_bit(unsigned long long word) { return std::bit_width(word) - 1; }

inline bool pop_branch() { return thread_tape<bool>().pop(); }

inline long pop_count() { return thread_tape<long>().pop(); }

// The iterations [lo, hi) of `count` that thread `thread` of `threads` runs. Forward and
// reverse sweeps of a parallel loop use the same split so each thread pops what it pushed.
inline void thread_chunk(long count, int thread, int threads, long& lo, long& hi) {
  long base = count / threads, extra = count % threads;
  lo = thread * base + (thread < extra ? thread : extra);
  hi = lo + base + (thread < extra ? 1 : 0);
}

inline int thread_index() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

inline int thread_count() {
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

// The reverse sweep of a parallel loop must run with the team the forward sweep had.
inline void require_thread_count(int expected) {
  if (thread_count() != expected) {
    std::fprintf(stderr,
                 "adjoint: reverse sweep of a parallel loop got %d threads, forward had %d "
                 "(disable omp_set_dynamic)\n",
                 thread_count(), expected);
    std::abort();
  }
}

// Per-thread copies of an adjoint array that every iteration of a parallel loop may add into (a
// weight's `d_w[c]`, read by every row; docs/adjc.md, "Parallel loops"): each thread of the
// reverse loop adds into its own zeroed copy of the first `count` elements, and after the loop
// and a barrier each thread adds its share of the elements, summed over the copies in thread
// order, into the adjoint. No atomics, and the result does not depend on timing. The copies live
// in the calling thread's storage, which only grows, so a warm step allocates nothing; `slot`
// tells apart the arrays of one loop.
template <class T>
class thread_sums {
 public:
  thread_sums(T* adjoint, long count, long threads, int slot)
      : adjoint_(adjoint), count_(count > 0 ? count : 0), threads_(threads), copies_(storage(slot, count_ * threads)) {}

  // Thread `thread`'s copy, zeroed.
  T* part(int thread) const {
    T* copy = copies_ + thread * count_;
    for (long i = 0; i < count_; ++i) copy[i] = T(0);
    return copy;
  }

  // Adds thread `thread`'s share of the sums into the adjoint: once every copy is complete.
  void add_share(int thread) const {
    long lo, hi;
    thread_chunk(count_, thread, static_cast<int>(threads_), lo, hi);
    for (long t = 0; t < threads_; ++t) {
      const T* copy = copies_ + t * count_;
      for (long i = lo; i < hi; ++i) adjoint_[i] += copy[i];
    }
  }

 private:
  static T* storage(int slot, long elements) {
    thread_local std::vector<std::vector<T>> blocks;
    const std::size_t s = static_cast<std::size_t>(slot), n = static_cast<std::size_t>(elements);
    if (blocks.size() <= s) blocks.resize(s + 1);
    if (blocks[s].size() < n) blocks[s].resize(n);
    return blocks[s].data();
  }

  T* adjoint_;
  long count_, threads_;
  T* copies_;
};

// What adjoint::gradient returns to code that is only being parsed by adjc; constexpr, so that a
// request in a constexpr function reaches adjc, which reports it.
struct gradient_request {
  template <class... Args>
  constexpr void execute(Args&&...) const {}
  constexpr const char* source() const { return ""; }
  constexpr void dump() const {}
  constexpr const void* getFunctionPtr() const { return nullptr; }
};

template <class>
inline constexpr bool requires_adjc = false;

}  // namespace detail

namespace detail {

// The calling thread's tape of T once it exists. A constant-initialised thread_local pointer has
// no guard or TLS wrapper call, so every generated push and pop finds its tape with one load and
// one test (the tape object itself needs a dynamic initialiser and its guard on each access
// cost more than the push: docs/performance.md, "adjc kernels").
template <class T>
constinit thread_local tape<T>* current_tape = nullptr;

template <class T>
[[gnu::noinline]] tape<T>& create_thread_tape() {
  thread_local tape<T> tape_of_thread;
  detail::thread_tapes().push_back(
      {&tape_of_thread, [](const void* t) { return static_cast<const tape<T>*>(t)->size() * sizeof(T); }});
  current_tape<T> = &tape_of_thread;
  return tape_of_thread;
}

}  // namespace detail

template <class T>
inline tape<T>& thread_tape() {
  tape<T>* t = detail::current_tape<T>;
  if (t == nullptr) [[unlikely]]
    return detail::create_thread_tape<T>();
  return *t;
}

inline std::size_t thread_tape_bytes() {
  std::size_t bytes = 0;
  for (const detail::tape_usage& t : detail::thread_tapes()) bytes += t.bytes(t.tape);
  return bytes;
}

namespace detail {

template <class F>
struct grad_parameters;
template <class... P>
struct grad_parameters<void (*)(P...)> {
  using type = std::tuple<P...>;
};

// Whether `Grad` can be called with the elements of the tuple type `T`.
template <auto Grad, class T>
constexpr bool callable_with = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::is_invocable_v<decltype(Grad), std::tuple_element_t<I, T>...>;
}(std::make_index_sequence<std::tuple_size_v<T>>{});

// Whether the first of the arguments `T` is the object Grad takes first (`P`: Grad's parameters).
template <class P, class T>
constexpr bool object_first = [] {
  if constexpr (std::tuple_size_v<T> == 0) return false;
  else return std::is_convertible_v<std::tuple_element_t<0, T>, std::tuple_element_t<0, P>>;
}();

// `t` without its first element.
template <class T>
auto drop_first(T&& t) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::forward_as_tuple(std::get<I + 1>(std::forward<T>(t))...);
  }(std::make_index_sequence<std::tuple_size_v<std::remove_reference_t<T>> - 1>{});
}

// `t` with `value` inserted before its element `At`.
template <std::size_t At, class T, class V>
auto insert_at(T&& t, V&& value) {
  return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
    return std::forward_as_tuple(std::get<I>(std::forward<T>(t))..., std::forward<V>(value),
                                 std::get<At + J>(std::forward<T>(t))...);
  }(std::make_index_sequence<At>{}, std::make_index_sequence<std::tuple_size_v<std::remove_reference_t<T>> - At>{});
}

// `t` with its element `At` replaced by `value`.
template <std::size_t At, class T, class V>
auto replace_at(T&& t, V&& value) {
  return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
    return std::forward_as_tuple(std::get<I>(std::forward<T>(t))..., std::forward<V>(value),
                                 std::get<At + 1 + J>(std::forward<T>(t))...);
  }(std::make_index_sequence<At>{},
         std::make_index_sequence<std::tuple_size_v<std::remove_reference_t<T>> - At - 1>{});
}

// Whether the arguments `T` (all of Grad's, `P`) give for the object's adjoint, Grad's parameter
// `At`, a pointer to another class laid out as the object's, or to a volatile object: Clad's
// execute takes those (an `Experiment*` for the adjoint of an `ExperimentConst`).
template <int At, class P, class T>
constexpr bool object_adjoint_alias = [] {
  if constexpr (At < 0 || std::tuple_size_v<T> != std::tuple_size_v<P>) {
    return false;
  } else {
    using Given = std::remove_cvref_t<std::tuple_element_t<At, T>>;
    using Wanted = std::tuple_element_t<At, P>;
    if constexpr (!std::is_pointer_v<Given> || !std::is_pointer_v<Wanted> || std::is_same_v<Given, Wanted>) {
      return false;
    } else {
      using Class = std::remove_cv_t<std::remove_pointer_t<Given>>;
      return std::is_class_v<Class> && std::is_layout_compatible_v<Class, std::remove_pointer_t<Wanted>>;
    }
  }
}();

// Whether the arguments `T` are Grad's (`P`) up to its adjoints, then one array (not a pointer:
// its extent is checked) of exactly as many elements as Grad has adjoint pointers, each `A*` for
// the array's `A`: Clad's early form, `execute(x, y, result)` with result[i] the i-th adjoint.
template <class P, class T>
constexpr bool adjoints_in_one_array = [] {
  constexpr std::size_t n = std::tuple_size_v<T>, all = std::tuple_size_v<P>;
  if constexpr (n == 0 || n > all) {
    return false;
  } else {
    using Given = std::remove_reference_t<std::tuple_element_t<n - 1, T>>;
    if constexpr (!std::is_bounded_array_v<Given> || std::extent_v<Given> != all - (n - 1)) {
      return false;
    } else {
      using Adjoint = std::remove_extent_t<Given>*;
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return (std::is_same_v<Adjoint, std::tuple_element_t<n - 1 + I, P>> && ...);
      }(std::make_index_sequence<all - (n - 1)>{});
    }
  }
}();

// A parameter of f that Clad gives an adjoint and adjc does not: an integer, bool or enum, by value,
// reference or pointer.
template <class P>
constexpr bool integer_parameter = [] {
  using V = std::remove_cv_t<std::remove_pointer_t<std::remove_cvref_t<P>>>;
  return std::is_integral_v<V> || std::is_enum_v<V>;
}();

// Which of f's K parameters (Grad's first K) are integer parameters.
template <class P, std::size_t K>
constexpr std::array<bool, K> integer_parameters = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<bool, K>{integer_parameter<std::tuple_element_t<I, P>>...};
}(std::make_index_sequence<K>{});

// Whether the arguments `T` are f's K arguments then one adjoint for each, integer parameters
// included (Clad's execute, K = half of them), where Grad takes f's K and the others' adjoints.
template <class P, class T>
constexpr bool integer_adjoints_given = [] {
  constexpr std::size_t n = std::tuple_size_v<T>, all = std::tuple_size_v<P>, k = n / 2;
  if constexpr (n % 2 != 0 || n <= all || k >= all) {
    return false;
  } else {
    constexpr auto integer = integer_parameters<P, k>;
    std::size_t integers = 0;
    for (bool i : integer) integers += i;
    return integers > 0 && all - k == k - integers;
  }
}();

// `t` without the adjoints (after f's K arguments) of integer parameters, which adjc does not take.
template <class P, std::size_t K, class T>
auto drop_integer_adjoints(T&& t) {
  constexpr std::size_t all = std::tuple_size_v<P>;
  constexpr std::array<std::size_t, all> kept = [] {
    std::array<std::size_t, all> out{};
    std::size_t at = 0;
    for (std::size_t i = 0; i < 2 * K; ++i)
      if (i < K || !integer_parameters<P, K>[i - K]) out[at++] = i;
    return out;
  }();
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return std::forward_as_tuple(std::get<kept[J]>(std::forward<T>(t))...);
  }(std::make_index_sequence<all>{});
}

// `t`'s last element, an array, replaced by a pointer to each of its elements.
template <class T>
auto spread_last_array(T&& t) {
  constexpr std::size_t last = std::tuple_size_v<std::remove_reference_t<T>> - 1;
  auto& array = std::get<last>(t);
  constexpr std::size_t size = std::extent_v<std::remove_reference_t<decltype(array)>>;
  return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
    return std::tuple_cat(std::forward_as_tuple(std::get<I>(std::forward<T>(t))...), std::make_tuple(&array[J]...));
  }(std::make_index_sequence<last>{}, std::make_index_sequence<size>{});
}

}  // namespace detail

// A generated gradient: `Grad` is the function adjc generated (resolved at compile time). For a
// member function or function object differentiated in its object too, `ObjectAdjoint` is the
// index of the object's adjoint among Grad's parameters (else -1); `Bound`: the request named the
// object (`adjoint::gradient(E)` for a function object E), which `bound` points to. Besides Grad's
// own arguments, execute takes, as Clad's does, the object by reference (`g.execute(obj, x, &d_x)`),
// no object when the request named one, no object adjoint (a zeroed one is used and dropped),
// an object adjoint of a class laid out as the object's, or volatile (read as the object's class),
// adjoints for integer parameters too (Clad's; dropped: adjc takes no derivative through integers),
// and (Clad's early form) one array of all the adjoints after f's arguments.
template <auto Grad, int ObjectAdjoint = -1, bool Bound = false>
struct gradient_function {
  using parameters = typename detail::grad_parameters<decltype(Grad)>::type;
  using object_pointer = std::tuple_element_t<0, std::conditional_t<Bound, parameters, std::tuple<const void*>>>;
  const char* generated_source;
  object_pointer bound = nullptr;

  template <class... Args>
  void execute(Args&&... args) const {
    call(std::forward_as_tuple(std::forward<Args>(args)...));
  }
  const char* source() const { return generated_source; }
  // Prints the generated code (Clad's CladFunction::dump).
  void dump() const { std::printf("The code is: \n%s\n", generated_source); }
  // The generated function (Clad's CladFunction::getFunctionPtr).
  auto getFunctionPtr() const { return Grad; }

 private:
  template <class T>
  void call(T&& t) const {
    using Tuple = std::remove_cvref_t<T>;
    constexpr std::size_t n = std::tuple_size_v<Tuple>, all = std::tuple_size_v<parameters>;
    if constexpr (detail::callable_with<Grad, Tuple>) {
      std::apply(Grad, std::forward<T>(t));
    } else if constexpr (n > 0 && std::is_lvalue_reference_v<std::tuple_element_t<0, Tuple>> &&
                         std::is_class_v<std::remove_cvref_t<std::tuple_element_t<0, Tuple>>> &&
                         detail::object_first<parameters, std::tuple<std::remove_reference_t<
                                                              std::tuple_element_t<0, Tuple>>*>>) {
      // The object by reference: by pointer, as Grad takes it.
      call(std::tuple_cat(std::make_tuple(std::addressof(std::get<0>(t))), detail::drop_first(std::forward<T>(t))));
    } else if constexpr (Bound && (n + 2 == all || (n + 1 == all && !detail::object_first<parameters, Tuple>))) {
      call(std::tuple_cat(std::make_tuple(bound), std::forward<T>(t)));
    } else if constexpr (detail::object_adjoint_alias<ObjectAdjoint, parameters, Tuple>) {
      using Object = std::remove_pointer_t<std::tuple_element_t<ObjectAdjoint, parameters>>;
      using Given = std::remove_pointer_t<std::remove_cvref_t<std::tuple_element_t<ObjectAdjoint, Tuple>>>;
      auto* object = const_cast<std::remove_cv_t<Given>*>(std::get<ObjectAdjoint>(t));
      call(detail::replace_at<ObjectAdjoint>(std::forward<T>(t), reinterpret_cast<Object*>(object)));
    } else if constexpr (detail::integer_adjoints_given<parameters, Tuple>) {
      call(detail::drop_integer_adjoints<parameters, n / 2>(std::forward<T>(t)));
    } else if constexpr (detail::adjoints_in_one_array<parameters, Tuple>) {
      std::apply(Grad, detail::spread_last_array(std::forward<T>(t)));
    } else {
      static_assert(ObjectAdjoint >= 0 && n + 1 == all && detail::object_first<parameters, Tuple>,
                    "adjoint::gradient_function::execute: these arguments match no form of the gradient "
                    "(docs/adjc.md, \"Asking for a gradient\")");
      using Object = std::remove_pointer_t<std::tuple_element_t<ObjectAdjoint, parameters>>;
      Object scratch = detail::zeroed<Object>();
      std::apply(Grad, detail::insert_at<ObjectAdjoint>(std::forward<T>(t), &scratch));
    }
  }
};

// A generated gradient of a lambda with captures: `execute` passes the captured values first (the
// lambda's copies, and std::reference_wrappers of what it captures by reference), as constants.
template <auto Grad, class... Captured>
struct closure_gradient_function {
  const char* generated_source;
  std::tuple<Captured...> captured;

  template <class... Args>
  void execute(Args&&... args) const {
    std::apply([&](const Captured&... c) { Grad(c..., std::forward<Args>(args)...); }, captured);
  }
  const char* source() const { return generated_source; }
  void dump() const { std::printf("The code is: \n%s\n", generated_source); }
};

template <auto Grad, class... Captured>
closure_gradient_function<Grad, Captured...> closure_gradient(const char* source, Captured... captured) {
  return {source, {captured...}};
}

// Marks a function, data member, variable or class whose values adjc treats as constants: no
// derivative flows through them, and calls of such a function run as written (Clad's
// `non_differentiable`; adjc reads the annotation clang records, which other compilers ignore).
#if defined(__clang__)
#define ADJOINT_NON_DIFFERENTIABLE __attribute__((annotate("non_differentiable")))
#else
#define ADJOINT_NON_DIFFERENTIABLE
#endif

// Requests the gradient of `fn` with respect to the named parameters (comma-separated; empty
// = every differentiable parameter). adjc replaces the call; see docs/adjc.md.
#ifdef ADJOINT_ADJC
// Defined, so that a lambda's (unnamed) type may be passed while adjc parses the unit.
template <class F>
constexpr detail::gradient_request gradient(F&&, const char* = "") {
  return {};
}
#else
template <class F>
detail::gradient_request gradient(F&&, const char* = "") {
  static_assert(detail::requires_adjc<F>,
                "adjoint::gradient needs the adjc compiler: build this file with "
                "adjoint_add_gradients() in CMake, or run `adjc in.cpp -o out.cpp -- <flags>`");
  return {};
}
#endif

}  // namespace adjoint

#include "adjoint/tangent.hpp"
#include "adjoint/hessian.hpp"
#include "adjoint/jacobian.hpp"
#include "adjoint/tangent_vector.hpp"

// std::complex in differentiated code needs adjoint/complex.hpp (docs/adjc.md, "std::complex");
// included here when <complex> came first, so that units not using it do not pay for it.
#if defined(_GLIBCXX_COMPLEX) || defined(_LIBCPP_COMPLEX)
#include "adjoint/complex.hpp"
#endif
