// A derivative request (`adjoint::derivative<N>(f, "x")`, Clad's `clad::differentiate(f, "x")` or
// `clad::differentiate(f, 0)`): the function, the one parameter (or array element) it names, and
// the expression that replaces the request.
#include <clang/AST/ExprCXX.h>

#include "tangent.hpp"

namespace adjc {

using namespace clang;

namespace {


// The order the request asks for: adjoint::derivative<N>'s N; Clad's first option when it is an
// order (`clad::differentiate<2>`); else 1.
long requested_order(const FunctionDecl* request) {
  const TemplateArgumentList* args = request->getTemplateSpecializationArgs();
  if (!args || args->size() == 0) return 1;
  const TemplateArgument& first = args->get(0);
  if (first.getKind() == TemplateArgument::Integral) return first.getAsIntegral().getExtValue();
  // Clad's options word: the order in its low 8 bits, 0 meaning the first.
  if (first.getKind() == TemplateArgument::Pack && first.pack_size() > 0 &&
      first.pack_begin()->getKind() == TemplateArgument::Integral)
    if (long order = first.pack_begin()->getAsIntegral().getExtValue() & 0xff; order != 0) return order;
  return 1;
}

// The parameter `spec` names ("x", "x[2]", "0"), as an ad_params index and element; false after
// an error.
bool parse_seed(const FunctionDecl* fn, std::string spec, TangentSeed& seed, Diagnostics& diags, SourceLocation at) {
  spec.erase(0, spec.find_first_not_of(" \t"));
  spec.erase(spec.find_last_not_of(" \t") + 1);
  if (spec.find(',') != std::string::npos) {
    diags.error(at, Diag::derivative_needs_one_parameter, {quoted(fn->getNameAsString())});
    return false;
  }
  std::string name = spec;
  if (size_t open = spec.find('['); open != std::string::npos) {
    std::string index = spec.substr(open + 1, spec.size() - open - 2);
    if (spec.back() != ']' || open == 0 || index.empty() || index.size() > 9 ||
        index.find_first_not_of("0123456789") != std::string::npos) {
      diags.error(at, Diag::request_parameter_unreadable, {quoted(spec)});
      return false;
    }
    seed.element = std::stol(index);
    name = spec.substr(0, open);
    name.erase(name.find_last_not_of(" \t") + 1);
  }
  const unsigned object = with_object(fn) ? 1 : 0;
  bool position = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  for (unsigned i = 0; i < fn->getNumParams(); ++i)
    if (position ? name.size() <= 4 && std::stoul(name) == i : fn->getParamDecl(i)->getName() == name) {
      seed.param = i + object;
      return true;
    }
  if (position)
    diags.error(at, Diag::request_no_parameter_at_position,
                {quoted(fn->getNameAsString()), name, std::to_string(fn->getNumParams())});
  else diags.error(at, Diag::request_no_parameter_named, {quoted(fn->getNameAsString()), quoted(name)});
  return false;
}

// The parameter the request's second argument names; with none (or an empty list), the function's only
// differentiable parameter.
bool requested_seed(const CallExpr* call, const FunctionDecl* fn, const UnitFacts& unit, Diagnostics& diags,
                    TangentSeed& seed) {
  SourceLocation at = call->getBeginLoc();
  const Expr* spec = call->getNumArgs() < 2 ? nullptr : strip(call->getArg(1), unit);
  auto* lit = dyn_cast_or_null<StringLiteral>(spec);
  if (!spec || isa<CXXDefaultArgExpr>(call->getArg(1)) ||
      (lit && lit->getString().find_first_not_of(" \t") == StringRef::npos)) {
    std::vector<AdParam> params = ad_params(fn);
    int found = -1;
    for (size_t i = 0; i < params.size(); ++i)
      if (is_differentiable(params[i].type)) found = found < 0 ? int(i) : -2;
    if (found < 0) diags.error(at, Diag::derivative_needs_one_parameter, {quoted(fn->getNameAsString())});
    seed.param = size_t(found);
    return found >= 0;
  }
  if (lit) return parse_seed(fn, lit->getString().str(), seed, diags, at);
  if (auto* number = dyn_cast<IntegerLiteral>(spec))
    return parse_seed(fn, std::to_string(number->getValue().getZExtValue()), seed, diags, at);
  diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameters_not_literal);
  return false;
}

}  // namespace

std::string derivative_request(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags,
                               TangentGenerator& tangents, std::string& declaration) {
  SourceLocation at = call->getBeginLoc();
  if (long order = requested_order(call->getDirectCallee()); order != 1) {
    diags.error(at, Diag::derivative_order_not_supported, {std::to_string(order)});
    return "";
  }
  const Expr* target = strip(call->getArg(0), unit);
  if (auto* u = dyn_cast<UnaryOperator>(target); u && u->getOpcode() == UO_AddrOf)
    target = strip(u->getSubExpr(), unit);
  auto* ref = dyn_cast<DeclRefExpr>(target);
  const FunctionDecl* fn = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : nullptr;
  if (!fn || (isa<CXXMethodDecl>(fn) && cast<CXXMethodDecl>(fn)->getParent()->isLambda())) {
    diags.error(call->getArg(0)->getBeginLoc(), Diag::derivative_target_not_a_function);
    return "";
  }
  if (!fn->getDefinition()) {
    diags.error(call->getArg(0)->getBeginLoc(), Diag::requested_function_has_no_body, {quoted(fn->getNameAsString())});
    return "";
  }
  fn = fn->getDefinition();
  TangentSeed seed;
  if (!requested_seed(call, fn, unit, diags, seed)) return "";
  QualType type = ad_params(fn)[seed.param].type;
  if (!is_differentiable(type)) {
    diags.error(at, Diag::request_parameter_not_differentiable,
                {quoted(fn->getParamDecl(seed.param)->getName().str()), quoted(fn->getNameAsString()),
                 quoted(type.getAsString())});
    return "";
  }
  GeneratedGradient g;
  {
    Diagnostics::InDerivative requested(diags, fn, nullptr, at);
    g = tangents.request(fn, seed, at);
  }
  if (diags.failed() || g.declaration.empty()) return "";
  declaration = g.declaration;
  // In parentheses: the request may be a macro's argument, which a bare comma would split.
  return "(::adjoint::derivative_function<" + g.function_value + ">{" + g.source_function + "()})";
}

}  // namespace adjc
