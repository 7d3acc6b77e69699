// A derivative request (`adjoint::derivative<N>(f, "x")`, Clad's `clad::differentiate(f, "x")` or
// `clad::differentiate(f, 0)`): the function, the one parameter (or array element) it names, and
// the expression that replaces the request.
#include <clang/AST/ExprCXX.h>

#include "function_pointers.hpp"
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

}  // namespace

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

namespace {

// Of a request of order N > 1 naming "x" (each derivative along x) or N parameters "x, y" (one
// along each, in order): the first parameter in `spec`, the request of order N-1 in `rest`.
bool split_orders(std::string& spec, long order, std::string& rest, Diagnostics& diags, SourceLocation at) {
  rest = spec;
  if (order == 1 || spec.find(',') == std::string::npos) return true;
  size_t names = size_t(std::count(spec.begin(), spec.end(), ',')) + 1;
  if (names != size_t(order)) {
    diags.error(at, Diag::derivative_order_parameters, {std::to_string(order), std::to_string(names)});
    return false;
  }
  rest = spec.substr(spec.find(',') + 1);
  spec = spec.substr(0, spec.find(','));
  return true;
}

// The parameter the request's second argument names; with none (or an empty list), the function's only
// differentiable parameter. `rest`: what the request of the next lower order names.
bool requested_seed(const CallExpr* call, const FunctionDecl* fn, const UnitFacts& unit, Diagnostics& diags,
                    TangentSeed& seed, std::string& rest) {
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
  std::string text;
  if (lit) text = lit->getString().str();
  else if (auto* number = dyn_cast<IntegerLiteral>(spec)) text = std::to_string(number->getValue().getZExtValue());
  if (!lit && !isa<IntegerLiteral>(spec)) {
    diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameters_not_literal);
    return false;
  }
  if (!split_orders(text, derivative_order(call), rest, diags, at)) return false;
  // A struct parameter's member ("t.x"): the parameter, then the member's path.
  if (size_t dot = text.find('.'); dot != std::string::npos && text.find('[') == std::string::npos) {
    seed.member = text.substr(dot);
    text.erase(dot);
  }
  return parse_seed(fn, text, seed, diags, at);
}

// The variable an expression reads that is a function pointer or member function pointer, or a
// pointer to one (to any depth), else nullptr.
const VarDecl* pointer_variable(const Expr* e) {
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    auto* var = dyn_cast<VarDecl>(ref->getDecl());
    QualType t = var ? var->getType() : QualType();
    while (var && t->isPointerType() && !t->isFunctionPointerType()) t = t->getPointeeType();
    return var && (t->isFunctionPointerType() || t->isMemberFunctionPointerType()) ? var : nullptr;
  }
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c))
      if (const VarDecl* var = pointer_variable(ce)) return var;
  return nullptr;
}

// How generated code outside the variable's function names it.
std::string variable_name(const VarDecl* var) {
  return var->isLocalVarDeclOrParm() ? var->getNameAsString() : "::" + var->getQualifiedNameAsString();
}

}  // namespace

const VarDecl* requested_function_object(const CallExpr* call, const UnitFacts& unit) {
  const Expr* target = strip(call->getArg(0), unit);
  if (auto* u = dyn_cast<UnaryOperator>(target); u && u->getOpcode() == UO_AddrOf)
    target = strip(u->getSubExpr(), unit);
  auto* ref = dyn_cast<DeclRefExpr>(target);
  auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  const CXXRecordDecl* c = var ? var->getType()->getAsCXXRecordDecl() : nullptr;
  if (!c || !c->hasDefinition() || c->isLambda()) return nullptr;
  int calls = 0;
  for (const CXXMethodDecl* m : c->methods()) calls += m->getOverloadedOperator() == OO_Call;
  return calls == 1 ? var : nullptr;
}

