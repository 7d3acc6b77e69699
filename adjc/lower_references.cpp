// Lowering of local references and of scalar parameters whose address is taken, both by editing
// the body's AST before it is lowered (as rewrite_containers does) (lowering.hpp).
//
// A local reference `T& r = v[i];` declared in a block is an alias: each use of r is rewritten into
// its referent, and r is no variable of its own. That is exact while the referent names the same
// object in all of r's scope, so the variables that pick it (the index i, a pointer p in `*p`)
// must not change there. A floating parameter passed by address or non-const reference (`&x`)
// is replaced in the body by a local copy, which is a one-element region like such a local.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

namespace {

// The lvalue a reference initialised by `init` binds to, without the conversions that only add
// `const`; nullptr when it binds to a temporary.
Expr* referent(Expr* init) {
  if (auto* full = dyn_cast<ExprWithCleanups>(init)) init = full->getSubExpr();
  while (true) {
    init = init->IgnoreParens();
    auto* cast = dyn_cast<ImplicitCastExpr>(init);
    if (!cast || cast->getCastKind() != CK_NoOp) break;
    init = cast->getSubExpr();
  }
  return isa<MaterializeTemporaryExpr>(init) || !init->isGLValue() ? nullptr : init;
}

bool holds_call(const Stmt* s) {
  if (!s) return false;
  if (isa<CallExpr>(s)) return true;
  for (const Stmt* c : s->children())
    if (holds_call(c)) return true;
  return false;
}

// The variables whose values pick the object `e` names: indices and pointers (a whole array or
// struct variable is the same object whatever it holds).
void selectors(const Expr* e, std::vector<const VarDecl*>& out) {
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    auto* vd = dyn_cast<VarDecl>(ref->getDecl());
    QualType t = vd ? vd->getType().getNonReferenceType() : QualType();
    if (vd && !t->isArrayType() && !t->isRecordType()) out.push_back(vd);
    return;
  }
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) selectors(ce, out);
}

}  // namespace

void replace_uses(Stmt*& slot, const ValueDecl* vd, const std::function<Expr*(const DeclRefExpr*)>& with) {
  if (!slot) return;
  if (auto* ref = dyn_cast<DeclRefExpr>(slot); ref && ref->getDecl() == vd) {
    slot = with(ref);
    return;
  }
  // A lambda's body is a function of its own, whose captures become its parameters: only what it
  // captures here is a use here.
  auto* lambda = dyn_cast<LambdaExpr>(slot);
  for (Stmt*& c : slot->children())
    if (!lambda || c != lambda->getBody()) replace_uses(c, vd, with);
}

namespace {

// A call of an accessor: a function of the user's returning a reference whose body is one
// `return` of an element or member (`double& at(int i) { return data[i]; }`, `double&
// operator()(int i, int j) { return m[i * n + j]; }`, `double& id(double& x) { return x; }`, a
// lambda `[&x]() -> double& { return x; }`), rewritten into that place with the call's arguments
// in the parameters' stead. The arguments must be free of side effects and calls, as they may be
// evaluated more or fewer times.
//
// An accessor with effects ends in its one `return` after other statements (`double& pick(double*
// a) { scale(a); return a[1]; }`): its call is kept, as a statement before the one using the place,
// which is the same place after the call when the body changes no value parameter the place
// reads and the call writes no variable an argument for one reads.
class AccessorCall {
 public:
  AccessorCall(ASTContext& context, const CallExpr* call) : context_(context) {
    const FunctionDecl* fn = call->getDirectCallee();
    if (!fn || !fn->getReturnType()->isLValueReferenceType() || returns_self(fn) || is_library(fn)) return;
    fn = fn->getDefinition();
    lambda_ = fn ? dyn_cast<CXXMethodDecl>(fn) : nullptr;
    if (lambda_ && !lambda_->getParent()->isLambda()) lambda_ = nullptr;
    auto* body = fn ? dyn_cast_or_null<CompoundStmt>(fn->getBody()) : nullptr;
    auto* ret = body && !body->body_empty() ? dyn_cast<ReturnStmt>(body->body_back()) : nullptr;
    if (!ret || !ret->getRetValue()) return;
    effects_ = body->size() > 1;
    if (effects_ && returns_early(body, ret)) return;
    std::vector<const Expr*> args(call->arg_begin(), call->arg_end());
    if (auto* member = dyn_cast<CXXMemberCallExpr>(call)) {
      object_ = member->getImplicitObjectArgument();
    } else if (isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(fn)) {
      object_ = args.front();
      args.erase(args.begin());
    }
    if (isa<CXXMethodDecl>(fn) && cast<CXXMethodDecl>(fn)->isInstance() && !object_) return;
    if (object_ && !plain(object_)) return;
    // Variables the call may change: whole (bound to a non-const reference) or their elements (through
    // a pointer).
    std::set<const VarDecl*> changed, elements_changed;
    for (unsigned i = 0; i < fn->getNumParams() && i < args.size(); ++i) {
      if (!plain(args[i])) return;
      const ParmVarDecl* p = fn->getParamDecl(i);
      args_[p] = const_cast<Expr*>(args[i]);
      if (effects_ && !p->getType()->isReferenceType() && writes_variable(body, p)) return;
      QualType t = p->getType();
      if (t->isLValueReferenceType() && !t->getPointeeType().isConstQualified()) named_variables(args[i], changed);
      if (t->isPointerType() && !t->getPointeeType().isConstQualified()) named_variables(args[i], elements_changed);
    }
    // A value parameter's argument, evaluated again after the call, must give what it gave before:
    // a pointer's from variables the call leaves, any other's also from no memory it writes.
    if (effects_)
      for (auto [p, arg] : args_) {
        if (p->getType()->isReferenceType()) continue;
        std::set<const VarDecl*> read;
        named_variables(arg, read);
        const bool address = p->getType()->isPointerType() && !reads_memory(arg);
        for (const VarDecl* v : read)
          if (changed.count(v) || (!address && elements_changed.count(v))) return;
      }
    place_ = clone(ret->getRetValue());
  }
  // The place the call names, or nullptr when the call is not of an accessor adjc can rewrite.
  Expr* place() const { return place_; }
  // Whether the call must still run (before the statement using the place).
  bool effects() const { return effects_; }

