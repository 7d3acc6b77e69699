#pragma once
// Calls of functions that return a pointer into the array a pointer argument points to
// (docs/adjc.md, "Pointers returned by functions"): `double* z = advance(a, 1);`, `*skip(a, k)`.

#include <clang/AST/ASTContext.h>

#include "ir.hpp"

namespace adjc {

// Rewrites, in `fn`'s body, each call of a user function returning a pointer to numbers that only
// moves one of its pointer parameters (`pointer_result_parameter`) into `b + (f(args) - b)`, `b`
// the variable the argument for that parameter points into: a pointer into b's array, offset by an
// integer the call computes from its arguments alone (wherever b's array is, as in the reverse
// sweep). Such a function reads and writes no memory; it is recorded in UnitFacts::pointer_results
// with a CallSummary saying so, and its calls are plain integer computations without derivative.
// Reports calls of other functions returning pointers to numbers (false).
bool rewrite_pointer_results(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context,
                             Diagnostics& diags);

}  // namespace adjc