const FunctionDecl* requested_target(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags,
                                     Diag not_a_function, bool members) {
  const Expr* target = strip(call->getArg(0), unit);
  // A cast of `&S::f` to its own type (`static_cast<decltype(&S::f)>(&S::f)`) names S::f.
  const ASTContext& context = call->getDirectCallee()->getASTContext();
  while (auto* cast = dyn_cast<ExplicitCastExpr>(target)) {
    const Expr* operand = strip(cast->getSubExpr(), unit);
    if (!context.hasSameType(cast->getType(), operand->getType())) break;
    target = operand;
  }
  if (auto* u = dyn_cast<UnaryOperator>(target); u && u->getOpcode() == UO_AddrOf)
    target = strip(u->getSubExpr(), unit);
  auto* ref = dyn_cast<DeclRefExpr>(target);
  const FunctionDecl* fn = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : nullptr;
  // A function pointer adjc follows (function_pointers.hpp): `fp`, `*fpp`, a cast of `f`; a
  // function object (`E`, `&E`): its operator().
  const VarDecl* pointer = pointer_variable(call->getArg(0));
  if (pointer && !fn && members && !function_pointer_chain(pointer->getType())) {
    std::string why;
    fn = resolved_member_function(pointer, &why);
  } else if (const VarDecl* object = members ? requested_function_object(call, unit) : nullptr) {
    for (const CXXMethodDecl* m : object->getType()->getAsCXXRecordDecl()->methods())
      if (m->getOverloadedOperator() == OO_Call) fn = m;
  } else if (!fn) {
    fn = resolved_function(call->getArg(0));
  }
  const auto* method = dyn_cast_or_null<CXXMethodDecl>(fn);
  if (!fn || (method && (!members || method->getParent()->isLambda()))) {
    diags.error(call->getArg(0)->getBeginLoc(), not_a_function);
    return nullptr;
  }
  if (!fn->getDefinition()) {
    diags.error(call->getArg(0)->getBeginLoc(), Diag::requested_function_has_no_body, {quoted(fn->getNameAsString())});
    return nullptr;
  }
  return fn->getDefinition();
}

const FunctionDecl* derivative_target(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags) {
  return requested_target(call, unit, diags, Diag::derivative_target_not_a_function, /*members=*/true);
}

long derivative_order(const CallExpr* request) { return requested_order(request->getDirectCallee()); }

std::string derivative_request(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags,
                               TangentGenerator& tangents, std::string& declaration) {
  SourceLocation at = call->getBeginLoc();
  const long order = derivative_order(call);
  if (order < 1 || order > 8) {
    diags.error(at, Diag::derivative_order_not_supported, {std::to_string(order)});
    return "";
  }
  const FunctionDecl* fn = derivative_target(call, unit, diags);
  if (!fn) return "";
  TangentSeed seed;
  std::string rest;
  if (!requested_seed(call, fn, unit, diags, seed, rest)) return "";
  if (order > 1 && (seed.element >= 0 || !seed.member.empty())) {
    std::string part = seed.element >= 0 ? "[" + std::to_string(seed.element) + "]" : seed.member;
    diags.error(at, Diag::derivative_order_of_element,
                {std::to_string(order),
                 quoted(fn->getParamDecl(seed.param - (with_object(fn) ? 1 : 0))->getName().str() + part)});
    return "";
  }
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
  // The next stage differentiates the first derivative, a function with a body in adjc's output.
  if (order > 1)
    return "(::adjoint::derivative<" + std::to_string(order - 1) + ">(" + g.qualified_name + ", \"" + rest + "\"))";
  // In parentheses: the request may be a macro's argument, which a bare comma would split. A
  // function object the request names is bound: execute leaves it out, as Clad's does.
  if (const VarDecl* object = requested_function_object(call, unit))
    return "(::adjoint::bound_derivative<" + g.function_value + ">(" + g.source_function + "(), " +
           variable_name(object) + "))";
  // A function pointer the request names stays used (no warning) when the request no longer names it.
  const VarDecl* pointer = pointer_variable(call->getArg(0));
  return "(" + (pointer ? "static_cast<void>(" + variable_name(pointer) + "), " : std::string()) +
         "::adjoint::derivative_function<" + g.function_value + ">{" + g.source_function + "()})";
}

}  // namespace adjc
