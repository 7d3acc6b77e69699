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
#include "requests.hpp"

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

// A call whose result is an integer (`v.size()`, an index) and that writes through no parameter, or
// of a function marked non_differentiable (Clad's mark, classify.hpp): nothing of it carries a
// tangent, so forward mode calls it as written (tangent_check.cpp).
bool carries_no_tangent(const Node* call);

// What a derivative request differentiates with respect to: parameter `param` (an ad_params
// index); a whole floating scalar or array when `element` < 0, else that element of an array.
// `member`: a struct parameter's floating member (".x" of "t.x", ".a.x" of "t.a.x"), else "".
struct TangentSeed {
  size_t param = 0;
  long element = -1;
  std::string member;
  // A function object's data member (or its element), when `param` is the object.
  const clang::FieldDecl* field = nullptr;
};

// A function whose pushforward returns its struct result with the struct's tangent, as it returns
// a floating result with its tangent (value_and_pushforward<S>).
bool struct_result(const clang::FunctionDecl* f, const UnitFacts& unit);

// Builds pushforwards on demand and prints them at the end of the translation unit. Functions are
// lowered and planned once per unit, by the reverse-mode generator (`planned`), whichever mode
// asks first: the lowering's rewrites edit a function's AST in place.
class TangentGenerator {
 public:
  TangentGenerator(Generator& planned, clang::ASTContext& context, const UnitFacts& unit, Diagnostics& diags);
  ~TangentGenerator();
  // The derivative function of `fn`'s result along `seed` (`f_darg0`); nothing useful after an error.
  GeneratedGradient request(const clang::FunctionDecl* fn, const TangentSeed& seed, clang::SourceLocation where);
  // The pushforward of `fn` under `mask` (a Jacobian's, jacobian_request.cpp): its qualified name
  // in `function_value`, its declaration and that of a function returning its code (named in
  // `source_function`) in `declaration`, on one line; nothing useful after an error.
  // `lanes` > 0: in vector mode, each tangent carrying that many directions.
  GeneratedGradient pushforward(const clang::FunctionDecl* fn, const Mask& mask, int lanes = 0);
  // The members requests add to classes: (class, declaration), each declaration on one line, to
  // insert before the class's closing brace (an override of a derivative a base class declares).
  const std::vector<std::pair<const clang::CXXRecordDecl*, std::string>>& member_declarations() const;
  // Defines `code`, function `name` of `fn`'s namespace, once, with the generated functions.
  void define(const clang::FunctionDecl* fn, const std::string& name, const std::string& code);
  // Every generated pushforward and derivative function ("" when there was no request).
  std::string generated_code() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The length of a fixed-size array parameter (`double x[4]`, `std::array<double, 4>`), else 0.
unsigned long fixed_length(const clang::ParmVarDecl* p, clang::ASTContext& context);

// The function a derivative, Hessian or Jacobian request names (resolve_requested, requests.hpp);
// false (reported, as `not_a_function` when it names no function) otherwise.
bool requested_target(const clang::CallExpr* call, const UnitFacts& unit, Diagnostics& diags, Diag not_a_function,
                      RequestedFunction& req);
// `request`, the text of what a request of `req` returns, with what execute leaves out bound to it
// (adjoint::detail::bind_leading): the function object a request names, a lambda's captures.
std::string bound_request(const RequestedFunction& req, const std::string& request);

// The parameter `spec` names ("x", "x[2]", "0"; the parameters before `first`, a closure's
// captures, are not counted), as an ad_params index and element; for a function object whose
// operator() takes no parameters, a data member of its class (Clad's meaning); false after an error.
bool parse_seed(const clang::FunctionDecl* fn, std::string spec, TangentSeed& seed, Diagnostics& diags,
                clang::SourceLocation at, unsigned first = 0);

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

// A Jacobian request (adjoint::jacobian, clad::jacobian; jacobian_request.cpp): as
// derivative_request, its pullback built by `generator` and its pushforward by `tangents`. With
// `vector_derivative`, a vector-mode derivative request (adjoint::derivative<adjoint::vector_mode>,
// Clad's differentiate<clad::opts::vector_mode>): the one-row Jacobian of f's result, in one sweep.
std::string jacobian_request(const clang::CallExpr* call, const UnitFacts& unit, Diagnostics& diags,
                             Generator& generator, TangentGenerator& tangents, std::string& declaration,
                             bool vector_derivative = false);

// Whether a derivative request asks for vector mode (jacobian_request.cpp).
bool vector_mode_requested(const clang::CallExpr* call);

// Emits the pushforward of one function for one activity pattern.
class PushforwardEmitter {
 public:
  // `lanes` > 0: vector mode, each tangent an adjoint::tangent_vector of that many directions
  // (tangent_vector.cpp).
  PushforwardEmitter(const FunctionIR& ir, const Activity& act, const Mask& mask, const TypePrinter& types,
                     Diagnostics& diags, int lanes = 0)
      : ir_(ir), act_(act), mask_(mask), types_(types), diags_(diags), print_(ir, types), lanes_(lanes) {}

