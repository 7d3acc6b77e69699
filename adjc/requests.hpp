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
