#pragma once
// The walks the analyses make over the expressions an IR node holds (beside walk.hpp's over clang
// statements and ir.hpp's for_each_node over the nodes). An expression's operands are its children
// that are expressions: a statement inside one (a lambda's body, a statement expression) is no
// operand, and is not entered.

#include <clang/AST/Expr.h>

#include "classify.hpp"

namespace adjc {

// A pre-order walk of `e` and its operands, all the way down: `visit(x)` for each (never null),
// which returns whether to walk x's operands.
template <class Visit>
void walk_operands(const clang::Expr* e, Visit&& visit) {
  if (!e || !visit(e)) return;
  for (const clang::Stmt* c : e->children()) walk_operands(llvm::dyn_cast_or_null<clang::Expr>(c), visit);
}

// The same walk over the expressions as `strip` leaves them (parentheses, implicit casts and the
// other wrappers strip removes are skipped: classify.hpp): `visit(strip(x))`, then the operands of
// that.
template <class Visit>
void walk_stripped(const clang::Expr* e, const UnitFacts& unit, Visit&& visit) {
  if (!e) return;
  e = strip(e, unit);
  if (!visit(e)) return;
  for (const clang::Stmt* c : e->children()) walk_stripped(llvm::dyn_cast_or_null<clang::Expr>(c), unit, visit);
}

// A post-order walk over the stripped expressions: `visit(strip(x))` after x's operands.
template <class Visit>
void walk_stripped_post(const clang::Expr* e, const UnitFacts& unit, Visit&& visit) {
  if (!e) return;
  e = strip(e, unit);
  for (const clang::Stmt* c : e->children()) walk_stripped_post(llvm::dyn_cast_or_null<clang::Expr>(c), unit, visit);
  visit(e);
}

}  // namespace adjc
