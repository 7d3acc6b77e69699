#pragma once
// Gradient requests (calls of adjoint::gradient): found in the unit, checked, handed to the
// Generator, and each rewritten in the unit into a reference to its generated gradient.

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Rewrite/Core/Rewriter.h>
#include <clang/Tooling/Syntax/Tokens.h>

#include <set>
#include <string>
#include <vector>

#include "adjc.hpp"

namespace adjc {

// Pass: finds gradient requests in the main file (calls of adjoint::gradient, or of Clad's
// clad::gradient from include/clad) and derivative requests (adjoint::derivative,
// clad::differentiate), Jacobian and Hessian requests, with the top-level declaration each one is in.
class RequestFinder : public clang::RecursiveASTVisitor<RequestFinder> {
 public:
  struct Request {
    const clang::CallExpr* call;
    const clang::Decl* top;
  };
  std::vector<Request> requests;
  std::vector<Request> derivatives;  // forward mode (tangent.hpp)
  std::vector<Request> jacobians;    // jacobian_request.cpp
  std::vector<Request> hessians;     // built from the others in stages (hessian_request.cpp)
  const clang::Decl* top = nullptr;

  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* f = call->getDirectCallee();
    if (!f) return true;
    const std::string name = f->getQualifiedNameAsString();
    if (name == "adjoint::gradient" || name == "clad::gradient" || name == "clad::pullback")
      requests.push_back({call, top});
    if (name == "adjoint::derivative" || name == "clad::differentiate") derivatives.push_back({call, top});
    if (name == "adjoint::jacobian" || name == "clad::jacobian") jacobians.push_back({call, top});
    if (name == "adjoint::hessian" || name == "adjoint::hessian_diagonal" || name == "adjoint::hessian_vector" ||
        name == "clad::hessian")
      hessians.push_back({call, top});
    return true;
  }
};

struct ClosureFunction;

// The function a request of any mode names, and how it was named (the replacement depends on it).
struct RequestedFunction {
  const clang::Expr* target = nullptr;             // the request's first argument, past `&` and conversions
  const clang::FunctionDecl* fn = nullptr;         // the function differentiated
  const clang::CXXRecordDecl* callable = nullptr;  // a lambda's or function object's class
  const ClosureFunction* closure = nullptr;        // a lambda with captures: its function of the captures
  unsigned closure_params = 0;                     // fn's first parameters, the closure's captures
  std::string captured;                            // those captures, as `execute`'s leading arguments
  const clang::VarDecl* pointer = nullptr;         // the function pointer the request names
  // The variable the request names (a function pointer, a function object, a lambda), else nullptr;
  // how generated code outside its function names it.
  const clang::VarDecl* variable() const;
  std::string variable_name() const;
  // A function object named by a variable: its derivative is bound to it (execute leaves it out).
  bool bound_object() const;
};

// Which function a request's first argument names: a function, a member function (`&S::f`), a
// lambda or function object (its operator(); for a lambda with captures, its function of the
// captures), or a function pointer adjc follows; defined, and not a template. False (reported;
// `not_a_function` when the argument names none of those) otherwise.
bool resolve_requested(const clang::CallExpr* call, clang::ASTContext& context, const UnitFacts& unit,
                       Diagnostics& diags, Diag not_a_function, RequestedFunction& req);

// A request's call and the expression that replaces it.
struct Replacement {
  const clang::CallExpr* call;
  std::string text;
};

// What handling the requests of one unit shares: the unit, where errors go, the generator that
// builds the gradients, and the rewrite of the unit's text.
struct RequestContext {
  clang::ASTContext& context;
  const UnitFacts& unit;
  Diagnostics& diags;
  Generator& generator;
  clang::Rewriter& rewriter;
  std::set<std::string> inserted;  // the gradients' declarations already inserted
  std::vector<Replacement> replacements;
};

// Checks one request, has the generator build its gradient, records the request's replacement,
// and declares the gradient in the unit (once per gradient). Errors go to `rc.diags`.
void handle(const RequestFinder::Request& r, RequestContext& rc);

// Rewrites each request in place (requests_rewrite.cpp); `tokens`, the unit's tokens recorded while
// it was parsed, are consumed when a macro produced a request.
void replace_requests(const std::vector<Replacement>& replacements, clang::syntax::TokenCollector& tokens,
                      clang::SourceManager& sm, const clang::LangOptions& lo, clang::Rewriter& rewriter);

}  // namespace adjc
