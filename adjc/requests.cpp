// A gradient request, from its call to its replacement: which function it names (a function, a
// member function, a lambda or function object, a function pointer adjc follows), which of its
// parameters it selects, the generator's gradient, and the text that replaces the request.
#include "requests.hpp"

#include <clang/AST/ASTLambda.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <sstream>

#include "classify.hpp"
#include "closures.hpp"
#include "function_pointers.hpp"

namespace adjc {

namespace {

using namespace clang;

// A parameter named in a request's list: Clad's spelling of part of an array (`x[0:2]`, `x[1]`)
// names the whole array, whose adjoint adjc computes whole; "" when the brackets are malformed.
std::string requested_parameter(const std::string& item) {
  size_t open = item.find('[');
  if (open == std::string::npos) return item;
  if (item.back() != ']' || open == 0) return "";
  const std::string range = item.substr(open + 1, item.size() - open - 2);
  size_t colon = range.find(':');
  auto number = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789 ") == std::string::npos;
  };
  if (!number(range.substr(0, colon)) || (colon != std::string::npos && !number(range.substr(colon + 1)))) return "";
  std::string name = item.substr(0, open);
  name.erase(name.find_last_not_of(" \t") + 1);
  return name;
}

// The variable `e` names (a function pointer in a request: `*fpp` names `fpp`), else nullptr.
const VarDecl* named_variable(const Expr* e) {
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) return dyn_cast<VarDecl>(ref->getDecl());
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c))
      if (const VarDecl* vd = named_variable(ce)) return vd;
  return nullptr;
}

// The constexpr (or consteval) function, or constexpr variable, a request is written in, through
// lambdas and local variables ("constexpr function 'f'"); "" when there is none.
std::string constant_evaluated_place(const CallExpr* call, ASTContext& context) {
  for (DynTypedNodeList parents = context.getParents(*call); !parents.empty();
       parents = context.getParents(parents[0])) {
    // A lambda's operator() is constexpr where it can be, without being asked for.
    if (auto* f = parents[0].get<FunctionDecl>(); f && !isLambdaCallOperator(f))
      return f->isConstexpr() ? std::string(f->isConsteval() ? "consteval" : "constexpr") + " function '" +
                                    f->getNameAsString() + "'"
                              : "";
    if (auto* v = parents[0].get<VarDecl>(); v && v->isConstexpr())
      return "the initializer of constexpr variable '" + v->getNameAsString() + "'";
  }
  return "";
}

// A function, a member function (`&S::f`), or a lambda or function object: its operator().
bool find_named_function(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags, RequestedFunction& req) {
  const Expr* target = strip(call->getArg(0), unit);
  // A cast of `&S::f` to its own type (`static_cast<decltype(&S::f)>(&S::f)`) names S::f; so does a
  // C-style cast of it to another member function type, which Clad resolves to S::f as well.
  const ASTContext& context = call->getDirectCallee()->getASTContext();
  while (auto* cast = dyn_cast<ExplicitCastExpr>(target)) {
    const Expr* operand = strip(cast->getSubExpr(), unit);
    if (!context.hasSameType(cast->getType(), operand->getType()) &&
        !(isa<CStyleCastExpr>(cast) && cast->getType()->isMemberFunctionPointerType() &&
          operand->getType()->isMemberFunctionPointerType()))
      break;
    target = operand;
  }
  if (auto* u = dyn_cast<UnaryOperator>(target); u && u->getOpcode() == UO_AddrOf)
    target = strip(u->getSubExpr(), unit);
  if (auto* c = dyn_cast<CXXConstructExpr>(target); c && c->getNumArgs() == 1) target = strip(c->getArg(0), unit);
  req.target = target;
  if (auto* lambda = dyn_cast<LambdaExpr>(target)) req.callable = lambda->getLambdaClass();
  if (auto* ref = dyn_cast<DeclRefExpr>(target)) {
    req.fn = dyn_cast<FunctionDecl>(ref->getDecl());
    if (isa<VarDecl>(ref->getDecl())) req.callable = ref->getType()->getAsCXXRecordDecl();
  }
  if (!req.callable) return true;
  for (const CXXMethodDecl* m : req.callable->methods())
    if (m->getOverloadedOperator() == OO_Call) {
      if (req.fn) {
        diags.error(call->getArg(0)->getBeginLoc(), Diag::request_overloaded_call_operator);
        return false;
      }
      req.fn = m;
    }
  return true;
}