 private:
  static bool returns_early(const Stmt* s, const ReturnStmt* last) {
    if (!s || isa<LambdaExpr>(s)) return false;
    if (isa<ReturnStmt>(s) && s != last) return true;
    return std::any_of(s->child_begin(), s->child_end(), [&](const Stmt* c) { return returns_early(c, last); });
  }
  static bool reads_memory(const Stmt* s) {
    if (!s) return false;
    if (isa<ArraySubscriptExpr>(s) || isa<MemberExpr>(s) || isa<CXXOperatorCallExpr>(s)) return true;
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_Deref) return true;
    return std::any_of(s->child_begin(), s->child_end(), [](const Stmt* c) { return reads_memory(c); });
  }

  // Free of side effects and of calls other than operators (`v[i]`).
  static bool plain(const Expr* e) { return !has_side_effects(e) && !calls_function(e); }
  static bool calls_function(const Stmt* s) {
    if (!s) return false;
    if (isa<CallExpr>(s) && !isa<CXXOperatorCallExpr>(s)) return true;
    for (const Stmt* c : s->children())
      if (calls_function(c)) return true;
    return false;
  }

  // A copy of the accessor's `e` with the arguments for the parameters and the object for `this`;
  // nullptr for expressions it does not copy.
  Expr* clone(const Expr* e) {
    if (!e) return nullptr;
    if (auto* c = dyn_cast<ImplicitCastExpr>(e)) {
      // A parameter's value: the argument (already converted to the parameter's type).
      if (auto* ref = dyn_cast<DeclRefExpr>(c->getSubExpr()->IgnoreParens()); ref && c->getCastKind() == CK_LValueToRValue)
        if (auto* p = dyn_cast<ParmVarDecl>(ref->getDecl()); p && !p->getType()->isReferenceType())
          return args_.count(p) ? args_[p] : nullptr;
      Expr* sub = clone(c->getSubExpr());
      return sub ? ImplicitCastExpr::Create(context_, c->getType(), c->getCastKind(), sub, nullptr, c->getValueKind(),
                                            c->getFPFeatures())
                 : nullptr;
    }
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      auto* vd = dyn_cast<VarDecl>(ref->getDecl());
      if (vd && captured_by_reference(vd))  // the lambda's caller sees the variable itself
        return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd),
                                   false, ref->getLocation(), ref->getType(), ref->getValueKind());
      if (auto* p = dyn_cast<ParmVarDecl>(ref->getDecl()))  // a reference parameter: the place bound to it
        return p->getType()->isReferenceType() && args_.count(p) ? args_[p] : nullptr;
      if (!vd || !vd->hasGlobalStorage()) return nullptr;
      return DeclRefExpr::Create(context_, ref->getQualifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd), false,
                                 ref->getLocation(), ref->getType(), ref->getValueKind());
    }
    if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e)) return const_cast<Expr*>(e);
    if (auto* p = dyn_cast<ParenExpr>(e)) {
      Expr* sub = clone(p->getSubExpr());
      return sub ? new (context_) ParenExpr(p->getLParen(), p->getRParen(), sub) : nullptr;
    }
    if (auto* b = dyn_cast<BinaryOperator>(e)) {
      Expr *l = clone(b->getLHS()), *r = clone(b->getRHS());
      if (!l || !r || b->isAssignmentOp() || b->getOpcode() == BO_Comma) return nullptr;
      return BinaryOperator::Create(context_, l, r, b->getOpcode(), b->getType(), b->getValueKind(), b->getObjectKind(),
                                    b->getOperatorLoc(), b->getFPFeatures());
    }
    if (auto* u = dyn_cast<UnaryOperator>(e)) {
      Expr* sub = clone(u->getSubExpr());
      if (!sub || u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf) return nullptr;
      return UnaryOperator::Create(context_, sub, u->getOpcode(), u->getType(), u->getValueKind(), u->getObjectKind(),
                                   u->getOperatorLoc(), false, u->getFPOptionsOverride());
    }
    if (auto* a = dyn_cast<ArraySubscriptExpr>(e)) {
      Expr *base = clone(a->getLHS()), *index = clone(a->getRHS());
      return base && index ? new (context_) ArraySubscriptExpr(base, index, a->getType(), a->getValueKind(),
                                                               a->getObjectKind(), a->getRBracketLoc())
                           : nullptr;
    }
    if (auto* m = dyn_cast<MemberExpr>(e); m && isa<FieldDecl>(m->getMemberDecl())) {
      bool arrow = m->isArrow();
      Expr* base = nullptr;
      if (isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts())) {  // `this->x`, `x`: the call's object
        base = const_cast<Expr*>(object_);
        arrow = object_ && object_->getType()->isPointerType();
      } else {
        base = clone(m->getBase());
      }
      return base ? MemberExpr::CreateImplicit(context_, base, arrow, cast<FieldDecl>(m->getMemberDecl()), m->getType(),
                                               m->getValueKind(), m->getObjectKind())
                  : nullptr;
    }
    // `v[i]` of a container member or parameter.
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(e); op && op->getOperator() == OO_Subscript && op->getNumArgs() == 2) {
      Expr *base = clone(op->getArg(0)), *index = clone(op->getArg(1));
      if (!base || !index) return nullptr;
      return CXXOperatorCallExpr::Create(context_, OO_Subscript, const_cast<Expr*>(op->getCallee()), {base, index},
                                         op->getType(),
                                         op->getValueKind(), op->getRParenLoc(), op->getFPFeatures());
    }
    return nullptr;
  }

  bool captured_by_reference(const VarDecl* vd) const {
    if (!lambda_) return false;
    for (const LambdaCapture& c : lambda_->getParent()->captures())
      if (c.capturesVariable() && c.getCapturedVar() == vd) return c.getCaptureKind() == LCK_ByRef;
    return false;
  }

  ASTContext& context_;
  const CXXMethodDecl* lambda_ = nullptr;  // the call operator, for a lambda
  bool effects_ = false;
  const Expr* object_ = nullptr;
  std::map<const ParmVarDecl*, Expr*> args_;
  Expr* place_ = nullptr;
};

