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

namespace {

// A member a derivative can be along: a floating one (`element` < 0), or an element of a fixed-size
// array of them or of a pointer to them.
bool seedable_member(QualType t, long element) {
  if (t->isPointerType()) return element >= 0 && is_floating(t->getPointeeType());
  if (const auto* a = dyn_cast<ConstantArrayType>(t.getCanonicalType().getTypePtr()))
    return element >= 0 && element < long(a->getSize().getZExtValue()) && a->getElementType()->isRealFloatingType();
  return element < 0 && t->isRealFloatingType();
}

// Clad's request of a function object whose operator() takes no parameters: `name` is one of its
// class's data members (by name, or position among them), the member the derivative is along.
bool parse_member_seed(const CXXMethodDecl* op, const std::string& name, TangentSeed& seed, Diagnostics& diags,
                       SourceLocation at) {
  const bool position = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  unsigned index = 0;
  for (const FieldDecl* f : op->getParent()->fields())
    if (position ? name.size() <= 4 && std::stoul(name) == index++ : f->getName() == name) seed.field = f;
  const FieldDecl* f = seed.field;
  if (f && seedable_member(f->getType(), seed.element)) {
    seed.param = 0;
    return true;
  }
  if (f)
    diags.error(
        at, Diag::derivative_member_unsupported,
        {quoted(op->getParent()->getNameAsString()), quoted(f->getNameAsString()), quoted(f->getType().getAsString())});
  else diags.error(at, Diag::request_no_parameter_named, {quoted(op->getParent()->getNameAsString()), quoted(name)});
  return false;
}

}  // namespace

bool parse_seed(const FunctionDecl* fn, std::string spec, TangentSeed& seed, Diagnostics& diags, SourceLocation at,
                unsigned first) {
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
  const CXXMethodDecl* object = with_object(fn);
  if (object && fn->getNumParams() == 0) return parse_member_seed(object, name, seed, diags, at);
  bool position = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  for (unsigned i = first; i < fn->getNumParams(); ++i)
    if (position ? name.size() <= 4 && std::stoul(name) == i - first : fn->getParamDecl(i)->getName() == name) {
      seed.param = i + (object ? 1 : 0);
      return true;
    }
  if (position)
    diags.error(at, Diag::request_no_parameter_at_position,
                {quoted(fn->getNameAsString()), name, std::to_string(fn->getNumParams() - first)});
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
// differentiable parameter (past the first `first`, a closure's captures). `rest`: what the request of
// the next lower order names.
bool requested_seed(const CallExpr* call, const FunctionDecl* fn, unsigned first, const UnitFacts& unit,
                    Diagnostics& diags, TangentSeed& seed, std::string& rest) {
  SourceLocation at = call->getBeginLoc();
  const Expr* spec = call->getNumArgs() < 2 ? nullptr : strip(call->getArg(1), unit);
  auto* lit = dyn_cast_or_null<StringLiteral>(spec);
  if (!spec || isa<CXXDefaultArgExpr>(call->getArg(1)) ||
      (lit && lit->getString().find_first_not_of(" \t") == StringRef::npos)) {
    std::vector<AdParam> params = ad_params(fn);
    int found = -1;
    for (size_t i = first; i < params.size(); ++i)
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
  return parse_seed(fn, text, seed, diags, at, first);
}

}  // namespace

std::string bound_request(const RequestedFunction& req, const std::string& request) {
  const VarDecl* var = req.variable();
  // A lambda's variable, or a function pointer the request names, stays used (no warning) when the
  // request no longer names it.
  const std::string used = var && !req.bound_object() && (req.callable || req.pointer)
                               ? "static_cast<void>(" + req.variable_name() + "), "
                               : "";
  if (req.closure) return "(" + used + "::adjoint::detail::bind_leading(" + request + req.captured + "))";
  if (req.bound_object()) return "(::adjoint::detail::bind_leading(" + request + ", &" + req.variable_name() + "))";
  return "(" + used + request + ")";
}

bool requested_target(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags, Diag not_a_function,
                      RequestedFunction& req) {
  return resolve_requested(call, call->getDirectCallee()->getASTContext(), unit, diags, not_a_function, req);
}

namespace {

// `rest`, the parameters a request of the next order names, with positions replaced by names: the
// next stage differentiates a derivative whose first parameters are the object or captures that
// `req` binds, which Clad's positions do not count.
std::string by_name(const std::string& rest, const RequestedFunction& req) {
  std::string out;
  for (size_t start = 0; start <= rest.size();) {
    size_t comma = std::min(rest.find(',', start), rest.size());
    std::string item = rest.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const unsigned first = req.closure_params;
    if (!item.empty() && item.size() <= 4 && item.find_first_not_of("0123456789") == std::string::npos &&
        first + std::stoul(item) < req.fn->getNumParams())
      item = req.fn->getParamDecl(first + unsigned(std::stoul(item)))->getNameAsString();
    out += (out.empty() ? "" : ", ") + item;
    start = comma + 1;
  }
  return out;
}

}  // namespace

long derivative_order(const CallExpr* request) { return requested_order(request->getDirectCallee()); }

std::string derivative_request(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags,
                               TangentGenerator& tangents, std::string& declaration) {
  SourceLocation at = call->getBeginLoc();
  const long order = derivative_order(call);
  if (order < 1 || order > 8) {
    diags.error(at, Diag::derivative_order_not_supported, {std::to_string(order)});
    return "";
  }
  RequestedFunction req;
  if (!requested_target(call, unit, diags, Diag::derivative_target_not_a_function, req)) return "";
  const FunctionDecl* fn = req.fn;
  TangentSeed seed;
  std::string rest;
  if (!requested_seed(call, fn, req.closure_params, unit, diags, seed, rest)) return "";
  const unsigned object = with_object(fn) ? 1 : 0;
  const std::string param_name =
      seed.field ? seed.field->getNameAsString() : fn->getParamDecl(seed.param - object)->getNameAsString();
  if (order > 1 && (seed.element >= 0 || !seed.member.empty())) {
    const std::string part = seed.element >= 0 ? "[" + std::to_string(seed.element) + "]" : seed.member;
    diags.error(at, Diag::derivative_order_of_element, {std::to_string(order), quoted(param_name + part)});
    return "";
  }
  QualType type = ad_params(fn)[seed.param].type;
  // An integer parameter the request names carries a tangent, and the integers it reaches (Clad's rule).
  IntegerTangents integers(!seed.field && is_integer_number(type));
  if (!seed.field && !is_differentiable(type)) {
    diags.error(at, Diag::request_parameter_not_differentiable,
                {quoted(param_name), quoted(fn->getNameAsString()), quoted(type.getAsString())});
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
    return bound_request(req, "::adjoint::derivative<" + std::to_string(order - 1) + ">(" +
                                  (req.callable ? g.function_value : g.qualified_name) + ", \"" + by_name(rest, req) +
                                  "\")");
  // In parentheses: the request may be a macro's argument, which a bare comma would split.
  return bound_request(req, "::adjoint::derivative_function<" + g.function_value + ">{" + g.source_function + "()}");
}

}  // namespace adjc