// A lambda with captures: its function of the captures and parameters, the captures passed by
// `execute` ahead of its arguments, as constants.
bool bind_closure(ASTContext& context, const UnitFacts& unit, Diagnostics& diags, RequestedFunction& req) {
  if (!req.callable || !capturing_lambda(context.getRecordType(req.callable)) || !req.fn || req.fn->isTemplated())
    return true;
  req.closure = &closure_function(req.callable, unit, context);
  if (!req.closure->fn) {
    diags.error(req.closure->where, req.closure->why);
    return false;
  }
  req.closure_params = unsigned(req.closure->captures.size());
  if (!closure_request_arguments(*req.closure, req.target, unit, context, diags, req.captured)) return false;
  req.fn = req.closure->fn;
  return true;
}

// A function pointer adjc follows (`fp`, `*fpp`, `static_cast<decltype(&f)>(f)`): its function;
// then whether what the request names is a function adjc can differentiate (`not_a_function` when
// it names none).
bool follow_pointer_and_check(const CallExpr* call, Diagnostics& diags, Diag not_a_function, RequestedFunction& req) {
  const SourceLocation at = call->getArg(0)->getBeginLoc();
  std::string unresolved;
  if (!req.fn && !req.callable) {
    // A member function pointer, or a pointer to one read through (`*mpp`, `**&mpp`).
    const VarDecl* var = named_variable(call->getArg(0));
    QualType t = var ? var->getType() : QualType();
    while (var && t->isPointerType()) t = t->getPointeeType();
    if (var && t->isMemberFunctionPointerType()) {
      req.fn = resolved_member_function(var, &unresolved);
      if (!req.fn) {
        diags.error(at, Diag::request_unresolved_member_function, {unresolved});
        return false;
      }
    } else {
      req.fn = resolved_function(call->getArg(0), &unresolved);
    }
    if (req.fn) req.pointer = named_variable(call->getArg(0));
  }
  const FunctionDecl* fn = req.fn;
  if (!fn && (function_pointer_chain(call->getArg(0)->getType()) || call->getArg(0)->getType()->isFunctionType()))
    diags.error(at, Diag::request_unresolved_function, {unresolved});
  else if (!fn) diags.error(at, not_a_function);
  else if (fn->isTemplated()) diags.error(at, Diag::request_of_template);
  else if (!fn->getDefinition()) diags.error(at, Diag::requested_function_has_no_body, {quoted(fn->getNameAsString())});
  if (!fn || fn->isTemplated() || !fn->getDefinition()) return false;
  req.fn = fn = fn->getDefinition();
  for (const ParmVarDecl* p : fn->parameters())
    if (function_parameter(p)) {
      diags.error(at, Diag::request_function_pointer_parameter,
                  {quoted(p->getName()), quoted(fn->getNameAsString()), quoted(fn->getNameAsString())});
      return false;
    }
  return true;
}

// The parameters a request selects: one flag per parameter as adjc differentiates them
// (ad_params), a member function's object first.
struct Selection {
  const FunctionDecl* fn;
  unsigned first_param;  // the parameters before it are a closure's captures
  bool object;
  std::vector<AdParam> params;
  std::vector<bool> selected;
};