// Where a statement's first step is using the place a call names: the initialiser of a local
// reference, or the target of an assignment by a constant or of `++`/`--`.
Stmt** accessor_slot(Stmt* statement) {
  if (auto* ds = dyn_cast<DeclStmt>(statement); ds && ds->isSingleDecl())
    if (auto* vd = dyn_cast<VarDecl>(ds->getSingleDecl()); vd && vd->getType()->isLValueReferenceType() && vd->getInit())
      return reinterpret_cast<Stmt**>(vd->getInitAddress());
  auto constant = [](const Expr* e) {
    e = e->IgnoreParenImpCasts();
    return isa<FloatingLiteral>(e) || isa<IntegerLiteral>(e);
  };
  if (auto* b = dyn_cast<BinaryOperator>(statement); b && b->isAssignmentOp() && constant(b->getRHS()))
    return &*b->child_begin();
  if (auto* u = dyn_cast<UnaryOperator>(statement); u && u->isIncrementDecrementOp())
    return &*u->child_begin();
  return nullptr;
}

}  // namespace

// Calls of accessors (AccessorCall) replaced by the places they name, innermost first. A call of
// an accessor with effects is replaced only where it is a statement's first step: bound to a
// local reference (`double& r = pick(a);`) or written by a constant (`pick(a) += 2;`, `++pick(a)`);
// the call itself then runs as a statement just before.
void inline_accessor_calls(const FunctionDecl* fn, ASTContext& context) {
  std::function<void(Stmt*&)> walk = [&](Stmt*& s) {
    if (!s) return;
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (Decl* d : ds->decls())
        if (auto* vd = dyn_cast<VarDecl>(d); vd && vd->getInit()) walk(*reinterpret_cast<Stmt**>(vd->getInitAddress()));
      return;
    }
    if (isa<LambdaExpr>(s)) return;
    for (Stmt*& c : s->children()) walk(c);
    if (auto* call = dyn_cast<CallExpr>(s))
      if (AccessorCall accessor(context, call); accessor.place() && !accessor.effects()) s = accessor.place();
    if (auto* cs = dyn_cast<CompoundStmt>(s)) {
      std::vector<Stmt*> body;
      for (Stmt* statement : cs->body()) {
        if (Stmt** slot = accessor_slot(statement))
          if (auto* call = dyn_cast<CallExpr>(*slot))
            if (AccessorCall accessor(context, call); accessor.place()) {
              body.push_back(call);
              *slot = accessor.place();
            }
        body.push_back(statement);
      }
      if (body.size() != cs->size())
        s = CompoundStmt::Create(context, body, cs->hasStoredFPFeatures() ? cs->getStoredFPFeatures() : FPOptionsOverride(),
                                 cs->getLBracLoc(), cs->getRBracLoc());
    }
  };
  Stmt* body = fn->getBody();
  walk(body);
  if (body != fn->getBody()) const_cast<FunctionDecl*>(fn)->setBody(body);
}

