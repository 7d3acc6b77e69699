#pragma once
// The entry points of the analyses over the IR and of the checks lowering runs; the order the
// passes run in is the pipeline's list (pipeline.cpp).

#include <vector>

#include "classify.hpp"

namespace adjc {

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

// Locals of a jump-free loop's body, by Var::index, with that loop: each iteration has its own, so
// the value at the end of an iteration is pushed there and popped when its reverse starts
// (find_iteration_locals, tape_plan.cpp).
struct IterationLocals {
  std::vector<Node*> loop;  // nullptr: not private to an iteration
  Node* of(const Var* v) const { return v && size_t(v->index) < loop.size() ? loop[v->index] : nullptr; }
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

// Values (primal subexpressions) whose value the reverse sweep of `e` needs when `e` receives an
// adjoint: e.g. for `a * b` with both varied, both `a` and `b` (the rules: derivatives.cpp).
void needed_values(const FunctionIR& ir, const Activity& act, const clang::Expr* e,
                   std::vector<const clang::Expr*>& out);

}  // namespace adjc
