// Function pointers whose function adjc knows, and functions specialised to the functions their
// calls pass (function_pointers.hpp).
#include "function_pointers.hpp"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "lowering.hpp"
#include "statement_cloner.hpp"

namespace adjc {

using namespace clang;

bool function_parameter(const ParmVarDecl* p) {
  return p->getType()->isFunctionPointerType() || p->getType()->isFunctionReferenceType();
}

// A function pointer, or a pointer to one (to any depth): what a followed variable may hold.
bool function_pointer_chain(QualType t) {
  while (t->isPointerType() && !t->isFunctionPointerType()) t = t->getPointeeType();
  return t->isFunctionPointerType();
}

namespace {

// The operand of `e` when `e` only passes on what it designates: parentheses, `*`, `&`, reads and
// decays, and casts to function pointers (or pointers to them).
const Expr* chain_operand(const Expr* e) {
  if (auto* p = dyn_cast<ParenExpr>(e)) return p->getSubExpr();
  if (auto* u = dyn_cast<UnaryOperator>(e); u && (u->getOpcode() == UO_Deref || u->getOpcode() == UO_AddrOf))
    return u->getSubExpr();
  if (auto* c = dyn_cast<ImplicitCastExpr>(e);
      c && (c->getCastKind() == CK_LValueToRValue || c->getCastKind() == CK_NoOp ||
            c->getCastKind() == CK_FunctionToPointerDecay))
    return c->getSubExpr();
  if (auto* c = dyn_cast<ExplicitCastExpr>(e); c && function_pointer_chain(c->getType())) return c->getSubExpr();
  return nullptr;
}

// A request names its function by its first argument, which Clad's spellings bind to a reference:
// that use only reads which function it is.
bool is_request(const CallExpr* call) {
  const FunctionDecl* f = call->getDirectCallee();
  if (!f) return false;
  static const std::set<std::string> requests = {
      "adjoint::gradient", "adjoint::derivative",       "adjoint::jacobian",
      "adjoint::hessian",  "adjoint::hessian_diagonal", "adjoint::hessian_vector",
      "clad::gradient",    "clad::differentiate",       "clad::jacobian",
      "clad::hessian"};
  return requests.count(f->getQualifiedNameAsString()) > 0;
}

// A function pointer, a member function pointer, or a pointer to either (to any depth).
bool followed_pointer_chain(QualType t) {
  while (t->isPointerType() && !t->isFunctionPointerType()) t = t->getPointeeType();
  return t->isFunctionPointerType() || t->isMemberFunctionPointerType();
}

// The local function pointers and member function pointers (and pointers to them) of `body` whose
// value may differ from their initialiser: each is read only as its value (or, through `*`, the
// function), or its address is held by another local that is itself unchanged; any other use (an
// assignment, a reference bound to it, its address passed on or stored) changes it.
std::set<const VarDecl*> changed_function_pointers(const Stmt* body) {
  std::set<const VarDecl*> changed;
  std::multimap<const VarDecl*, const VarDecl*> held;  // a variable, and a local holding its address
  std::function<void(const Stmt*)> walk;
  // `e`, used by its parent; `into`: the local it initialises; `read`: only its value is used.
  auto use = [&](const Expr* e, const VarDecl* into, bool read) {
    const Expr* top = e->IgnoreParens();
    while (const Expr* next = chain_operand(e)) e = next;
    auto* ref = dyn_cast<DeclRefExpr>(e);
    auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!vd || !followed_pointer_chain(vd->getType())) return walk(e);
    const QualType t = top->getType();
    if (read || t->isFunctionType() ||
        (top->isPRValue() && (t->isFunctionPointerType() || t->isMemberFunctionPointerType())))
      return;
    if (into && top->isPRValue()) return void(held.insert({vd, into}));
    changed.insert(vd);
  };
  walk = [&](const Stmt* s) {
    if (!s) return;
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls())
        if (auto* vd = dyn_cast<VarDecl>(d); vd && vd->getInit())
          use(vd->getInit(), vd->hasLocalStorage() && followed_pointer_chain(vd->getType()) ? vd : nullptr, false);
      return;
    }
    auto* call = dyn_cast<CallExpr>(s);
    const bool request = call && is_request(call);
    for (const Stmt* c : s->children()) {
      if (auto* e = dyn_cast_or_null<Expr>(c)) use(e, nullptr, request && c == call->getArg(0));
      else walk(c);
    }
  };
  walk(body);
  for (bool grown = true; grown;) {
    grown = false;
    for (auto [vd, holder] : held)
      if (changed.count(holder)) grown |= changed.insert(vd).second;
  }
  return changed;
}