// Local references declared in blocks, made aliases (aliases_) in the order of the blocks, so that a
// reference to a reference is resolved first.
void Lowering::find_aliases(Stmt* body) {
  std::function<void(Stmt*)> walk = [&](Stmt* s) {
    if (!s) return;
    if (auto* cs = dyn_cast<CompoundStmt>(s)) {
      for (Stmt** it = cs->body_begin(); it != cs->body_end(); ++it) {
        if (auto* ds = dyn_cast<DeclStmt>(*it))
          for (Decl* d : ds->decls()) {
            if (auto* vd = dyn_cast<VarDecl>(d); vd && vd->getType()->isReferenceType() && vd->getInit())
              alias(ds, vd, it + 1, cs->body_end());
            else if (vd && vd->getType()->isPointerType() && vd->getInit())
              pointer_alias(ds, vd, it + 1, cs->body_end());
          }
        walk(*it);
      }
      return;
    }
    for_each_child(s, walk);
  };
  walk(body);
}

// `vd`, declared in `decls`, as an alias of its referent in the rest of its declaration and the
// statements [rest, end) of its block.
void Lowering::alias(DeclStmt* decls, const VarDecl* vd, Stmt** rest, Stmt** end) {
  Expr* target = referent(const_cast<Expr*>(vd->getInit()));
  if (!target) return;  // a temporary: a local (lower_decl)
  const std::string name = vd->getName().str();
  // A reference that cannot be an alias is reported once; its uses are still rewritten (the function
  // is not differentiated), so they are not reported again.
  if (has_side_effects(target) || holds_call(target))
    fail(vd->getLocation(), Diag::unsupported_local_reference_result_call_side, {name});
  std::vector<const VarDecl*> picks;
  if (!isa<DeclRefExpr>(target)) selectors(target, picks);
  bool after = false;
  std::vector<Stmt*> scope;
  for (Decl* d : decls->decls()) {
    if (after)
      if (auto* later = dyn_cast<VarDecl>(d); later && later->getInit()) scope.push_back(later->getInit());
    after |= d == vd;
  }
  scope.insert(scope.end(), rest, end);
  for (const VarDecl* pick : picks)
    if (std::any_of(scope.begin(), scope.end(), [&](const Stmt* s) { return writes_variable(s, pick); })) {
      fail(vd->getLocation(), Diag::unsupported_local_reference, {name, pick->getName().str(), name, name});
      break;
    }
  for (Decl* d : decls->decls())
    if (auto* later = dyn_cast<VarDecl>(d); later && later != vd && later->getInit())
      replace_uses(*later->getInitAddress(), vd, [&](const DeclRefExpr*) { return target; });
  for (Stmt** it = rest; it != end; ++it) replace_uses(*it, vd, [&](const DeclRefExpr*) { return target; });
  aliases_.insert(vd);
}

