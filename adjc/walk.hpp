#pragma once
// The one way adjc's passes walk clang statements. Clang lists a captured region's captures as its
// children, not the statement it captures, so a walk over children() alone never enters an OpenMP
// parallel loop's body: these enter it, once, for every pass that uses them.

#include <clang/AST/Stmt.h>
#include <clang/AST/StmtOpenMP.h>

namespace adjc {

// The statement an OpenMP directive (its innermost captured region) or a captured region holds;
// nullptr for any other statement and for a directive without one.
inline clang::Stmt* region_body(clang::Stmt* s) {
  if (auto* omp = llvm::dyn_cast<clang::OMPExecutableDirective>(s))
    return omp->hasAssociatedStmt() ? omp->getInnermostCapturedStmt()->getCapturedStmt() : nullptr;
  if (auto* captured = llvm::dyn_cast<clang::CapturedStmt>(s)) return captured->getCapturedStmt();
  return nullptr;
}
inline const clang::Stmt* region_body(const clang::Stmt* s) { return region_body(const_cast<clang::Stmt*>(s)); }

// Calls `visit(child)` for each statement a walk enters below `s` (some may be null): a captured
// region's statement, then clang's children.
template <class S, class Visit>
void for_each_child(S* s, Visit&& visit) {
  if (auto* captured = llvm::dyn_cast<clang::CapturedStmt>(s)) visit(captured->getCapturedStmt());
  for (auto* c : s->children()) visit(c);
}

// A pre-order walk of `root` and every statement below it: `visit(s)` for each (never null),
// which returns whether to walk what `s` holds.
template <class Visit>
void walk_statements(const clang::Stmt* root, Visit&& visit) {
  if (!root || !visit(root)) return;
  for_each_child(root, [&](const clang::Stmt* c) { walk_statements(c, visit); });
}

// walk_statements with the statement each one is in: `visit(s, parent)` (`parent` of `root` as
// given), returning whether to walk what `s` holds. `S` is `Stmt` or `const Stmt`.
template <class S, class Visit>
void walk_statements(S* root, const clang::Stmt* parent, Visit&& visit) {
  if (!root || !visit(root, parent)) return;
  for_each_child(root, [&](S* c) { walk_statements(c, root, visit); });
}

// A walk that may replace statements: over the slot `slot` and, through clang's children() (which
// hold no captured region's statement), the slots below it. `pre(slot)` may replace the statement
// and returns whether to walk what the slot then holds; `post(slot)` may replace it once that is
// walked.
template <class Pre, class Post>
void rewrite_statements(clang::Stmt*& slot, Pre&& pre, Post&& post) {
  if (!slot || !pre(slot)) return;
  for (clang::Stmt*& c : slot->children()) rewrite_statements(c, pre, post);
  post(slot);
}

}  // namespace adjc