// What an expression of function pointers designates: a function (`f`, `&f`, `*fp`, a pointer to
// f), or a variable holding a function pointer or a pointer to one, as that variable (`fp`,
// `*fpp`) or as its address (`&fp`, the value of `fpp`); else `why` says what stops it.
struct Designated {
  const FunctionDecl* fn = nullptr;
  const VarDecl* var = nullptr;
  bool address = false;
  std::string why;

  static Designated function(const FunctionDecl* f) { return {f, nullptr, false, ""}; }
  static Designated variable(const VarDecl* vd, bool address) { return {nullptr, vd, address, ""}; }
  static Designated stop(std::string why) { return {nullptr, nullptr, false, std::move(why)}; }
};

Designated designated(const Expr* e, int depth = 0);

// The value of a followed variable: its initialiser's.
Designated value_of(const VarDecl* vd, int depth) {
  const std::string name = "'" + vd->getNameAsString() + "'";
  Designated none;
  if (isa<ParmVarDecl>(vd)) none.why = name + " is a parameter, which holds whatever function its callers pass";
  else if (!vd->getInit()) none.why = name + " has no initialiser";
  else if (!vd->hasLocalStorage() && !vd->getType().isConstQualified())
    none.why = name + " is a global (or static) variable that is not const, which any function may assign";
  else if (vd->hasLocalStorage()) {
    auto* owner = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
    if (!owner || !owner->getBody() || changed_function_pointers(owner->getBody()).count(vd))
      none.why = name + " is assigned after its initialisation (or a reference to it or its address is passed on or "
                        "written through)";
  }
  if (!none.why.empty()) return none;
  if (depth > 16) return Designated::stop(name + " is initialised from itself");
  return designated(vd->getInit(), depth + 1);
}

Designated designated(const Expr* e, int depth) {
  e = e->IgnoreParens();
  if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return designated(d->getExpr(), depth);
  if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return designated(m->getSubExpr(), depth);
  auto as_value = [&](Designated r) { return r.var && !r.address ? value_of(r.var, depth) : r; };
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    if (auto* f = dyn_cast<FunctionDecl>(ref->getDecl())) return Designated::function(f);
    if (auto* vd = dyn_cast<VarDecl>(ref->getDecl()); vd && function_pointer_chain(vd->getType()))
      return Designated::variable(vd, false);
    return Designated::stop("'" + ref->getDecl()->getNameAsString() + "' is not a function pointer");
  }
  if (auto* c = dyn_cast<ImplicitCastExpr>(e)) {
    if (c->getCastKind() == CK_LValueToRValue) return as_value(designated(c->getSubExpr(), depth));
    if (c->getCastKind() == CK_NoOp || c->getCastKind() == CK_FunctionToPointerDecay)
      return designated(c->getSubExpr(), depth);
  }
  if (auto* c = dyn_cast<ExplicitCastExpr>(e)) {
    Designated r = as_value(designated(c->getSubExpr(), depth));
    if (r.var) return Designated::stop("a cast of a pointer to a function pointer");
    if (!r.fn) return r;
    QualType pointer = r.fn->getASTContext().getPointerType(r.fn->getType());
    if (!r.fn->getASTContext().hasSameUnqualifiedType(c->getType(), pointer))
      return Designated::stop("the cast to '" + c->getType().getAsString() + "' is not to the type of '" +
                              r.fn->getNameAsString() + "' ('" + pointer.getAsString() + "')");
    return r;
  }
  if (auto* u = dyn_cast<UnaryOperator>(e); u && (u->getOpcode() == UO_Deref || u->getOpcode() == UO_AddrOf)) {
    Designated r = designated(u->getSubExpr(), depth);
    if (u->getOpcode() == UO_Deref && r.var && !r.address) r = value_of(r.var, depth);
    if (r.fn || !r.var) return r;  // `*fp`, `&f`: the function
    if (u->getOpcode() == UO_AddrOf && !r.address) return Designated::variable(r.var, true);
    if (u->getOpcode() == UO_Deref && r.address) return Designated::variable(r.var, false);
  }
  if (isa<ArraySubscriptExpr>(e)) return Designated::stop("an element of an array of function pointers");
  return Designated::stop("this expression is not a function or a function pointer adjc can follow");
}

}  // namespace

const FunctionDecl* resolved_function(const Expr* e, std::string* why) {
  Designated r = designated(e);
  if (r.var && !r.address) r = value_of(r.var, 0);
  if (!r.fn && why) *why = r.var ? "it is a pointer to a function pointer" : r.why;
  return r.fn;
}