// `T* p = &v;` (or `T* p{&v}`) for a variable of numbers `v`, used only as `*p` and never changed:
// each `*p` in the rest of its declaration and its block is `v`, as a reference would be. Other
// local pointers are lowered as pointers (which must point into arrays).
void Lowering::pointer_alias(DeclStmt* decls, const VarDecl* vd, Stmt** rest, Stmt** end) {
  const Expr* init = vd->getInit()->IgnoreParenImpCasts();
  if (auto* list = dyn_cast<InitListExpr>(init); list && list->getNumInits() == 1)
    init = list->getInit(0)->IgnoreParenImpCasts();
  auto* address = dyn_cast<UnaryOperator>(init);
  auto* ref = address && address->getOpcode() == UO_AddrOf ? dyn_cast<DeclRefExpr>(address->getSubExpr()->IgnoreParens())
                                                             : nullptr;
  auto* target = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!target || target->hasGlobalStorage() || !target->getType()->isArithmeticType()) return;
  std::vector<Stmt**> scope;
  bool after = false;
  for (Decl* d : decls->decls()) {
    if (after)
      if (auto* later = dyn_cast<VarDecl>(d); later && later->getInit()) scope.push_back(later->getInitAddress());
    after |= d == vd;
  }
  for (Stmt** it = rest; it != end; ++it) scope.push_back(it);
  // Every mention of p must be the operand of a `*`.
  auto is_p = [&](const Expr* e) {
    auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == vd;
  };
  auto deref_of_p = [&](const Stmt* s) {
    auto* u = dyn_cast<UnaryOperator>(s);
    return u && u->getOpcode() == UO_Deref && is_p(u->getSubExpr());
  };
  std::function<bool(const Stmt*)> only_derefs = [&](const Stmt* s) {
    if (!s || deref_of_p(s)) return true;
    if (auto* r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == vd) return false;
    return std::all_of(s->child_begin(), s->child_end(), only_derefs);
  };
  for (Stmt** s : scope)
    if (!only_derefs(*s)) return;
  std::function<void(Stmt*&)> replace = [&](Stmt*& s) {
    if (!s) return;
    if (deref_of_p(s)) {
      s = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), target, false,
                              s->getBeginLoc(), target->getType().getNonReferenceType(), VK_LValue);
      return;
    }
    for (Stmt*& c : s->children()) replace(c);
  };
  for (Stmt** s : scope) replace(*s);
  aliases_.insert(vd);
}

// Floating parameters passed by address or non-const reference: each use in the body names a local
// copy instead (copied_params_), a one-element region (addressed_). So does a pointer parameter the
// body moves (`arr = arr + 1`, `++arr`): its copy is a local pointer into the parameter's memory.
// And so does a struct parameter by value that the body may change (`a += b` in
// `V operator+(V a, const V& b)`): its copy is a local struct, whose adjoint is the function's own
// (the caller's adjoint of the argument also collects other uses of it). A std::vector or
// std::array parameter by value the body may change is copied the same way, element by element
// (copy_container): the callee's own copy, as in C++.
void Lowering::copy_addressed_params(Stmt* body) {
  std::vector<const ParmVarDecl*> addressed, moved;
  auto param = [&](const Expr* e) -> const ParmVarDecl* {
    auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    auto* p = ref ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
    return p && p->getType()->isArithmeticType() ? p : nullptr;
  };
  auto pointer_param = [&](const Expr* e) -> const ParmVarDecl* {
    auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParens());
    auto* p = ref ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
    return p && p->getType()->isPointerType() ? p : nullptr;
  };
  auto visit = [&](const Stmt* s) {
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_AddrOf)
      if (const ParmVarDecl* p = param(u->getSubExpr())) addressed.push_back(p);
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp())
      if (const ParmVarDecl* p = pointer_param(u->getSubExpr())) moved.push_back(p);
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
      if (const ParmVarDecl* p = pointer_param(b->getLHS())) moved.push_back(p);
    if (auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXOperatorCallExpr>(s) && call->getDirectCallee())
      for (unsigned i = 0; i < call->getNumArgs() && i < call->getDirectCallee()->getNumParams(); ++i) {
        QualType t = call->getDirectCallee()->getParamDecl(i)->getType();
        if (t->isLValueReferenceType() && !t->getPointeeType().isConstQualified())
          if (const ParmVarDecl* p = param(call->getArg(i))) addressed.push_back(p);
      }
    return true;
  };
  walk_statements(body, visit);
  std::vector<const ParmVarDecl*> copied = addressed;
  copied.insert(copied.end(), moved.begin(), moved.end());
  for (const ParmVarDecl* p : ir_.fn->parameters())
    if (!p->getType()->isReferenceType() && (is_plain_struct(p->getType(), ir_.unit) || is_container(p->getType())) &&
        may_modify(body, p))
      copied.push_back(p);
  for (const ParmVarDecl* p : copied) {
    if (std::any_of(copied_params_.begin(), copied_params_.end(), [&](auto& c) { return c.first == p; })) continue;
    QualType type = p->getType().getUnqualifiedType();
    auto* copy = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), p->getLocation(), p->getLocation(),
                                 p->getIdentifier(), type, context_.getTrivialTypeSourceInfo(type, p->getLocation()),
                                 SC_None);
    copy->setImplicit();
    // Each use keeps its location, for diagnostics at it.
    auto use = [&](const DeclRefExpr* ref) -> Expr* {
      return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), copy, false, ref->getLocation(),
                                 type, VK_LValue);
    };
    for (Stmt*& s : body->children()) replace_uses(s, p, use);
    if (!p->getType()->isPointerType()) addressed_.insert(copy);
    copied_params_.push_back({p, copy});
  }
}

