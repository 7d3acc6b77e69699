#pragma once
// The passes over the IR, in the order generator.cpp runs them (docs/adjc-internals.md):
//   lower            clang AST -> IR (rejects what adjc cannot differentiate)      lower*.cpp, supported.cpp
//   analyze_activity which variables and memory depend on the active parameters  activity.cpp
//   plan_tape        what the reverse sweep reads, and which overwrites it tapes  tape_*.cpp, loop_plans.cpp

#include <vector>

#include "classify.hpp"

namespace adjc {

// The IR keeps `unit` (FunctionIR::unit) for the passes that follow.
std::unique_ptr<FunctionIR> lower(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context,
                                  Diagnostics& diags);

// What adjc supports, checked while lowering; anything else is reported and marks `ir` invalid.
void check_function(FunctionIR& ir, clang::ASTContext& context, Diagnostics& diags);
void check_expression(FunctionIR& ir, Diagnostics& diags, const clang::Expr* e);
// The same for a call that is a statement of its own (its result discarded).
void check_statement_call(FunctionIR& ir, Diagnostics& diags, const clang::CallExpr* call);
// The report of a statement or expression adjc has no rule for: what it is, in words
// ("constructing a 'std::greater<double>' here"), and its Clang class.
Message unsupported_construct(const clang::Stmt* s);

// Which variables (and, for memory, which regions) carry derivatives.
struct Activity {
  std::vector<char> varied;  // by Var::index
  bool of(const Var* v) const { return v && varied[v->index]; }
};

// Whether `e` reads a varied value (floating subexpressions only).
bool reads_varied(const FunctionIR& ir, const Activity& act, const clang::Expr* e);

// Whether a `const T&` parameter of floating T is bound to a value that is not in memory adjc
// tracks (`hk(u, ...)` with a scalar local, `hk(x[0] * 2, ...)`, `hk(std::min(a, b), ...)`) or to a
// temporary (a float element converted to double): its adjoint is then a scalar of the caller's,
// as for a parameter by value.
bool value_reference(const FunctionIR& ir, clang::QualType param, const clang::Expr* arg);

// Whether an argument for a parameter of type `param` carries a derivative under `act`.
bool arg_varied(const FunctionIR& ir, const Activity& act, clang::QualType param, const clang::Expr* arg);

// Whether a call node has derivative work under `act`.
bool call_active(const FunctionIR& ir, const Activity& act, const Node* call);

// `active[i]` for each parameter.
Activity analyze_activity(const FunctionIR& ir, const std::vector<bool>& active);

// Reports, at the gradient request, writes of varied values into memory without an adjoint
// (differentiable parameters not in `active`).
void check_unselected_writes(const FunctionIR& ir, const Activity& act, const std::vector<bool>& active,
                             Diagnostics& diags, clang::SourceLocation request);

// Fills Node::active/save/reverse and Var::read_in_reverse/recompute/kept.
void plan_tape(FunctionIR& ir, const Activity& full, Diagnostics& diags);

// Values (primal subexpressions) whose value the reverse sweep of `e` needs when `e` receives an
// adjoint: e.g. for `a * b` with both varied, both `a` and `b` (the rules: derivatives.cpp).
void needed_values(const FunctionIR& ir, const Activity& act, const clang::Expr* e,
                   std::vector<const clang::Expr*>& out);

}  // namespace adjc