// Selects the parameter `name` (an item of the request's list) names: `this`, a parameter's name,
// or Clad's position ("0" is the first parameter). False (reported) when there is none or it is
// not differentiable.
bool select_named(const std::string& name, SourceLocation at, Diagnostics& diags, Selection& s) {
  const FunctionDecl* fn = s.fn;
  const unsigned shift = s.object ? 1 : 0;
  if (name == "this" && s.object) {
    s.selected[0] = true;
    return true;
  }
  for (unsigned i = 0; i < s.first_param; ++i)
    if (fn->getParamDecl(i)->getName() == name) {
      diags.error(at, Diag::request_names_capture, {quoted(name)});
      return false;
    }
  const bool position = name.find_first_not_of("0123456789") == std::string::npos;
  if (position && (name.size() > 4 || s.first_param + std::stoul(name) >= fn->getNumParams())) {
    diags.error(at, Diag::request_no_parameter_at_position,
                {quoted(fn->getNameAsString()), name, std::to_string(fn->getNumParams() - s.first_param)});
    return false;
  }
  bool found = false;
  for (unsigned i = s.first_param; i < fn->getNumParams(); ++i) {
    if (position ? i != s.first_param + std::stoul(name) : fn->getParamDecl(i)->getName() != name) continue;
    found = true;
    if (!is_differentiable(s.params[i + shift].type)) {
      diags.error(at, Diag::request_parameter_not_differentiable,
                  {quoted(fn->getParamDecl(i)->getName().str()), quoted(fn->getNameAsString()),
                   quoted(fn->getParamDecl(i)->getType().getAsString())});
      return false;
    }
    s.selected[i + shift] = true;
  }
  if (!found) diags.error(at, Diag::request_no_parameter_named, {quoted(fn->getNameAsString()), quoted(name)});
  return found;
}

// The parameters the request's list (its second argument, a string literal) names, or, when it
// names none, every differentiable one. False (reported) when there is no such parameter.
bool select_parameters(const CallExpr* call, RequestContext& rc, const RequestedFunction& req,
                       std::vector<bool>& selected) {
  const FunctionDecl* fn = req.fn;
  std::string names;
  if (call->getNumArgs() > 1 && !isa<CXXDefaultArgExpr>(call->getArg(1))) {
    auto* lit = dyn_cast<StringLiteral>(strip(call->getArg(1), rc.unit));
    if (!lit) {
      rc.diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameters_not_literal);
      return false;
    }
    names = lit->getString().str();
  }
  Selection s{fn, req.closure_params, with_object(fn) != nullptr, ad_params(fn), {}};
  s.selected.assign(s.params.size(), false);
  std::stringstream list(names);
  for (std::string name; std::getline(list, name, ',');) {
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name.empty()) continue;
    std::string whole = requested_parameter(name);
    if (whole.empty()) {
      rc.diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameter_unreadable, {quoted(name)});
      return false;
    }
    if (!select_named(whole, call->getArg(1)->getBeginLoc(), rc.diags, s)) return false;
  }
  bool any = std::find(s.selected.begin(), s.selected.end(), true) != s.selected.end();
  if (!any) {
    for (unsigned i = s.first_param; i < fn->getNumParams(); ++i)
      any |= s.selected[i + (s.object ? 1 : 0)] = is_differentiable(s.params[i + (s.object ? 1 : 0)].type);
    if (s.object) any |= s.selected[0] = is_differentiable(s.params[0].type);
  }
  if (!any) {
    rc.diags.error(call->getBeginLoc(), Diag::request_no_differentiable_parameters, {quoted(fn->getNameAsString())});
    return false;
  }
  selected = std::move(s.selected);
  return true;
}