const CXXMethodDecl* resolved_member_function(const VarDecl* vd, std::string* why) {
  // Each variable on the way, from `vd` to the one initialised with `&S::f`: a copy of another
  // (`auto m2 = m;`) or a pointer to one (`auto mp = &m;`, read as `*mp`).
  for (int depth = 0; depth < 16; ++depth) {
    const std::string name = "'" + vd->getNameAsString() + "'";
    if (!vd->hasLocalStorage() && !vd->getType().isConstQualified()) {
      *why = name + " is a global (or static) variable that is not const, which any function may assign";
      return nullptr;
    }
    auto* owner = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
    if (vd->hasLocalStorage() &&
        (!owner || !owner->getBody() || changed_function_pointers(owner->getBody()).count(vd))) {
      *why = name + " is assigned after its initialisation (or a reference to it or its address is passed on)";
      return nullptr;
    }
    const Expr* init = vd->getInit() ? vd->getInit()->IgnoreParenImpCasts() : nullptr;
    if (auto* address = dyn_cast_or_null<UnaryOperator>(init); address && address->getOpcode() == UO_AddrOf)
      init = address->getSubExpr()->IgnoreParenImpCasts();
    auto* ref = dyn_cast_or_null<DeclRefExpr>(init);
    if (auto* method = ref ? dyn_cast<CXXMethodDecl>(ref->getDecl()) : nullptr) return method;
    auto* next = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!next || !followed_pointer_chain(next->getType())) {
      *why = name + " is not initialised with '&S::f'";
      return nullptr;
    }
    vd = next;
  }
  *why = "'" + vd->getNameAsString() + "' is initialised from itself";
  return nullptr;
}

bool followed_function_pointer(const VarDecl* vd) {
  Designated r = value_of(vd, 0);
  return r.fn || r.var;
}

namespace {

// `f` where a function pointer (or reference) of type `t` was used, at `at`.
Expr* function_use(ASTContext& context, FunctionDecl* f, QualType t, SourceLocation at) {
  auto* ref =
      DeclRefExpr::Create(context, NestedNameSpecifierLoc(), SourceLocation(), f, false, at, f->getType(), VK_LValue);
  if (t->isReferenceType() || t->isFunctionType()) return ref;
  return ImplicitCastExpr::Create(context, t.getUnqualifiedType(), CK_FunctionToPointerDecay, ref, nullptr, VK_PRValue,
                                  FPOptionsOverride());
}

BoundFunction build(const FunctionDecl* fn, const std::vector<const FunctionDecl*>& functions, const UnitFacts& unit,
                    ASTContext& context) {
  BoundFunction b;
  b.original = fn;
  b.where = fn->getLocation();
  auto fail = [&](SourceLocation at, Diag id, std::vector<std::string> args = {}) {
    b.where = at;
    b.why = {id, std::move(args)};
    return b;
  };
  const std::string name = fn->getNameAsString();
  std::map<const ParmVarDecl*, FunctionDecl*> bound;
  std::string stem = base_name(fn, unit);
  for (const ParmVarDecl* p : fn->parameters()) {
    if (!function_parameter(p)) continue;
    const FunctionDecl* f = functions[b.bound.size()];
    b.bound.push_back({p, f});
    bound[p] = const_cast<FunctionDecl*>(f);
    // Its uses name the function, which an assignment cannot change.
    if (writes_variable(fn->getBody(), p))
      return fail(p->getLocation(), Diag::function_pointer_parameter_assigned, {name, p->getNameAsString()});
    std::string bound_name = base_name(f, unit);
    if (bound_name.empty())
      return fail(p->getLocation(), Diag::function_pointer_bound_to_operator,
                  {name, f->getNameAsString(), p->getNameAsString()});
    stem += "_" + bound_name;
  }
  // A name no identifier of the unit spells, so the generated functions cannot collide.
  std::string copy_name = stem;
  for (int i = 2; context.Idents.find(copy_name) != context.Idents.end(); ++i)
    copy_name = stem + "_" + std::to_string(i);
  auto* copy = FunctionDecl::Create(context, const_cast<DeclContext*>(fn->getDeclContext()), fn->getBeginLoc(),
                                    fn->getLocation(), &context.Idents.get(copy_name), QualType(), nullptr, SC_None);
  std::vector<ParmVarDecl*> params;
  std::vector<QualType> types;
  std::map<const Decl*, Decl*> decls;
  for (const ParmVarDecl* p : fn->parameters()) {
    if (bound.count(p)) continue;
    auto* param = ParmVarDecl::Create(context, copy, p->getInnerLocStart(), p->getLocation(), p->getIdentifier(),
                                      p->getType(), p->getTypeSourceInfo(), p->getStorageClass(), nullptr);
    param->setScopeInfo(0, params.size());
    if (p->hasAttrs()) param->setAttrs(p->getAttrs());
    decls[p] = param;
    params.push_back(param);
    types.push_back(p->getType());
  }
  copy->setType(context.getFunctionType(fn->getReturnType(), types,
                                        fn->getType()->castAs<FunctionProtoType>()->getExtProtoInfo()));
  copy->setParams(params);
  // Each use of a bound parameter names the function bound to it.
  auto use_of_bound = [&](const DeclRefExpr* ref) -> Expr* {
    auto* p = dyn_cast<ParmVarDecl>(ref->getDecl());
    auto it = p ? bound.find(p) : bound.end();
    return it == bound.end() ? nullptr : function_use(context, it->second, p->getType(), ref->getLocation());
  };
  StatementCloner body(context, copy, std::move(decls), use_of_bound);
  Stmt* s = body.stmt(fn->getBody());
  if (!s)
    return fail(body.unsupported->getBeginLoc(), Diag::function_pointer_copy_unsupported_construct,
                {name, body.unsupported->getStmtClassName(), name});
  copy->setBody(s);
  b.fn = copy;
  return b;
}

}  // namespace