// The copies' definitions (`x_1 = x`), first in the body.
void Lowering::define_copies() {
  for (auto [global, copy] : global_copies_) define(copy, rvalue(global), ir_.fn->getBody(), ir_.body);
  for (auto [param, copy] : copied_params_) {
    Var* v = make_var(param->getName().str(), copy->getType(), VarKind::Local, copy, param->getLocation());
    v->block = ir_.body;
    if (is_container(copy->getType())) {
      copy_container(new_ref(copy), new_ref(param), ir_.fn->getBody(), ir_.body);
      continue;
    }
    if (copy->getType()->isRecordType()) {
      check_carried_pointers(copy->getType(), "the local copy of parameter '" + param->getName().str() + "'",
                             param->getLocation());
      lower_struct_assign(ir_.fn->getBody(), new_ref(copy), new_ref(param), ir_.body);
      continue;
    }
    define(copy, rvalue(param), ir_.fn->getBody(), ir_.body);
  }
}

// Non-const globals of numbers the function only reads (`double gain = 3;`, `gain * x`): read once,
// into a local copy at the start, which the reverse sweep reads from the tape rather than from the
// global, which code between the sweeps may change. Not when the function writes one (reported
// in the checks) or calls a function adjc does not differentiate, which could change it between
// two reads of the original.
void Lowering::copy_read_globals(Stmt* body) {
  std::map<const VarDecl*, bool> only_read;
  bool opaque_calls = false;
  // Local references bound to such a global (`double& g = gain;`) count as the global: reading
  // through one is reading it.
  std::map<const VarDecl*, const VarDecl*> references;
  auto global = [&](const Expr* e) -> const VarDecl* {
    auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParens());
    auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (auto it = references.find(vd); it != references.end()) return it->second;
    return vd && vd->hasGlobalStorage() && !vd->isStaticLocal() && is_floating(vd->getType()) &&
                   !vd->getType().isConstQualified()
               ? vd
               : nullptr;
  };
  walk_statements(body, [&](const Stmt* s) {
    if (auto* d = dyn_cast<DeclStmt>(s); d && d->isSingleDecl())
      if (auto* vd = dyn_cast<VarDecl>(d->getSingleDecl()); vd && vd->getType()->isReferenceType() && vd->getInit())
        if (const VarDecl* g = global(vd->getInit())) {
          references[vd] = g;
          only_read.insert({g, true});
          return false;
        }
    if (auto* c = dyn_cast<ImplicitCastExpr>(s); c && c->getCastKind() == CK_LValueToRValue)
      if (const VarDecl* g = global(c->getSubExpr())) {
        only_read.insert({g, true});
        return false;
      }
    if (auto* e = dyn_cast<Expr>(s))
      if (const VarDecl* g = global(e)) only_read[g] = false;
    if (auto* call = dyn_cast<CallExpr>(s)) {
      const FunctionDecl* callee = call->getDirectCallee();
      opaque_calls |= !callee || (!is_library(callee) && callee_kind(callee, ir_.unit) == CalleeKind::Plain);
    }
    return true;
  });
  if (opaque_calls) return;
  for (auto [g, read] : only_read) {
    if (!read) continue;
    QualType type = g->getType().getUnqualifiedType();
    VarDecl* copy = synthesized(g->getName().str(), type, g->getLocation());
    for (Stmt*& s : body->children())
      replace_uses(s, g, [&](const DeclRefExpr* ref) -> Expr* {
        return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), copy, false,
                                   ref->getLocation(), type, VK_LValue);
      });
    make_var(g->getName().str(), type, VarKind::Local, copy, g->getLocation())->block = ir_.body;
    ir_.copied_globals.insert(g);
    global_copies_.push_back({g, copy});
  }
}

}  // namespace adjc

