#pragma once
// Forward (tangent) mode: `adjoint::derivative(f, "x")`. From a function's lowered IR (the same
// lowering as reverse mode, pipeline.cpp) adjc emits its pushforward, `f_pushforward(args...,
// tangents...)` returning `{value, tangent}`, for the parameters whose tangents vary; no tape. The
// check (check-tangents, tangent_check.cpp) rejects what forward mode cannot differentiate; the
// emitter (emit_pushforward.cpp) prints a pushforward for one activity pattern; the generator
// (tangent_generator.cpp) emits every pushforward a request needs and the request's function.
// Names: "forward" in emit_forward.cpp is reverse mode's forward sweep; this mode says "tangent".

#include <memory>
#include <string>
#include <vector>

#include "emit.hpp"
#include "pipeline.hpp"

namespace adjc {

// Which parameters carry a tangent: one flag per ad_params entry (as reverse mode's Mask).
// A pushforward of `fn` under `mask`: named `f_pushforward` when every differentiable parameter
// carries a tangent, else `f_pushforward_<mask>` (its other tangents are never read).
std::string pushforward_name(const clang::FunctionDecl* fn, const Mask& mask, const UnitFacts& unit);

// The custom pushforward calls of `callee` use (`f_pushforward` in adjoint::custom_derivatives or
// clad::custom_derivatives), or nullptr.
const clang::NamedDecl* custom_pushforward(const clang::FunctionDecl* callee, const UnitFacts& unit);

// Forward mode's passes, in order (pipeline.cpp).
std::vector<Pass> tangent_passes();

// The tangent passes' entry (pipeline.cpp, tangent_passes): under full activity, reports what
// forward mode does not support in `state`'s function (tangent_check.cpp).
void check_tangents(FunctionState& state);

// What a derivative request differentiates with respect to: parameter `param` (an ad_params
// index); a whole floating scalar or array when `element` < 0, else that element of an array.
struct TangentSeed {
  size_t param = 0;
  long element = -1;
};

// Builds pushforwards on demand and prints them at the end of the translation unit. Functions are
// lowered and planned once per unit, by the reverse-mode generator (`planned`), whichever mode
// asks first: the lowering's rewrites edit a function's AST in place.
class TangentGenerator {
 public:
  TangentGenerator(Generator& planned, clang::ASTContext& context, const UnitFacts& unit, Diagnostics& diags);
  ~TangentGenerator();
  // The derivative function of `fn`'s result along `seed` (`f_darg0`); nothing useful after an error.
  GeneratedGradient request(const clang::FunctionDecl* fn, const TangentSeed& seed, clang::SourceLocation where);
  // Every generated pushforward and derivative function ("" when there was no request).
  std::string generated_code() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The function a derivative or Hessian request names (a function or member function, by name),
// defined; nullptr (reported) otherwise.
const clang::FunctionDecl* derivative_target(const clang::CallExpr* call, const UnitFacts& unit, Diagnostics& diags);

// The parameter `spec` names ("x", "x[2]", "0"), as an ad_params index and element; false after
// an error.
bool parse_seed(const clang::FunctionDecl* fn, std::string spec, TangentSeed& seed, Diagnostics& diags,
                clang::SourceLocation at);

// A Hessian request (adjoint::hessian, hessian_diagonal, hessian_vector; hessian_request.cpp): the
// first derivatives it needs generated (their declarations in `declaration`), and the text that
// replaces it, which holds the requests of the next stage (nesting.hpp); "" after an error.
std::string hessian_request(const clang::CallExpr* call, const UnitFacts& unit, Diagnostics& diags,
                            TangentGenerator& tangents, std::string& declaration);

// The order a derivative request asks for (adjoint::derivative<N>'s N; Clad's option word's order).
long derivative_order(const clang::CallExpr* request);

// A derivative request (adjoint::derivative, clad::differentiate; tangent_request.cpp): the text
// that replaces the call, and in `declaration` what must be declared before it ("" after an error).
// Of order N > 1, the text is a request of order N-1 of the first derivative (nesting.hpp).
std::string derivative_request(const clang::CallExpr* call, const UnitFacts& unit, Diagnostics& diags,
                               TangentGenerator& tangents, std::string& declaration);

// Emits the pushforward of one function for one activity pattern.
class PushforwardEmitter {
 public:
  PushforwardEmitter(const FunctionIR& ir, const Activity& act, const Mask& mask, const TypePrinter& types,
                     Diagnostics& diags)
      : ir_(ir), act_(act), mask_(mask), types_(types), diags_(diags), print_(ir, types) {}

  // The pushforwards of callees the emitted code calls, by activity pattern.
  std::vector<CalleeRequest> callees;

  // `R f_pushforward(params..., tangents...)`; R is value_and_pushforward<T> for a floating result T.
  // With `body`, a parameter it does not use is [[maybe_unused]].
  std::string signature(const Emitter& names, const Code* body = nullptr) const;
  std::string definition(const Emitter& names);

 private:
  const FunctionIR& ir_;
  const Activity& act_;
  const Mask& mask_;
  const TypePrinter& types_;
  Diagnostics& diags_;
  Printer print_;
  int temp_ = 0;

  std::string tangent_params() const;
  std::string return_statement() const;
  void node(Node* n, Code& code);
  void children(Node* block, Code& code);
  void assign(Node* n, Code& code);
  void call(Node* n, Code& code);
  std::string call_tangent_args(Node* n, Mask& callee_mask, Code& code);
  void loop(Node* n, Code& code);
  void jump(Node* n, Code& code);
  // The tangent of floating expression `e` as C++ text; "" when it is zero.
  std::string tangent(const clang::Expr* e);
  std::string rule_tangent(const clang::Expr* e);
  // The tangent memory (an lvalue) mirroring lvalue `e`, or the tangent pointer of pointer `e`.
  std::string tangent_place(const clang::Expr* e) const;
  std::string zero_of(clang::QualType t) const;
};

}  // namespace adjc