const BoundFunction& bound_function(const FunctionDecl* fn, const std::vector<const FunctionDecl*>& functions,
                                    const UnitFacts& unit, ASTContext& context) {
  auto& slot = unit.bound_functions[{fn, functions}];
  if (!slot) {
    slot = std::make_shared<BoundFunction>(build(fn, functions, unit, context));
    if (slot->fn) unit.bound_of[slot->fn] = slot.get();
  }
  return *slot;
}

const BoundFunction* as_bound_function(const FunctionDecl* fn, const UnitFacts& unit) {
  auto it = unit.bound_of.find(fn);
  return it == unit.bound_of.end() ? nullptr : it->second;
}

bool resolve_function_pointers(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, Diagnostics& diags) {
  Stmt* body = fn->getBody();
  // Each use of a function pointer that follows to its function (`g`, `*fpp`, `(*g)`) is the function.
  auto follow = [&](Stmt*& s) {
    if (isa<LambdaExpr>(s)) return false;
    auto* e = dyn_cast<Expr>(s);
    if (!e) return true;
    QualType t = e->getType();
    auto* named = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    const FunctionDecl* f = nullptr;
    if ((t->isFunctionType() || (e->isPRValue() && t->isFunctionPointerType())) &&
        !(named && isa<FunctionDecl>(named->getDecl())))
      f = resolved_function(e);
    if (f) s = function_use(context, const_cast<FunctionDecl*>(f), t, e->getExprLoc());
    return !f;
  };
  for (Stmt*& s : body->children()) rewrite_statements(s, follow, [](Stmt*&) {});
  // A call of a user function (not a member) passing functions to its function parameters: a call
  // of the copy with them bound, given the other arguments.
  bool ok = true;
  auto bind = [&](CallExpr* call) -> Expr* {
    const FunctionDecl* callee = call->getDirectCallee();
    if (call->getStmtClass() != Stmt::CallExprClass || !callee || isa<CXXMethodDecl>(callee)) return nullptr;
    callee = callee->getDefinition();
    if (!callee || std::none_of(callee->param_begin(), callee->param_end(), function_parameter) ||
        callee_kind(callee, unit) != CalleeKind::User)
      return nullptr;
    std::vector<const FunctionDecl*> functions;
    std::vector<Expr*> args;
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      const ParmVarDecl* p = i < callee->getNumParams() ? callee->getParamDecl(i) : nullptr;
      if (!p || !function_parameter(p)) {
        args.push_back(call->getArg(i));
        continue;
      }
      const FunctionDecl* f = resolved_function(call->getArg(i));
      if (!f) {
        diags.error(call->getArg(i)->getExprLoc(), Diag::function_pointer_argument_not_a_function,
                    {p->getNameAsString(), callee->getNameAsString(), callee->getNameAsString()});
        ok = false;
        return nullptr;
      }
      functions.push_back(f->getCanonicalDecl());
    }
    const BoundFunction& b = bound_function(callee, functions, unit, context);
    if (!b.fn) {
      diags.error(b.where, b.why);
      ok = false;
      return nullptr;
    }
    auto* copy = const_cast<FunctionDecl*>(b.fn);
    return CallExpr::Create(context,
                            function_use(context, copy, context.getPointerType(copy->getType()), call->getBeginLoc()),
                            args, call->getType(), call->getValueKind(), call->getRParenLoc(), call->getFPFeatures());
  };
  std::function<void(Stmt*&)> walk = [&](Stmt*& s) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (isa<OMPExecutableDirective>(s)) {
      if (Stmt* body = region_body(s))
        for (Stmt*& c : body->children()) walk(c);
      return;
    }
    for (Stmt*& c : s->children()) walk(c);
    if (auto* call = dyn_cast<CallExpr>(s))
      if (Expr* bound = bind(call)) s = bound;
  };
  for (Stmt*& s : body->children()) walk(s);
  return ok;
}

}  // namespace adjc
