#pragma once
// Clad's user API (clad/Differentiator/Differentiator.h) on adjc: code written for Clad builds
// with adjc (adjc++ or adjoint_add_gradients) and any compiler, without Clad's plugin.
//
//   auto g = clad::gradient(f, "x, y");        // or clad::gradient<clad::opts::disable_tbr>(f)
//   g.execute(x, y, &d_x, &d_y);               // adjoints are added into, as Clad's
//   g.dump();                                  // prints adjc's generated code
//
// adjc rewrites each clad::gradient call as it does adjoint::gradient (adjoint/ad.hpp); pullbacks
// in clad::custom_derivatives (and its class_functions and std) are read as adjoint's. Forward
// mode: clad::differentiate(f, "x") (or by position, clad::differentiate(f, 0)) is
// adjoint::derivative (adjoint/tangent.hpp): execute returns the derivative, as Clad's does.
// clad::jacobian is adjoint::jacobian (adjoint/jacobian.hpp), clad::hessian adjoint::hessian
// (adjoint/hessian.hpp) with Clad's inclusive ranges. What differs from Clad: docs/adjc.md, "For
// Clad users".

#include <cassert>  // Clad's header brings assert to code that uses it without including it

#include "adjoint/ad.hpp"
#include "clad/Differentiator/Array.h"
#include "clad/Differentiator/BuiltinDerivatives.h"
#include "clad/Differentiator/CladConfig.h"
#ifndef CLAD_NO_NUM_DIFF
#include "clad/Differentiator/NumericalDiff.h"
#endif
#include "clad/Differentiator/Tape.h"

// Clad's marking of a function, member or type whose value carries no derivative (the annotation
// adjc reads as it reads Clad's non_differentiable).
#define CLAD_NONDIFFERENTIABLE __attribute__((annotate("non_differentiable")))
// Marks a class defined before (`CLAD_NONDIFFERENTIABLE_TYPE(Meter);` at namespace scope): its
// members and member functions carry no derivative, as if the class were CLAD_NONDIFFERENTIABLE.
#define CLAD_NONDIFFERENTIABLE_TYPE(T) \
  template <>                          \
  struct clad::nondifferentiable_type<T> {}

namespace clad {

// Specialised by CLAD_NONDIFFERENTIABLE_TYPE for each class it marks (adjc reads the specialisations).
template <class T>
struct nondifferentiable_type;

namespace detail {
// True while adjc parses the unit (it defines ADJOINT_ADJC), which replaces the requests below;
// dependent on the options, so that only a call compiled without adjc fails.
template <unsigned... Options>
#ifdef ADJOINT_ADJC
inline constexpr bool parsed_by_adjc = true;
#else
inline constexpr bool parsed_by_adjc = false;
#endif
// What adjc puts in place of a request written under `#pragma clad OFF`: no function was
// generated, so getFunctionPtr() is null, as Clad's is, and execute does not compile.
struct disabled_request {
  static constexpr std::nullptr_t getFunctionPtr() { return nullptr; }
  template <class... Args>
  void execute(Args&&...) const {
    static_assert(sizeof...(Args) < 0, "this request is under '#pragma clad OFF': no derivative was generated");
  }
};
}  // namespace detail

// Requests the gradient of `fn` in the parameters `args` names ("x, y", "0", "x[0:2]"; none =
// all). The options steer Clad's analyses (activity, to-be-recorded); adjc's results do not
// depend on them, so they are accepted and ignored. Constexpr, so that a request in a constexpr
// function reaches adjc, which reports it.
template <unsigned... Options, class F>
constexpr adjoint::detail::gradient_request gradient(F&&, const char* = "") {
  static_assert(detail::parsed_by_adjc<Options...>,
                "clad::gradient needs the adjc compiler: build this file with adjc++ (CXX=adjc++), or with "
                "adjoint_add_gradients() in CMake");
  return {};
}

// Requests `fn`'s pullback: as gradient, with the seed of the result (the adjoint it is given)
// after `fn`'s arguments, `execute(x, y, seed, &d_x, &d_y)`; a void function has no seed.
template <unsigned... Options, class F>
constexpr adjoint::detail::gradient_request pullback(F&&, const char* = "") {
  static_assert(detail::parsed_by_adjc<Options...>,
                "clad::pullback needs the adjc compiler: build this file with adjc++ (CXX=adjc++), or with "
                "adjoint_add_gradients() in CMake");
  return {};
}

// Requests the derivative of `fn`'s result in one parameter (forward mode): "x", "x[2]" or its
// position (0). Options: Clad's order in the low 8 bits (1 to 8: clad::differentiate<2> is the second
// derivative, generated in stages as adjoint::derivative<2>).
template <unsigned... Options, class F, class Spec = const char*>
constexpr adjoint::detail::derivative_request<std::decay_t<F>> differentiate(F&&, Spec = "") {
  static_assert(detail::parsed_by_adjc<Options...>,
                "clad::differentiate needs the adjc compiler: build this file with adjc++ (CXX=adjc++), or "
                "with adjoint_add_gradients() in CMake");
  return {};
}

// Requests the Hessian of `fn` with respect to `args` (none = every parameter, all floating
// scalars): floating scalars ("x, y") and ranges of array parameters, Clad's way, the upper bound
// included ("a[0:2]" is a[0], a[1], a[2]); adjoint::hessian (adjoint/hessian.hpp), whose own
// ranges exclude it. execute takes fn's arguments, then the n x n matrix (row-major; rows and
// columns in fn's parameter order). clad::opts::diagonal_only: the n diagonal entries instead.
template <unsigned... Options, class F>
constexpr adjoint::detail::hessian_request hessian(F&&, const char* = "") {
  static_assert(detail::parsed_by_adjc<Options...>,
                "clad::hessian needs the adjc compiler: build this file with adjc++ (CXX=adjc++), or with "
                "adjoint_add_gradients() in CMake");
  return {};
}

// Requests the Jacobian of `fn`'s outputs (the arrays it writes) with respect to the parameters
// `args` names (none = the others): adjoint::jacobian (adjoint/jacobian.hpp); execute takes f's
// arguments, then `&J` for a clad::matrix J sized outputs x inputs.
template <unsigned... Options, class F>
constexpr adjoint::detail::jacobian_request jacobian(F&&, const char* = "") {
  static_assert(detail::parsed_by_adjc<Options...>,
                "clad::jacobian needs the adjc compiler: build this file with adjc++ (CXX=adjc++), or with "
                "adjoint_add_gradients() in CMake");
  return {};
}
template <class T>
using matrix = adjoint::matrix<T>;

}  // namespace clad