namespace adjc {

namespace {

// A non-const global of integers (bool, char, enums too) that `e` names: a counter candidate.
const VarDecl* integer_global(const Expr* e) {
  auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParens());
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!vd || !vd->hasGlobalStorage() || vd->isStaticLocal() || vd->getType().isConstQualified() || vd->isConstexpr())
    return nullptr;
  return vd->getType()->isIntegralOrEnumerationType() ? vd : nullptr;
}

// Whether evaluating `e` reads a floating-point value.
bool reads_floating(const Expr* e) {
  if (!e || isa<UnaryExprOrTypeTraitExpr>(e)) return false;  // sizeof evaluates nothing
  if (is_floating(e->getType())) return true;
  for (const Stmt* c : e->children())
    if (reads_floating(dyn_cast_or_null<Expr>(c))) return true;
  return false;
}

// The uses in `definition`'s own body (GlobalUses), read once.
const GlobalUses& own_global_uses(const FunctionDecl* definition, const UnitFacts& unit) {
  if (auto it = unit.global_uses.find(definition); it != unit.global_uses.end()) return it->second;
  GlobalUses& uses = unit.global_uses[definition];
  std::set<const FunctionDecl*> callees;
  auto callee = [&](const FunctionDecl* f) {
    const FunctionDecl* body = nullptr;
    if (f && !is_library(f) && !f->isDefaulted() && f->hasBody(body) && callees.insert(body).second)
      uses.callees.push_back(body);
  };
  // `discarded`: the expression is a statement (or the left of a comma, or cast to void) whose value
  // nothing uses.
  std::function<void(const Stmt*, bool)> walk = [&](const Stmt* s, bool discarded) {
    if (!s) return;
    if (auto* e = dyn_cast<Expr>(s)) {
      e = e->IgnoreParens();
      if (auto* full = dyn_cast<FullExpr>(e)) return walk(full->getSubExpr(), discarded);
      if (auto* c = dyn_cast<ExplicitCastExpr>(e); c && c->getType()->isVoidType()) return walk(c->getSubExpr(), true);
      if (auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
        walk(b->getLHS(), true);
        return walk(b->getRHS(), discarded);
      }
      if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp())
        if (const VarDecl* g = integer_global(b->getLHS())) {
          uses.written.emplace(g, b->getExprLoc());
          if (!discarded) uses.read.emplace(g, b->getExprLoc());
          if (reads_floating(b->getRHS())) uses.floating_value.emplace(g, b->getRHS()->getExprLoc());
          return walk(b->getRHS(), false);
        }
      if (auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
        if (const VarDecl* g = integer_global(u->getSubExpr())) {
          uses.written.emplace(g, u->getExprLoc());
          if (!discarded) uses.read.emplace(g, u->getExprLoc());
          return;
        }
      if (auto* ref = dyn_cast<DeclRefExpr>(e))
        if (const VarDecl* g = integer_global(ref)) uses.read.emplace(g, ref->getLocation());
      if (auto* call = dyn_cast<CallExpr>(e)) callee(call->getDirectCallee());
      if (auto* construct = dyn_cast<CXXConstructExpr>(e)) {
        callee(construct->getConstructor());
        if (auto* ctor = construct->getConstructor(); ctor && ctor->hasBody())
          if (auto* def = dyn_cast<CXXConstructorDecl>(ctor->getDefinition()))
            for (const CXXCtorInitializer* ci : def->inits()) walk(ci->getInit(), false);
      }
      // A lambda's body counts as the function's, where it is written.
      if (auto* lambda = dyn_cast<LambdaExpr>(e)) walk(lambda->getBody(), true);
      for (const Stmt* c : e->children()) walk(c, false);
      return;
    }
    if (isa<CompoundStmt>(s)) {
      for (const Stmt* c : s->children()) walk(c, true);
      return;
    }
    if (auto* i = dyn_cast<IfStmt>(s)) {
      walk(i->getInit(), true);
      walk(i->getConditionVariableDeclStmt(), false);
      walk(i->getCond(), false);
      walk(i->getThen(), true);
      return walk(i->getElse(), true);
    }
    if (auto* f = dyn_cast<ForStmt>(s)) {
      walk(f->getInit(), true);
      walk(f->getConditionVariableDeclStmt(), false);
      walk(f->getCond(), false);
      walk(f->getInc(), true);
      return walk(f->getBody(), true);
    }
    if (auto* w = dyn_cast<WhileStmt>(s)) {
      walk(w->getConditionVariableDeclStmt(), false);
      walk(w->getCond(), false);
      return walk(w->getBody(), true);
    }
    if (auto* d = dyn_cast<DoStmt>(s)) {
      walk(d->getBody(), true);
      return walk(d->getCond(), false);
    }
    if (auto* sw = dyn_cast<SwitchStmt>(s)) {
      walk(sw->getInit(), true);
      walk(sw->getConditionVariableDeclStmt(), false);
      walk(sw->getCond(), false);
      return walk(sw->getBody(), true);
    }
    if (auto* r = dyn_cast<CXXForRangeStmt>(s)) {
      walk(r->getInit(), true);
      walk(r->getRangeInit(), false);
      return walk(r->getBody(), true);
    }
    if (auto* c = dyn_cast<SwitchCase>(s)) return walk(c->getSubStmt(), true);
    if (auto* l = dyn_cast<LabelStmt>(s)) return walk(l->getSubStmt(), true);
    if (auto* a = dyn_cast<AttributedStmt>(s)) return walk(a->getSubStmt(), true);
    for (const Stmt* c : s->children()) walk(c, isa<CapturedStmt>(s) || isa<OMPExecutableDirective>(s));
  };
  if (auto* ctor = dyn_cast<CXXConstructorDecl>(definition))
    for (const CXXCtorInitializer* ci : ctor->inits()) walk(ci->getInit(), false);
  walk(definition->getBody(), true);
  return uses;
}

}  // namespace

