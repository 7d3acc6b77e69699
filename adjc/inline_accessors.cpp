// The inline-accessors rewrite: calls of accessors (functions of the user's returning a reference
// to an element or member) replaced in the body by the places they name, before lowering
// (lowering.hpp).
#include <clang/AST/ExprCXX.h>

#include <functional>
#include <map>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

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
      if (auto* ref = dyn_cast<DeclRefExpr>(c->getSubExpr()->IgnoreParens());
          ref && c->getCastKind() == CK_LValueToRValue)
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
                                         op->getType(), op->getValueKind(), op->getRParenLoc(), op->getFPFeatures());
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
    if (auto* vd = dyn_cast<VarDecl>(ds->getSingleDecl());
        vd && vd->getType()->isLValueReferenceType() && vd->getInit())
      return reinterpret_cast<Stmt**>(vd->getInitAddress());
  auto constant = [](const Expr* e) {
    e = e->IgnoreParenImpCasts();
    return isa<FloatingLiteral>(e) || isa<IntegerLiteral>(e);
  };
  if (auto* b = dyn_cast<BinaryOperator>(statement); b && b->isAssignmentOp() && constant(b->getRHS()))
    return &*b->child_begin();
  if (auto* u = dyn_cast<UnaryOperator>(statement); u && u->isIncrementDecrementOp()) return &*u->child_begin();
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
        s = CompoundStmt::Create(context, body,
                                 cs->hasStoredFPFeatures() ? cs->getStoredFPFeatures() : FPOptionsOverride(),
                                 cs->getLBracLoc(), cs->getRBracLoc());
    }
  };
  Stmt* body = fn->getBody();
  walk(body);
  if (body != fn->getBody()) const_cast<FunctionDecl*>(fn)->setBody(body);
}

}  // namespace adjc
