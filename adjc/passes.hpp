#pragma once
// The passes over the IR, each with one job (docs/adjc.md):
//   lower            clang AST -> IR (rejects what adjc cannot differentiate)
//   analyze_activity which variables and memory depend on the active parameters
//   plan_tape        what the reverse sweep reads, and which overwrites it must tape
// and the expression helpers they share. Emission lives in emit.cpp.

#include <map>
#include <string>
#include <vector>

#include "ir.hpp"

namespace adjc {

enum class MathFn { None, Exp, Log, Sqrt, Tanh, Pow, Sin, Cos, Fabs, Fmax, Fmin, Erf };

// exp/expf/std::exp, ... ; MathFn::None for anything else.
MathFn math_function(const clang::CallExpr* call);

// Custom derivatives found in namespace adjoint::custom_derivatives (free functions) and
// adjoint::custom_derivatives::class_functions (member functions), by name (`f_pullback`).
struct CustomPullbacks {
  std::multimap<std::string, const clang::FunctionDecl*> free, members;
};

// Value classes: record types V for which the unit declares `accumulate_adjoint(V&, const V&)`.
// Found once per translation unit, before any other pass runs.
void find_value_classes(clang::ASTContext& context);
bool is_value_class(clang::QualType t);  // references and cv-qualifiers ignored
// Floating scalars and value classes: values whose adjoint is a value of the same type.
bool is_adjoint_value(clang::QualType t);
// `V{}`, `V()`: an empty value-class handle.
bool is_empty_value(const clang::Expr* e);

// A parameter as adjc differentiates it: a member function's object comes first, as a pointer
// (`const C*`), then the declared parameters.
struct AdParam {
  clang::QualType type;
  const clang::ParmVarDecl* decl = nullptr;  // nullptr: the object
};
std::vector<AdParam> ad_params(const clang::FunctionDecl* fn);
// A call's arguments aligned with ad_params(callee); `address`: the object is an lvalue whose
// address is passed.
struct AdArg {
  const clang::Expr* expr;
  bool address = false;
};
std::vector<AdArg> ad_args(const clang::CallExpr* call);
// The name generated and custom functions are derived from: `f`, `operator_plus`, ...; empty
// for operators adjc does not support.
std::string base_name(const clang::FunctionDecl* fn);
// A call that needs no derivative: its result carries none and it writes nothing.
bool derivative_free(const clang::FunctionDecl* callee);

// What a call to a non-math function is, for differentiation.
enum class CalleeKind { Plain, User, Custom };
CalleeKind callee_kind(const clang::FunctionDecl* callee, const CustomPullbacks& custom);
// Calls lowered to Call nodes (their results are temporaries the tape plan can save): those with
// a derivative, and derivative-free calls that read differentiable arguments.
bool hoisted_callee(const clang::FunctionDecl* callee, const CustomPullbacks& custom);
const clang::FunctionDecl* custom_pullback(const clang::FunctionDecl* callee, const CustomPullbacks& custom);

// A parameter marked ADJOINT_WRITE_ONCE (adjoint/ad.hpp): calls write each element of its memory
// at most once, so a call's write never destroys a value another call's pullback reads.
bool is_write_once(const Var* region);
const clang::Expr* strip(const clang::Expr* e);  // parens, implicit casts, cleanups
bool is_floating(clang::QualType t);
bool is_written_param(clang::QualType param);  // pointer/reference to non-const data

std::unique_ptr<FunctionIR> lower(const clang::FunctionDecl* fn, clang::ASTContext& context,
                                  Diagnostics& diags, const CustomPullbacks& custom);

// Which variables (and, for memory, which regions) carry derivatives.
struct Activity {
  std::vector<char> varied;  // by Var::index
  bool of(const Var* v) const { return v && varied[v->index]; }
};

// The region (array, struct, reference or pointer parameter) an lvalue or pointer expression
// lies in; nullptr when `e` is not memory of this function's variables.
Var* memory_root(const FunctionIR& ir, const clang::Expr* e);

// Whether `e` reads a varied value (floating subexpressions only).
bool reads_varied(const FunctionIR& ir, const Activity& act, const clang::Expr* e);

// Whether an argument for a parameter of type `param` carries a derivative under `act`.
bool arg_varied(const FunctionIR& ir, const Activity& act, clang::QualType param, const clang::Expr* arg);

// Whether a call node has derivative work under `act`.
bool call_active(const FunctionIR& ir, const Activity& act, const Node* call);

// `active[i]` for each parameter. Reports writes of varied values into memory without an
// adjoint (parameters not in `active`) when `diags` is given.
Activity analyze_activity(const FunctionIR& ir, const std::vector<bool>& active, Diagnostics* diags,
                          clang::SourceLocation request);

// Every differentiable parameter active.
std::vector<bool> all_differentiable(const clang::FunctionDecl* fn);

// Fills Node::active/save/reverse and Var::read_in_reverse/recompute/kept.
void plan_tape(FunctionIR& ir, const Activity& full, const CustomPullbacks& custom, Diagnostics& diags);

// Values (primal subexpressions) whose value the reverse sweep of `e` needs when `e` receives an
// adjoint: e.g. for `a * b` with both varied, both `a` and `b`.
void needed_values(const FunctionIR& ir, const Activity& act, const clang::Expr* e,
                   std::vector<const clang::Expr*>& out);

// Regions that parallel loop `loop` only ever accesses as `p[i]`, with `i` its counter and `p` a
// pointer parameter: every thread touches only its own iterations' elements, so their adjoints
// can be accumulated without atomics.
std::set<const Var*> counter_indexed_regions(const FunctionIR& ir, const Node* loop);

// Whether local `v` is declared in `block` or in a block inside it.
bool declared_in(const Var* v, const Node* block);

// Variables read anywhere in `e` (including through memory: the region roots), appended to `out`.
void variables_read(const FunctionIR& ir, const clang::Expr* e, std::vector<Var*>& out);

}  // namespace adjc
