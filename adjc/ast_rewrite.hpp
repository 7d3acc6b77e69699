#pragma once
// What the rewrites of a function's body before lowering share (closures.cpp, containers.cpp,
// complex_numbers.cpp): each edits the clang AST in place, reports what it cannot rewrite and
// remembers whether all went well.

#include <clang/AST/ASTContext.h>
#include <clang/AST/StmtOpenMP.h>

#include <string>

#include "adjc.hpp"
#include "classify.hpp"
#include "walk.hpp"

namespace adjc {

class AstRewrite {
 public:
  AstRewrite(const UnitFacts& unit, clang::ASTContext& context, Diagnostics& diags)
      : unit_(unit), context_(context), diags_(diags) {}
  bool ok = true;

 protected:
  const UnitFacts& unit_;
  clang::ASTContext& context_;
  Diagnostics& diags_;

  void fail(clang::SourceLocation at, const Message& m) { fail(at, m.id, m.args); }
  void fail(clang::SourceLocation at, Diag id, std::vector<std::string> args = {}) {
    diags_.error(at, id, std::move(args));
    ok = false;
  }

  // An OpenMP directive or a captured region: `visit` is given the statement it holds, rewritten in
  // place (the directive's captures and helper expressions are not what lowering reads).
  template <class Visit>
  static bool visit_region(clang::Stmt* s, Visit visit) {
    if (!llvm::isa<clang::OMPExecutableDirective, clang::CapturedStmt>(s)) return false;
    if (clang::Stmt* body = region_body(s)) visit(body);
    return true;
  }
};

}  // namespace adjc