  // The pushforwards of callees the emitted code calls, by activity pattern.
  std::vector<CalleeRequest> callees;

  // `R f_pushforward(params..., tangents...)`; R is value_and_pushforward<T> for a floating result T.
  // With `body`, a parameter it does not use is [[maybe_unused]].
  std::string signature(const Emitter& names, const Code* body = nullptr) const;
  std::string value_and_pushforward(clang::QualType result) const;
  std::string definition(const Emitter& names);

 private:
  const FunctionIR& ir_;
  const Activity& act_;
  const Mask& mask_;
  const TypePrinter& types_;
  Diagnostics& diags_;
  Printer print_;
  int temp_ = 0;
  int lanes_ = 0;

  std::string tangent_params() const;
  std::string return_statement() const;
  void node(Node* n, Code& code);
  void children(Node* block, Code& code);
  void assign(Node* n, Code& code);
  // Each math call in `e` whose derivative reads its value (tanh, exp, sqrt) computed once, into a
  // temporary that the tangent and the assignment both read.
  void name_call_values(const clang::Expr* e, Code& code);
  void call(Node* n, Code& code);
  std::string call_tangent_args(Node* n, Mask& callee_mask, Code& code);
  void loop(Node* n, Code& code);
  // `int i`: a canonical loop's counter, declared in its `for`.
  std::string counter_declaration(const Var* counter) const;
  void jump(Node* n, Code& code);
  // The tangent of floating expression `e` as C++ text; "" when it is zero.
  std::string tangent(const clang::Expr* e);
  std::string rule_tangent(const clang::Expr* e);
  // The tangent memory (an lvalue) mirroring lvalue `e`, or the tangent pointer of pointer `e`.
  std::string tangent_place(const clang::Expr* e) const;
  std::string zero_of(clang::QualType t) const;
  // The statement declaring tangent `declared` (its type and name) with `value`: in vector mode
  // initialised directly, so that a double tangent may narrow into a float one, as numbers do.
  std::string initialised(const std::string& declared, const std::string& value) const;
  // The declaration of a tangent of type `t` named `name` (a tangent_vector's in vector mode), and
  // of a parameter's tangent; "" in vector mode for what it does not support.
  std::string tangent_declaration(clang::QualType t, const std::string& name) const;
  std::string tangent_parameter(const Var* v, const std::string& name) const;
  std::string name_of(const clang::FunctionDecl* fn, const Mask& mask) const;
};

// The pushforward's name in vector mode with `lanes` directions: pushforward_name + `_v<lanes>`.
std::string vector_pushforward_name(const clang::FunctionDecl* fn, const Mask& mask, int lanes, const UnitFacts& unit);

}  // namespace adjc