// The expression that replaces the request: the generated gradient as a value of the type
// adjoint::gradient returns.
std::string replacement_text(const RequestedFunction& req, const GeneratedGradient& g) {
  if (req.closure) {
    // The lambda's variable stays used (no warning) when the request no longer names it.
    std::string source = g.source_function + "()";
    if (auto* ref = dyn_cast<DeclRefExpr>(req.target))
      source = "(static_cast<void>(" + ref->getDecl()->getNameAsString() + "), " + source + ")";
    return "::adjoint::closure_gradient<" + g.function_value + ">(" + source + req.captured + ")";
  }
  // A function object named by a variable is bound: execute may leave it out, as Clad's does.
  // A lambda's variable, or a function pointer the request names, stays used (no warning) when
  // the request no longer names it.
  const VarDecl* var = req.variable();
  const std::string var_name = req.variable_name();
  const std::string bound = req.bound_object() ? ", &" + var_name : "";
  // In parentheses: the request may be a macro's argument, which a bare comma would split.
  std::string request = "::adjoint::gradient_function<" + g.function_value +
                        (g.object_adjoint < 0 && bound.empty() ? "" : ", " + std::to_string(g.object_adjoint)) +
                        (bound.empty() ? "" : ", true") + ">{" + g.source_function + "()" + bound + "}";
  return var && (req.callable || req.pointer) && bound.empty()
             ? "(static_cast<void>(" + var_name + "), " + request + ")"
             : "(" + request + ")";
}

// Declares the gradient where `fn` itself is declared in this file, else before the top-level
// declaration holding the request.
void declare_gradient(const RequestFinder::Request& r, const FunctionDecl* fn, const std::string& declaration,
                      RequestContext& rc) {
  const FunctionDecl* first = fn->getFirstDecl();
  SourceManager& sm = rc.context.getSourceManager();
  const LangOptions& lo = rc.context.getLangOpts();
  SourceLocation where;
  // The declaration opens the function's namespaces itself, so it goes right after the function
  // only when that is at file scope.
  if (sm.isInMainFile(first->getLocation()) && !first->getLocation().isMacroID() &&
      first->getDeclContext()->getRedeclContext()->isTranslationUnit()) {
    if (first->doesThisDeclarationHaveABody()) where = Lexer::getLocForEndOfToken(first->getBodyRBrace(), 0, sm, lo);
    else where = Lexer::findLocationAfterToken(first->getEndLoc(), tok::semi, sm, lo, false);
  }
  if (where.isValid()) rc.rewriter.InsertTextAfter(where, " " + declaration);
  else rc.rewriter.InsertTextBefore(sm.getExpansionLoc(r.top->getBeginLoc()), declaration + " ");
}

}  // namespace

bool resolve_requested(const CallExpr* call, ASTContext& context, const UnitFacts& unit, Diagnostics& diags,
                       Diag not_a_function, RequestedFunction& req) {
  return find_named_function(call, unit, diags, req) && bind_closure(context, unit, diags, req) &&
         follow_pointer_and_check(call, diags, not_a_function, req);
}

const VarDecl* RequestedFunction::variable() const {
  if (pointer) return pointer;
  auto* ref = dyn_cast<DeclRefExpr>(target);
  return ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

bool RequestedFunction::bound_object() const { return variable() && callable && with_object(fn); }

std::string RequestedFunction::variable_name() const {
  const VarDecl* var = variable();
  return !var ? "" : var->isLocalVarDeclOrParm() ? var->getNameAsString() : "::" + var->getQualifiedNameAsString();
}

void handle(const RequestFinder::Request& r, RequestContext& rc) {
  const CallExpr* call = r.call;
  const SourceLocation at = call->getBeginLoc();
  if (std::string where = constant_evaluated_place(call, rc.context); !where.empty())
    return rc.diags.error(at, Diag::request_in_constant_evaluation, {where});
  RequestedFunction req;
  std::vector<bool> selected;
  if (!resolve_requested(call, rc.context, rc.unit, rc.diags, Diag::request_not_a_function, req) ||
      !select_parameters(call, rc, req, selected))
    return;
  GeneratedGradient g;
  {
    Diagnostics::InDerivative requested(rc.diags, req.fn, nullptr, at);
    // Clad's pullback requests take the seed of the result after the function's arguments.
    bool seeded = call->getDirectCallee()->getQualifiedNameAsString() == "clad::pullback";
    g = rc.generator.request(req.fn, selected, at, seeded);
  }
  if (rc.diags.failed()) return;
  rc.replacements.push_back({call, replacement_text(req, g)});
  if (rc.inserted.insert(g.declaration).second) declare_gradient(r, req.fn, g.declaration, rc);
}

}  // namespace adjc
