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

bool is_request(const CallExpr* call) {
  const FunctionDecl* f = call->getDirectCallee();
  return f && f->getQualifiedNameAsString() == "adjoint::gradient";
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
  const std::string name = "'" + vd->getNameAsString() + "'";
  const Expr* init = vd->getInit() ? vd->getInit()->IgnoreParenImpCasts() : nullptr;
  auto* address = dyn_cast_or_null<UnaryOperator>(init);
  auto* ref = address && address->getOpcode() == UO_AddrOf ? dyn_cast<DeclRefExpr>(address->getSubExpr()) : nullptr;
  auto* method = ref ? dyn_cast<CXXMethodDecl>(ref->getDecl()) : nullptr;
  if (!method) {
    *why = name + " is not initialised with '&S::f'";
    return nullptr;
  }
  if (!vd->hasLocalStorage()) {
    if (vd->getType().isConstQualified()) return method;
    *why = name + " is a global (or static) variable that is not const, which any function may assign";
    return nullptr;
  }
  auto* owner = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
  if (!owner || !owner->getBody() || changed_function_pointers(owner->getBody()).count(vd)) {
    *why = name + " is assigned after its initialisation (or a reference to it or its address is passed on)";
    return nullptr;
  }
  return method;
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

// A copy of a function's body for a BoundFunction: every statement and expression a new node
// (lowering edits a body in place, and each copy is lowered on its own), locals new declarations
// of the copy, parameters the copy's, and each use of a bound parameter the function bound to it.
// Nodes lowering never edits (literals, default arguments, lambdas without captures, which are
// lowered as functions of their own) are shared. Constructs it does not copy leave `unsupported` set.
class BodyCopy {
 public:
  BodyCopy(ASTContext& context, FunctionDecl* copy, std::map<const Decl*, Decl*> decls,
           std::map<const ParmVarDecl*, FunctionDecl*> bound)
      : context_(context), copy_(copy), decls_(std::move(decls)), bound_(std::move(bound)) {}

  const Stmt* unsupported = nullptr;

  Stmt* stmt(const Stmt* s) {
    if (!s || unsupported) return nullptr;
    Stmt* out = copy(s);
    if (!out && !unsupported) unsupported = s;
    return out;
  }

 private:
  ASTContext& context_;
  FunctionDecl* copy_;
  std::map<const Decl*, Decl*> decls_;
  std::map<const ParmVarDecl*, FunctionDecl*> bound_;
  std::map<const SwitchCase*, SwitchCase*> cases_;

  Expr* expr(const Expr* e) { return cast_or_null<Expr>(stmt(e)); }
  std::vector<Expr*> exprs(llvm::ArrayRef<const Expr*> es) {
    std::vector<Expr*> out;
    for (const Expr* e : es) out.push_back(expr(e));
    return out;
  }
  template <class D>
  D* decl(D* d) {
    auto it = decls_.find(d);
    return it == decls_.end() ? d : cast<D>(it->second);
  }

  // A local variable of the copy, mapped before its initialiser is copied (which may name it);
  // nullptr for structured bindings, which it does not copy.
  VarDecl* var(const VarDecl* v) {
    if (!v || v->getKind() != Decl::Var) return nullptr;
    auto* out = VarDecl::Create(context_, copy_, v->getInnerLocStart(), v->getLocation(), v->getIdentifier(),
                                v->getType(), v->getTypeSourceInfo(), v->getStorageClass());
    decls_[v] = out;
    out->setTSCSpec(v->getTSCSpec());
    out->setInitStyle(v->getInitStyle());
    out->setConstexpr(v->isConstexpr());
    out->setCXXForRangeDecl(v->isCXXForRangeDecl());
    out->setNRVOVariable(v->isNRVOVariable());
    out->setImplicit(v->isImplicit());
    if (v->hasAttrs()) out->setAttrs(v->getAttrs());
    if (v->getInit()) {
      Expr* init = expr(v->getInit());
      if (!init) return nullptr;
      out->setInit(init);
    }
    return out;
  }

  static CXXCastPath path(const CastExpr* c) {
    auto* cast = const_cast<CastExpr*>(c);
    return CXXCastPath(cast->path_begin(), cast->path_end());
  }

  Stmt* copy(const Stmt* s);
  Stmt* copy_call(const CallExpr* call);
  Stmt* copy_cast(const CastExpr* c);
};

Stmt* BodyCopy::copy(const Stmt* s) {
  switch (s->getStmtClass()) {
    case Stmt::IntegerLiteralClass:
    case Stmt::FloatingLiteralClass:
    case Stmt::CXXBoolLiteralExprClass:
    case Stmt::CharacterLiteralClass:
    case Stmt::StringLiteralClass:
    case Stmt::CXXNullPtrLiteralExprClass:
    case Stmt::GNUNullExprClass:
    case Stmt::PredefinedExprClass:
    case Stmt::ImplicitValueInitExprClass:
    case Stmt::CXXScalarValueInitExprClass:
    case Stmt::CXXDefaultArgExprClass:
    case Stmt::CXXDefaultInitExprClass:
    case Stmt::TypeTraitExprClass: return const_cast<Stmt*>(s);
    case Stmt::LambdaExprClass: return cast<LambdaExpr>(s)->capture_size() == 0 ? const_cast<Stmt*>(s) : nullptr;
    case Stmt::UnaryExprOrTypeTraitExprClass: {
      auto* u = cast<UnaryExprOrTypeTraitExpr>(s);
      if (u->isArgumentType()) return const_cast<Stmt*>(s);
      Expr* arg = expr(u->getArgumentExpr());
      return arg ? new (context_)
                       UnaryExprOrTypeTraitExpr(u->getKind(), arg, u->getType(), u->getOperatorLoc(), u->getRParenLoc())
                 : nullptr;
    }
    case Stmt::DeclRefExprClass: {
      auto* ref = cast<DeclRefExpr>(s);
      auto* d = const_cast<ValueDecl*>(ref->getDecl());
      if (auto* p = dyn_cast<ParmVarDecl>(d); p && bound_.count(p))
        return function_use(context_, bound_.at(p), p->getType(), ref->getLocation());
      ValueDecl* to = decl(d);
      TemplateArgumentListInfo args;
      if (ref->hasExplicitTemplateArgs()) ref->copyTemplateArgumentsInto(args);
      NamedDecl* found = ref->getFoundDecl() == d ? to : const_cast<NamedDecl*>(ref->getFoundDecl());
      auto* out = DeclRefExpr::Create(context_, ref->getQualifierLoc(), ref->getTemplateKeywordLoc(), to,
                                      ref->refersToEnclosingVariableOrCapture(), ref->getNameInfo(), ref->getType(),
                                      ref->getValueKind(), found, ref->hasExplicitTemplateArgs() ? &args : nullptr,
                                      ref->isNonOdrUse());
      out->setHadMultipleCandidates(ref->hadMultipleCandidates());
      return out;
    }
    case Stmt::CXXThisExprClass: {
      auto* t = cast<CXXThisExpr>(s);
      return CXXThisExpr::Create(context_, t->getLocation(), t->getType(), t->isImplicit());
    }
    case Stmt::ParenExprClass: {
      auto* p = cast<ParenExpr>(s);
      Expr* sub = expr(p->getSubExpr());
      return sub ? new (context_) ParenExpr(p->getLParen(), p->getRParen(), sub) : nullptr;
    }
    case Stmt::UnaryOperatorClass: {
      auto* u = cast<UnaryOperator>(s);
      Expr* sub = expr(u->getSubExpr());
      return sub ? UnaryOperator::Create(context_, sub, u->getOpcode(), u->getType(), u->getValueKind(),
                                         u->getObjectKind(), u->getOperatorLoc(), u->canOverflow(),
                                         u->getFPOptionsOverride())
                 : nullptr;
    }
    case Stmt::BinaryOperatorClass:
    case Stmt::CompoundAssignOperatorClass: {
      auto* b = cast<BinaryOperator>(s);
      Expr* l = expr(b->getLHS());
      Expr* r = expr(b->getRHS());
      if (!l || !r) return nullptr;
      if (auto* c = dyn_cast<CompoundAssignOperator>(b))
        return CompoundAssignOperator::Create(context_, l, r, b->getOpcode(), b->getType(), b->getValueKind(),
                                              b->getObjectKind(), b->getOperatorLoc(), b->getFPFeatures(),
                                              c->getComputationLHSType(), c->getComputationResultType());
      return BinaryOperator::Create(context_, l, r, b->getOpcode(), b->getType(), b->getValueKind(), b->getObjectKind(),
                                    b->getOperatorLoc(), b->getFPFeatures());
    }
    case Stmt::CXXRewrittenBinaryOperatorClass: {  // `a != b` as `!(a == b)`: a range-for's iterators
      auto* r = cast<CXXRewrittenBinaryOperator>(s);
      Expr* semantic = expr(r->getSemanticForm());
      return semantic ? new (context_) CXXRewrittenBinaryOperator(semantic, r->isReversed()) : nullptr;
    }
    case Stmt::ConditionalOperatorClass: {
      auto* c = cast<ConditionalOperator>(s);
      Expr* cond = expr(c->getCond());
      Expr* t = expr(c->getTrueExpr());
      Expr* f = expr(c->getFalseExpr());
      return cond && t && f ? new (context_) ConditionalOperator(cond, c->getQuestionLoc(), t, c->getColonLoc(), f,
                                                                 c->getType(), c->getValueKind(), c->getObjectKind())
                            : nullptr;
    }
    case Stmt::ArraySubscriptExprClass: {
      auto* a = cast<ArraySubscriptExpr>(s);
      Expr* l = expr(a->getLHS());
      Expr* r = expr(a->getRHS());
      return l && r ? new (context_) ArraySubscriptExpr(l, r, a->getType(), a->getValueKind(), a->getObjectKind(),
                                                        a->getRBracketLoc())
                    : nullptr;
    }
    case Stmt::MemberExprClass: {
      auto* m = cast<MemberExpr>(s);
      Expr* base = expr(m->getBase());
      if (!base) return nullptr;
      TemplateArgumentListInfo args;
      if (m->hasExplicitTemplateArgs()) m->copyTemplateArgumentsInto(args);
      auto* out = MemberExpr::Create(context_, base, m->isArrow(), m->getOperatorLoc(), m->getQualifierLoc(),
                                     m->getTemplateKeywordLoc(), m->getMemberDecl(), m->getFoundDecl(),
                                     m->getMemberNameInfo(), m->hasExplicitTemplateArgs() ? &args : nullptr,
                                     m->getType(), m->getValueKind(), m->getObjectKind(), m->isNonOdrUse());
      out->setHadMultipleCandidates(m->hadMultipleCandidates());
      return out;
    }
    case Stmt::CallExprClass:
    case Stmt::CXXMemberCallExprClass:
    case Stmt::CXXOperatorCallExprClass: return copy_call(cast<CallExpr>(s));
    case Stmt::ImplicitCastExprClass:
    case Stmt::CStyleCastExprClass:
    case Stmt::CXXStaticCastExprClass:
    case Stmt::CXXFunctionalCastExprClass:
    case Stmt::CXXReinterpretCastExprClass:
    case Stmt::CXXConstCastExprClass: return copy_cast(cast<CastExpr>(s));
    case Stmt::CXXConstructExprClass:
    case Stmt::CXXTemporaryObjectExprClass: {
      auto* c = cast<CXXConstructExpr>(s);
      std::vector<Expr*> args = exprs({c->getArgs(), c->getNumArgs()});
      if (unsupported) return nullptr;
      if (auto* t = dyn_cast<CXXTemporaryObjectExpr>(c))
        return CXXTemporaryObjectExpr::Create(context_, c->getConstructor(), c->getType(), t->getTypeSourceInfo(), args,
                                              c->getParenOrBraceRange(), c->hadMultipleCandidates(),
                                              c->isListInitialization(), c->isStdInitListInitialization(),
                                              c->requiresZeroInitialization());
      return CXXConstructExpr::Create(context_, c->getType(), c->getLocation(), c->getConstructor(), c->isElidable(),
                                      args, c->hadMultipleCandidates(), c->isListInitialization(),
                                      c->isStdInitListInitialization(), c->requiresZeroInitialization(),
                                      c->getConstructionKind(), c->getParenOrBraceRange());
    }
    case Stmt::InitListExprClass: {
      auto* l = cast<InitListExpr>(s);
      std::vector<Expr*> inits;
      for (const Expr* e : l->inits()) {
        if (!e) return nullptr;
        inits.push_back(expr(e));
      }
      if (unsupported) return nullptr;
      auto* out = new (context_) InitListExpr(context_, l->getLBraceLoc(), inits, l->getRBraceLoc());
      out->setType(l->getType());
      if (l->hasArrayFiller()) out->setArrayFiller(expr(l->getArrayFiller()));
      if (const FieldDecl* f = l->getInitializedFieldInUnion())
        out->setInitializedFieldInUnion(const_cast<FieldDecl*>(f));
      return unsupported ? nullptr : out;
    }
    case Stmt::CXXParenListInitExprClass: {
      auto* l = cast<CXXParenListInitExpr>(s);
      llvm::ArrayRef<Expr*> given = const_cast<CXXParenListInitExpr*>(l)->getInitExprs();
      std::vector<Expr*> inits = exprs({given.data(), given.size()});
      if (unsupported) return nullptr;
      auto* out = CXXParenListInitExpr::Create(context_, inits, l->getType(),
                                               const_cast<CXXParenListInitExpr*>(l)->getUserSpecifiedInitExprs().size(),
                                               l->getInitLoc(), l->getBeginLoc(), l->getEndLoc());
      if (const Expr* filler = l->getArrayFiller()) out->setArrayFiller(expr(filler));
      if (const FieldDecl* f = l->getInitializedFieldInUnion())
        out->setInitializedFieldInUnion(const_cast<FieldDecl*>(f));
      return unsupported ? nullptr : out;
    }
    case Stmt::MaterializeTemporaryExprClass: {
      auto* m = cast<MaterializeTemporaryExpr>(s);
      Expr* sub = expr(m->getSubExpr());
      if (!sub) return nullptr;
      auto* out = new (context_) MaterializeTemporaryExpr(m->getType(), sub, m->isBoundToLvalueReference());
      if (const ValueDecl* by = m->getExtendingDecl())
        out->setExtendingDecl(decl(const_cast<ValueDecl*>(by)), m->getManglingNumber());
      return out;
    }
    case Stmt::CXXBindTemporaryExprClass: {
      auto* b = cast<CXXBindTemporaryExpr>(s);
      Expr* sub = expr(b->getSubExpr());
      return sub ? CXXBindTemporaryExpr::Create(context_, const_cast<CXXTemporary*>(b->getTemporary()), sub) : nullptr;
    }
    case Stmt::ExprWithCleanupsClass: {
      auto* w = cast<ExprWithCleanups>(s);
      Expr* sub = expr(w->getSubExpr());
      return sub ? ExprWithCleanups::Create(context_, sub, w->cleanupsHaveSideEffects(), w->getObjects()) : nullptr;
    }
    case Stmt::CXXStdInitializerListExprClass: {
      auto* l = cast<CXXStdInitializerListExpr>(s);
      Expr* sub = expr(l->getSubExpr());
      return sub ? new (context_) CXXStdInitializerListExpr(l->getType(), sub) : nullptr;
    }
    case Stmt::ConstantExprClass: {
      auto* c = cast<ConstantExpr>(s);
      Expr* sub = expr(c->getSubExpr());
      if (!sub) return nullptr;
      if (c->getResultStorageKind() == ConstantResultStorageKind::None)
        return ConstantExpr::Create(context_, sub, ConstantResultStorageKind::None, c->isImmediateInvocation());
      return ConstantExpr::Create(context_, sub, c->getAPValueResult());
    }
    case Stmt::SubstNonTypeTemplateParmExprClass: {
      auto* p = cast<SubstNonTypeTemplateParmExpr>(s);
      Expr* with = expr(p->getReplacement());
      return with ? new (context_) SubstNonTypeTemplateParmExpr(p->getType(), p->getValueKind(), p->getNameLoc(), with,
                                                                p->getAssociatedDecl(), p->getIndex(),
                                                                p->getPackIndex(), p->isReferenceParameter())
                  : nullptr;
    }
    case Stmt::CXXNewExprClass: {
      auto* n = cast<CXXNewExpr>(s);
      std::vector<Expr*> placement = exprs({const_cast<CXXNewExpr*>(n)->getPlacementArgs(), n->getNumPlacementArgs()});
      std::optional<Expr*> size;
      if (n->isArray()) size = *n->getArraySize() ? expr(*n->getArraySize()) : nullptr;
      Expr* init = expr(n->getInitializer());
      if (unsupported) return nullptr;
      return CXXNewExpr::Create(context_, n->isGlobalNew(), n->getOperatorNew(), n->getOperatorDelete(),
                                n->passAlignment(), n->doesUsualArrayDeleteWantSize(), placement, n->getTypeIdParens(),
                                size, n->getInitializationStyle(), init, n->getType(), n->getAllocatedTypeSourceInfo(),
                                n->getSourceRange(), n->getDirectInitRange());
    }
    case Stmt::CXXDeleteExprClass: {
      auto* d = cast<CXXDeleteExpr>(s);
      Expr* arg = expr(d->getArgument());
      return arg ? new (context_)
                       CXXDeleteExpr(d->getType(), d->isGlobalDelete(), d->isArrayForm(), d->isArrayFormAsWritten(),
                                     d->doesUsualArrayDeleteWantSize(), d->getOperatorDelete(), arg, d->getBeginLoc())
                 : nullptr;
    }
    // Statements, each part copied in source order: a declaration before the uses that follow it.
    case Stmt::CompoundStmtClass: {
      auto* cs = cast<CompoundStmt>(s);
      std::vector<Stmt*> body;
      for (const Stmt* c : cs->body()) body.push_back(stmt(c));
      if (unsupported) return nullptr;
      return CompoundStmt::Create(context_, body,
                                  cs->hasStoredFPFeatures() ? cs->getStoredFPFeatures() : FPOptionsOverride(),
                                  cs->getLBracLoc(), cs->getRBracLoc());
    }
    case Stmt::DeclStmtClass: {
      auto* ds = cast<DeclStmt>(s);
      std::vector<Decl*> decls;
      for (const Decl* d : ds->decls()) {
        // Declarations of types, aliases and assertions are shared.
        if (!isa<VarDecl>(d)) {
          decls.push_back(const_cast<Decl*>(d));
          continue;
        }
        VarDecl* v = var(cast<VarDecl>(d));
        if (!v) return nullptr;
        decls.push_back(v);
      }
      return new (context_)
          DeclStmt(DeclGroupRef::Create(context_, decls.data(), decls.size()), ds->getBeginLoc(), ds->getEndLoc());
    }
    case Stmt::NullStmtClass: {
      auto* n = cast<NullStmt>(s);
      return new (context_) NullStmt(n->getSemiLoc(), n->hasLeadingEmptyMacro());
    }
    case Stmt::ReturnStmtClass: {
      auto* r = cast<ReturnStmt>(s);
      Expr* value = expr(r->getRetValue());
      if (unsupported) return nullptr;
      const VarDecl* nrvo = r->getNRVOCandidate();
      return ReturnStmt::Create(context_, r->getReturnLoc(), value, nrvo ? decl(const_cast<VarDecl*>(nrvo)) : nullptr);
    }
    case Stmt::IfStmtClass: {
      auto* is = cast<IfStmt>(s);
      Stmt* init = stmt(is->getInit());
      VarDecl* cv = var(is->getConditionVariable());
      Expr* cond = expr(is->getCond());
      Stmt* then = stmt(is->getThen());
      Stmt* otherwise = stmt(is->getElse());
      if (unsupported || (is->getConditionVariable() && !cv)) return nullptr;
      return IfStmt::Create(context_, is->getIfLoc(), is->getStatementKind(), init, cv, cond, is->getLParenLoc(),
                            is->getRParenLoc(), then, is->getElseLoc(), otherwise);
    }
    case Stmt::ForStmtClass: {
      auto* fs = cast<ForStmt>(s);
      Stmt* init = stmt(fs->getInit());
      VarDecl* cv = var(fs->getConditionVariable());
      Expr* cond = expr(fs->getCond());
      Expr* inc = expr(fs->getInc());
      Stmt* body = stmt(fs->getBody());
      if (unsupported || (fs->getConditionVariable() && !cv)) return nullptr;
      return new (context_)
          ForStmt(context_, init, cond, cv, inc, body, fs->getForLoc(), fs->getLParenLoc(), fs->getRParenLoc());
    }
    case Stmt::WhileStmtClass: {
      auto* ws = cast<WhileStmt>(s);
      VarDecl* cv = var(ws->getConditionVariable());
      Expr* cond = expr(ws->getCond());
      Stmt* body = stmt(ws->getBody());
      if (unsupported || (ws->getConditionVariable() && !cv)) return nullptr;
      return WhileStmt::Create(context_, cv, cond, body, ws->getWhileLoc(), ws->getLParenLoc(), ws->getRParenLoc());
    }
    case Stmt::DoStmtClass: {
      auto* d = cast<DoStmt>(s);
      Stmt* body = stmt(d->getBody());
      Expr* cond = expr(d->getCond());
      if (unsupported) return nullptr;
      return new (context_) DoStmt(body, cond, d->getDoLoc(), d->getWhileLoc(), d->getRParenLoc());
    }
    case Stmt::CXXForRangeStmtClass: {
      auto* r = cast<CXXForRangeStmt>(s);
      Stmt* init = stmt(r->getInit());
      auto* range = cast_or_null<DeclStmt>(stmt(r->getRangeStmt()));
      auto* begin = cast_or_null<DeclStmt>(stmt(r->getBeginStmt()));
      auto* end = cast_or_null<DeclStmt>(stmt(r->getEndStmt()));
      Expr* cond = expr(r->getCond());
      Expr* inc = expr(r->getInc());
      auto* loop_var = cast_or_null<DeclStmt>(stmt(r->getLoopVarStmt()));
      Stmt* body = stmt(r->getBody());
      if (unsupported) return nullptr;
      return new (context_) CXXForRangeStmt(init, range, begin, end, cond, inc, loop_var, body, r->getForLoc(),
                                            r->getCoawaitLoc(), r->getColonLoc(), r->getRParenLoc());
    }
    case Stmt::SwitchStmtClass: {
      auto* sw = cast<SwitchStmt>(s);
      Stmt* init = stmt(sw->getInit());
      VarDecl* cv = var(sw->getConditionVariable());
      Expr* cond = expr(sw->getCond());
      Stmt* body = stmt(sw->getBody());
      if (unsupported || (sw->getConditionVariable() && !cv)) return nullptr;
      SwitchStmt* out = SwitchStmt::Create(context_, init, cv, cond, sw->getLParenLoc(), sw->getRParenLoc());
      out->setBody(body, sw->getSwitchLoc());
      if (sw->isAllEnumCasesCovered()) out->setAllEnumCasesCovered();
      // Its list of cases, in the original's order (each added case goes first).
      std::vector<const SwitchCase*> cases;
      for (const SwitchCase* c = sw->getSwitchCaseList(); c; c = c->getNextSwitchCase()) cases.push_back(c);
      for (auto it = cases.rbegin(); it != cases.rend(); ++it) out->addSwitchCase(cases_.at(*it));
      return out;
    }
    case Stmt::CaseStmtClass: {
      auto* c = cast<CaseStmt>(s);
      Expr* lhs = expr(c->getLHS());
      Expr* rhs = expr(c->getRHS());
      Stmt* sub = stmt(c->getSubStmt());
      if (unsupported) return nullptr;
      CaseStmt* out = CaseStmt::Create(context_, lhs, rhs, c->getCaseLoc(), c->getEllipsisLoc(), c->getColonLoc());
      out->setSubStmt(sub);
      return cases_[c] = out;
    }
    case Stmt::DefaultStmtClass: {
      auto* d = cast<DefaultStmt>(s);
      Stmt* sub = stmt(d->getSubStmt());
      return sub ? cases_[d] = new (context_) DefaultStmt(d->getDefaultLoc(), d->getColonLoc(), sub) : nullptr;
    }
    case Stmt::BreakStmtClass: return new (context_) BreakStmt(cast<BreakStmt>(s)->getBreakLoc());
    case Stmt::ContinueStmtClass: return new (context_) ContinueStmt(cast<ContinueStmt>(s)->getContinueLoc());
    case Stmt::AttributedStmtClass: {
      auto* a = cast<AttributedStmt>(s);
      Stmt* sub = stmt(a->getSubStmt());
      return sub ? AttributedStmt::Create(context_, a->getAttrLoc(), a->getAttrs(), sub) : nullptr;
    }
    default: return nullptr;
  }
}

Stmt* BodyCopy::copy_call(const CallExpr* call) {
  Expr* callee = expr(call->getCallee());
  std::vector<Expr*> args = exprs({call->getArgs(), call->getNumArgs()});
  if (unsupported) return nullptr;
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(call))
    return CXXOperatorCallExpr::Create(context_, op->getOperator(), callee, args, op->getType(), op->getValueKind(),
                                       op->getOperatorLoc(), op->getFPFeatures(), op->getADLCallKind());
  if (isa<CXXMemberCallExpr>(call))
    return CXXMemberCallExpr::Create(context_, callee, args, call->getType(), call->getValueKind(),
                                     call->getRParenLoc(), call->getFPFeatures());
  return CallExpr::Create(context_, callee, args, call->getType(), call->getValueKind(), call->getRParenLoc(),
                          call->getFPFeatures(), 0, call->getADLCallKind());
}

