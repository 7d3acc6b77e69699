#pragma once
// Nested requests by staged generation (docs/adjc-internals.md, "Nested requests"). A request whose
// function reaches another request (`adjoint::gradient(loss, "w")` where loss calls a derivative's
// execute) waits: adjc generates the inner requests first, as plain C++ after the unit, and parses
// its own output again, where the outer request finds the inner derivative a user function with a
// body. `adjoint::derivative<N>` is the same: each stage takes one derivative and leaves a request
// of order N-1 of the function it generated.

#include <clang/AST/ASTContext.h>

#include <set>
#include <vector>

#include "classify.hpp"

namespace adjc {

// The requests (calls of adjoint::gradient, adjoint::derivative, ...) whose function reaches,
// through the functions it names and calls, a function in whose body a request is written: they
// wait for a later stage.
std::set<const clang::CallExpr*> waiting_requests(const std::vector<const clang::CallExpr*>& requests,
                                                  clang::ASTContext& context);

// The function a generated derivative object calls (`adjoint::derivative_function<&f_darg0>`),
// for a variable or expression of type `t`; else nullptr.
const clang::FunctionDecl* derivative_object_function(clang::QualType t);

// Rewrites, in `fn`'s body, each `d.execute(args...)` of a generated derivative object (an earlier
// stage's request) into the call of the function it runs (`f_darg0(args...)`), so that the
// derivative is differentiated like any callee; false (reported) when a call cannot be made.
bool resolve_derivative_calls(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context,
                              Diagnostics& diags);

// A generated function's name neither in the unit (an earlier stage's output, parsed again, holds
// its own) nor in `used` (this stage's), which gets it: `stem` + "_<index>", from `index` on.
std::string fresh_name(clang::ASTContext& context, const std::string& stem, size_t index, std::set<std::string>& used);

// Whether an earlier stage generated a function `name` beside `fn` (in the generated code after
// the unit, which this stage parsed again).
bool declared_beside(const clang::FunctionDecl* fn, const std::string& name);

// Whether an earlier stage's generated code holds `text` (a declaration as the generator prints it:
// a reverse sweep of one function and mask has one signature, which overloads on the mask).
bool generated_earlier(const clang::ASTContext& context, const std::string& text);

}  // namespace adjc
