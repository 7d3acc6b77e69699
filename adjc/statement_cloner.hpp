#pragma once
// A statement cloner: a deep copy of a function's body (or any statement of it) as new clang AST
// nodes, for passes that make a new function from an old one's body (function_pointers.cpp copies a
// function per function its calls pass). Lowering edits a body in place, so each copy must be
// lowered on its own.

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include <functional>
#include <map>
#include <vector>

namespace adjc {

// Every statement and expression a new node, locals new declarations of `owner`, and each use of a
// declaration in `decls` a use of its replacement (the original's parameters by the copy's). Nodes
// lowering never edits (literals, default arguments, lambdas without captures, which are lowered as
// functions of their own) are shared. A construct it does not copy leaves `unsupported` set.
class StatementCloner {
 public:
  // A use the caller replaces by an expression of its own (nullptr: copied as usual).
  using Replace = std::function<clang::Expr*(const clang::DeclRefExpr*)>;

  StatementCloner(clang::ASTContext& context, clang::FunctionDecl* owner,
                  std::map<const clang::Decl*, clang::Decl*> decls, Replace replace = nullptr)
      : context_(context), copy_(owner), decls_(std::move(decls)), replace_(std::move(replace)) {}

  const clang::Stmt* unsupported = nullptr;

  // The copy of `s` (nullptr for nullptr, or when it holds a construct the cloner does not copy).
  clang::Stmt* stmt(const clang::Stmt* s) {
    if (!s || unsupported) return nullptr;
    clang::Stmt* out = copy(s);
    if (!out && !unsupported) unsupported = s;
    return out;
  }

 private:
  clang::ASTContext& context_;
  clang::FunctionDecl* copy_;
  std::map<const clang::Decl*, clang::Decl*> decls_;
  Replace replace_;
  std::map<const clang::SwitchCase*, clang::SwitchCase*> cases_;

  clang::Expr* expr(const clang::Expr* e) { return llvm::cast_or_null<clang::Expr>(stmt(e)); }
  std::vector<clang::Expr*> exprs(llvm::ArrayRef<const clang::Expr*> es) {
    std::vector<clang::Expr*> out;
    for (const clang::Expr* e : es) out.push_back(expr(e));
    return out;
  }
  template <class D>
  D* decl(D* d) {
    auto it = decls_.find(d);
    return it == decls_.end() ? d : llvm::cast<D>(it->second);
  }

  // A local variable of the copy, mapped before its initialiser is copied (which may name it);
  // nullptr for structured bindings, which it does not copy.
  clang::VarDecl* var(const clang::VarDecl* v);
  static clang::CXXCastPath path(const clang::CastExpr* c);

  clang::Stmt* copy(const clang::Stmt* s);
  clang::Stmt* copy_reference(const clang::Stmt* s);
  clang::Stmt* copy_operator(const clang::Stmt* s);
  clang::Stmt* copy_construction(const clang::Stmt* s);
  clang::Stmt* copy_wrapper(const clang::Stmt* s);
  clang::Stmt* copy_allocation(const clang::Stmt* s);
  clang::Stmt* copy_block(const clang::Stmt* s);
  clang::Stmt* copy_branch(const clang::Stmt* s);
  clang::Stmt* copy_loop(const clang::Stmt* s);
  clang::Stmt* copy_call(const clang::CallExpr* call);
  clang::Stmt* copy_cast(const clang::CastExpr* c);
};

}  // namespace adjc
