#pragma once
// Function pointers whose function adjc knows (docs/adjc.md, "Function pointers"): a local
// initialised with a function and never assigned, and a parameter every call passes a function
// to. Each use of one names the function, so a call through it is a call of the function. A
// function with function-pointer parameters is differentiated once per combination of functions
// its calls pass: as a copy of it without those parameters (`apply_sq` for `apply(sq, x)`), whose
// uses of them name the functions, and whose calls replace the original calls.

#include <clang/AST/ASTContext.h>

#include "ir.hpp"

namespace adjc {

// A parameter adjc binds to the function each call passes: a pointer or reference to a function.
bool function_parameter(const clang::ParmVarDecl* p);

// A function with its function parameters bound.
struct BoundFunction {
  const clang::FunctionDecl* fn = nullptr;  // the copy; nullptr when it cannot be made (`why`)
  const clang::FunctionDecl* original = nullptr;
  // The original's function parameters, with the function each is bound to.
  std::vector<std::pair<const clang::ParmVarDecl*, const clang::FunctionDecl*>> bound;
  Message why{};
  clang::SourceLocation where;
};

// The copy of `fn` whose function parameters are bound to `functions` (in parameter order), built
// once (UnitFacts::bound_functions).
const BoundFunction& bound_function(const clang::FunctionDecl* fn,
                                    const std::vector<const clang::FunctionDecl*>& functions, const UnitFacts& unit,
                                    clang::ASTContext& context);
// The BoundFunction `fn` is the copy of, else nullptr.
const BoundFunction* as_bound_function(const clang::FunctionDecl* fn, const UnitFacts& unit);

// A function pointer, or a pointer to one (to any depth).
bool function_pointer_chain(clang::QualType t);
// The one function `e` designates: `f`, `(f)`, `&f`, a function pointer variable adjc follows, `*`
// and `&` of those in any nesting (`**&fpp`), and casts of them to exactly the function's pointer
// type; else nullptr, with `why` (when given) saying what stops it. adjc follows a local function
// pointer (or pointer to one) initialised with what designates a function (or such a variable's
// address) whose uses only read it or hold its address in another followed local, and a const
// global.
const clang::FunctionDecl* resolved_function(const clang::Expr* e, std::string* why = nullptr);
// The member function a request's member function pointer variable holds (`auto m = &S::f;
// adjoint::gradient(m)`): initialised with `&S::f`, a copy of such a variable or a pointer to one
// (`*mp`), each only read (a local) or const (a global); else nullptr, with `why` saying what stops
// it.
const clang::CXXMethodDecl* resolved_member_function(const clang::VarDecl* vd, std::string* why);
// Whether adjc follows variable `vd` (above), so each use of it is replaced.
bool followed_function_pointer(const clang::VarDecl* vd);
// Rewrites, in `fn`'s body, each use of a function pointer adjc follows (`double (*g)(double) = sq;`,
// `auto g = &sq;`, `(*fpp)(x)`) into the function itself, so calls through it are direct calls; then each call
// passing functions to function parameters (`apply(sq, x)`, `apply(&sq, x)`, `apply(g, x)`) into a
// call of the copy with them bound (`apply_sq(x)`). Reports arguments that name no function and
// functions that cannot be copied (false).
bool resolve_function_pointers(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context,
                               Diagnostics& diags);

}  // namespace adjc
