// The statement cloner (statement_cloner.hpp): one function per family of clang nodes.
#include "statement_cloner.hpp"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include <optional>

namespace adjc {

using namespace clang;

VarDecl* StatementCloner::var(const VarDecl* v) {
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

CXXCastPath StatementCloner::path(const CastExpr* c) {
  auto* cast = const_cast<CastExpr*>(c);
  return CXXCastPath(cast->path_begin(), cast->path_end());
}

Stmt* StatementCloner::copy(const Stmt* s) {
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
    case Stmt::DeclRefExprClass:
    case Stmt::CXXThisExprClass:
    case Stmt::MemberExprClass: return copy_reference(s);
    case Stmt::UnaryExprOrTypeTraitExprClass:
    case Stmt::ParenExprClass:
    case Stmt::UnaryOperatorClass:
    case Stmt::BinaryOperatorClass:
    case Stmt::CompoundAssignOperatorClass:
    case Stmt::CXXRewrittenBinaryOperatorClass:
    case Stmt::ConditionalOperatorClass:
    case Stmt::ArraySubscriptExprClass: return copy_operator(s);
    case Stmt::CXXConstructExprClass:
    case Stmt::CXXTemporaryObjectExprClass:
    case Stmt::InitListExprClass:
    case Stmt::CXXParenListInitExprClass: return copy_construction(s);
    case Stmt::MaterializeTemporaryExprClass:
    case Stmt::CXXBindTemporaryExprClass:
    case Stmt::ExprWithCleanupsClass:
    case Stmt::CXXStdInitializerListExprClass:
    case Stmt::ConstantExprClass:
    case Stmt::SubstNonTypeTemplateParmExprClass: return copy_wrapper(s);
    case Stmt::CXXNewExprClass:
    case Stmt::CXXDeleteExprClass: return copy_allocation(s);
    case Stmt::CompoundStmtClass:
    case Stmt::DeclStmtClass:
    case Stmt::NullStmtClass:
    case Stmt::ReturnStmtClass:
    case Stmt::BreakStmtClass:
    case Stmt::ContinueStmtClass:
    case Stmt::AttributedStmtClass: return copy_block(s);
    case Stmt::IfStmtClass:
    case Stmt::SwitchStmtClass:
    case Stmt::CaseStmtClass:
    case Stmt::DefaultStmtClass: return copy_branch(s);
    case Stmt::ForStmtClass:
    case Stmt::WhileStmtClass:
    case Stmt::DoStmtClass:
    case Stmt::CXXForRangeStmtClass: return copy_loop(s);
    case Stmt::CallExprClass:
    case Stmt::CXXMemberCallExprClass:
    case Stmt::CXXOperatorCallExprClass: return copy_call(cast<CallExpr>(s));
    case Stmt::ImplicitCastExprClass:
    case Stmt::CStyleCastExprClass:
    case Stmt::CXXStaticCastExprClass:
    case Stmt::CXXFunctionalCastExprClass:
    case Stmt::CXXReinterpretCastExprClass:
    case Stmt::CXXConstCastExprClass: return copy_cast(cast<CastExpr>(s));
    default: return nullptr;
  }
}

// Names: a declaration (the copy's own where it has one), `this`, a member.
Stmt* StatementCloner::copy_reference(const Stmt* s) {
  switch (s->getStmtClass()) {
    case Stmt::DeclRefExprClass: {
      auto* ref = cast<DeclRefExpr>(s);
      auto* d = const_cast<ValueDecl*>(ref->getDecl());
      if (replace_)
        if (Expr* with = replace_(ref)) return with;
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
    default: return nullptr;
  }
}

// Operators, each operand copied in order.
Stmt* StatementCloner::copy_operator(const Stmt* s) {
  switch (s->getStmtClass()) {
    case Stmt::UnaryExprOrTypeTraitExprClass: {
      auto* u = cast<UnaryExprOrTypeTraitExpr>(s);
      if (u->isArgumentType()) return const_cast<Stmt*>(s);
      Expr* arg = expr(u->getArgumentExpr());
      return arg ? new (context_)
                       UnaryExprOrTypeTraitExpr(u->getKind(), arg, u->getType(), u->getOperatorLoc(), u->getRParenLoc())
                 : nullptr;
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
    default: return nullptr;
  }
}

// Constructions and initialiser lists.
Stmt* StatementCloner::copy_construction(const Stmt* s) {
  switch (s->getStmtClass()) {
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
    default: return nullptr;
  }
}

// The nodes clang wraps around one expression: temporaries, cleanups, constants, substituted template arguments.
Stmt* StatementCloner::copy_wrapper(const Stmt* s) {
  switch (s->getStmtClass()) {
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
    default: return nullptr;
  }
}

// `new` and `delete`.
Stmt* StatementCloner::copy_allocation(const Stmt* s) {
  switch (s->getStmtClass()) {
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
    default: return nullptr;
  }
}

// Blocks, declarations and the statements without branches, each part copied in source order: a
// declaration before the uses that follow it.
Stmt* StatementCloner::copy_block(const Stmt* s) {
  switch (s->getStmtClass()) {
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

// `if` and `switch` with its cases (a copied switch lists the copies of its cases).
Stmt* StatementCloner::copy_branch(const Stmt* s) {
  switch (s->getStmtClass()) {
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
    default: return nullptr;
  }
}

// Loops.
Stmt* StatementCloner::copy_loop(const Stmt* s) {
  switch (s->getStmtClass()) {
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
    default: return nullptr;
  }
}

Stmt* StatementCloner::copy_call(const CallExpr* call) {
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

Stmt* StatementCloner::copy_cast(const CastExpr* c) {
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

}  // namespace adjc