Stmt* BodyCopy::copy_cast(const CastExpr* c) {
  Expr* sub = expr(c->getSubExpr());
  if (!sub) return nullptr;
  CXXCastPath base = path(c);
  QualType t = c->getType();
  ExprValueKind vk = c->getValueKind();
  FPOptionsOverride fp = c->getFPFeatures();
  switch (c->getStmtClass()) {
    case Stmt::ImplicitCastExprClass: {
      auto* out = ImplicitCastExpr::Create(context_, t, c->getCastKind(), sub, &base, vk, fp);
      out->setIsPartOfExplicitCast(cast<ImplicitCastExpr>(c)->isPartOfExplicitCast());
      return out;
    }
    case Stmt::CStyleCastExprClass: {
      auto* e = cast<CStyleCastExpr>(c);
      return CStyleCastExpr::Create(context_, t, vk, c->getCastKind(), sub, &base, fp, e->getTypeInfoAsWritten(),
                                    e->getLParenLoc(), e->getRParenLoc());
    }
    case Stmt::CXXStaticCastExprClass: {
      auto* e = cast<CXXStaticCastExpr>(c);
      return CXXStaticCastExpr::Create(context_, t, vk, c->getCastKind(), sub, &base, e->getTypeInfoAsWritten(), fp,
                                       e->getOperatorLoc(), e->getRParenLoc(), e->getAngleBrackets());
    }
    case Stmt::CXXFunctionalCastExprClass: {
      auto* e = cast<CXXFunctionalCastExpr>(c);
      return CXXFunctionalCastExpr::Create(context_, t, vk, e->getTypeInfoAsWritten(), c->getCastKind(), sub, &base, fp,
                                           e->getLParenLoc(), e->getRParenLoc());
    }
    case Stmt::CXXReinterpretCastExprClass: {
      auto* e = cast<CXXReinterpretCastExpr>(c);
      return CXXReinterpretCastExpr::Create(context_, t, vk, c->getCastKind(), sub, &base, e->getTypeInfoAsWritten(),
                                            e->getOperatorLoc(), e->getRParenLoc(), e->getAngleBrackets());
    }
    default: {
      auto* e = cast<CXXConstCastExpr>(c);
      return CXXConstCastExpr::Create(context_, t, vk, sub, e->getTypeInfoAsWritten(), e->getOperatorLoc(),
                                      e->getRParenLoc(), e->getAngleBrackets());
    }
  }
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
  BodyCopy body(context, copy, std::move(decls), std::move(bound));
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
  std::function<void(Stmt*&)> follow = [&](Stmt*& s) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (auto* e = dyn_cast<Expr>(s)) {
      QualType t = e->getType();
      auto* named = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      if ((t->isFunctionType() || (e->isPRValue() && t->isFunctionPointerType())) &&
          !(named && isa<FunctionDecl>(named->getDecl())))
        if (const FunctionDecl* f = resolved_function(e)) {
          s = function_use(context, const_cast<FunctionDecl*>(f), t, e->getExprLoc());
          return;
        }
    }
    for (Stmt*& c : s->children()) follow(c);
  };
  for (Stmt*& s : body->children()) follow(s);
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
    if (auto* omp = dyn_cast<OMPExecutableDirective>(s)) {
      if (omp->hasAssociatedStmt())
        for (Stmt*& c : omp->getInnermostCapturedStmt()->getCapturedStmt()->children()) walk(c);
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