GlobalUses global_counter_uses(const FunctionDecl* fn, const UnitFacts& unit, bool anywhere) {
  GlobalUses all;
  std::set<const FunctionDecl*> seen;
  // Each function, and whether adjc differentiates it with `fn` (`fn` itself, the functions of the
  // user with derivatives it calls, and constructors, lowered in place), or it only runs as written
  // in the forward sweep (a function without derivative, and what it calls).
  std::vector<std::pair<const FunctionDecl*, bool>> work;
  const FunctionDecl* definition = nullptr;
  if (!is_library(fn) && fn->hasBody(definition)) work.push_back({definition, true});
  while (!work.empty()) {
    auto [f, differentiated] = work.back();
    work.pop_back();
    if (!seen.insert(f).second) continue;
    const GlobalUses& own = own_global_uses(f, unit);
    all.written.insert(own.written.begin(), own.written.end());
    if (differentiated || anywhere) {
      all.read.insert(own.read.begin(), own.read.end());
      all.floating_value.insert(own.floating_value.begin(), own.floating_value.end());
    }
    for (const FunctionDecl* c : own.callees) {
      all.callees.push_back(c);
      work.push_back({c, differentiated && (isa<CXXConstructorDecl>(c) || callee_kind(c, unit) != CalleeKind::Plain)});
    }
  }
  return all;
}

// Non-const globals of integers written as counters (`++calls;`, `calls += k;`): the forward runs
// the statement as the program does, and the reverse has nothing for it (no derivative, and the
// counter is not restored). That is exact only while nothing adjc runs reads the value: no use of
// it but as a counter in the function and the functions it calls (their reverse sweeps, conditions
// evaluated again and recomputed locals would read a value the counter no longer holds), and no
// value read from floating-point numbers (which may carry derivatives).
void Lowering::check_global_counters() {
  const GlobalUses& uses = global_uses_ = global_counter_uses(ir_.fn, ir_.unit);
  auto line = [&](SourceLocation at) {
    return std::to_string(context_.getSourceManager().getPresumedLineNumber(at));
  };
  for (auto [g, written] : uses.written) {
    const std::string name = g->getName().str();
    const std::string rule = "; adjc supports non-const globals written only as counters (++" + name + ", " + name +
                             " += k) whose value the differentiated code never reads";
    if (auto read = uses.read.find(g); read != uses.read.end())
      fail(read->second, Diag::global_read_after_write, {name, line(written), rule});
    if (auto value = uses.floating_value.find(g); value != uses.floating_value.end())
      fail(value->second, Diag::global_set_from_floating, {name, rule});
  }
}

// `target` (of an assignment or `++`/`--`) is a non-const global: a counter of integers, checked
// by check_global_counters, or a global of another type, reported here.
bool Lowering::counter_global(const Expr* target) {
  auto* ref = dyn_cast<DeclRefExpr>(target->IgnoreParens());
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!vd || !vd->hasGlobalStorage() || vd->isStaticLocal() || ir_.var_of.count(vd)) return false;
  const std::string name = vd->getName().str();
  if (!integer_global(target))
    fail(target->getExprLoc(), Diag::global_written_not_counter, {name, vd->getType().getAsString(), name});
  // Written through a local reference (`int& r = calls; ++r;`, rewritten into `++calls`): the
  // checks saw a reference bound to it, not a counter.
  else if (!global_uses_.written.count(vd))
    fail(target->getExprLoc(), Diag::global_written_through_reference_pointer, {name, name, name});
  return true;
}

}  // namespace adjc
