// std::complex<float> and std::complex<double> in differentiated code (docs/adjc.md,
// "std::complex"). adjoint/complex.hpp makes std::complex a value class (its accumulate_adjoint)
// and gives its operators and functions custom pullbacks, so that calls need nothing here. What
// is not a call is rewritten, in place, into calls of adjoint::complex_ops (whose pullbacks are in
// the same header): a construction from numbers, and the operations that change a complex in
// place (`c op= z`, `c.real(v)`, `c.imag(v)`, `c = x`), which become `c = complex_ops::f(c, z)`,
// since the pullback of an update in place would get the updated value only.
#include <clang/AST/StmtCXX.h>

#include "ast_rewrite.hpp"
#include "lowering.hpp"

namespace adjc {

using namespace clang;

namespace {

// The element type T of a std::complex<T> value class, or a null type.
QualType complex_element(QualType t, const UnitFacts& unit) {
  if (!is_std_complex(t) || !is_value_class(t, unit)) return QualType();
  auto* spec = cast<ClassTemplateSpecializationDecl>(t.getNonReferenceType()->getAsCXXRecordDecl());
  return spec->getTemplateArgs()[0].getAsType();
}

// The adjoint::complex_ops function of the header that replaces `c op= z` (and the setters).
const char* in_place_function(const FunctionDecl* m) {
  if (m->getOverloadedOperator() == OO_PlusEqual) return "complex_sum";
  if (m->getOverloadedOperator() == OO_MinusEqual) return "complex_difference";
  if (m->getOverloadedOperator() == OO_StarEqual) return "complex_product";
  if (m->getOverloadedOperator() == OO_SlashEqual) return "complex_quotient";
  if (m->getOverloadedOperator() == OO_Equal) return "complex_from_parts";
  if (m->getIdentifier() && m->getName() == "real") return "complex_with_real";
  if (m->getIdentifier() && m->getName() == "imag") return "complex_with_imag";
  return nullptr;
}

class Rewrite : public AstRewrite {
 public:
  using AstRewrite::AstRewrite;

  Stmt* visit(Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return s;  // a lambda's body is differentiated as a function of its own
    if (visit_region(s, [&](Stmt* held) { visit(held); })) return s;
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (Decl* d : ds->decls()) {
        auto* vd = dyn_cast<VarDecl>(d);
        if (vd && vd->getType()->isArrayType() &&
            !complex_element(QualType(vd->getType()->getBaseElementTypeUnsafe(), 0), unit_).isNull())
          fail(vd->getLocation(), Diag::unsupported_local_array_complex, {vd->getNameAsString()});
        else if (vd && vd->getInit())
          vd->setInit(cast<Expr>(visit(vd->getInit())));
      }
      return s;
    }
    // Statement positions: where an update in place may stand, its value discarded.
    if (auto* block = dyn_cast<CompoundStmt>(s)) {
      for (Stmt*& c : block->children()) c = statement(c);
      return s;
    }
    if (auto* i = dyn_cast<IfStmt>(s)) {
      for (Stmt* c : {i->getInit(), static_cast<Stmt*>(i->getConditionVariableDeclStmt())}) visit(c);
      i->setCond(cast<Expr>(visit(i->getCond())));
      i->setThen(statement(i->getThen()));
      if (i->getElse()) i->setElse(statement(i->getElse()));
      return s;
    }
    if (auto* f = dyn_cast<ForStmt>(s)) {
      visit(f->getInit());
      visit(f->getConditionVariableDeclStmt());
      if (f->getCond()) f->setCond(cast<Expr>(visit(f->getCond())));
      if (f->getInc()) f->setInc(cast<Expr>(visit(f->getInc())));
      f->setBody(statement(f->getBody()));
      return s;
    }
    if (auto* w = dyn_cast<WhileStmt>(s)) {
      visit(w->getConditionVariableDeclStmt());
      w->setCond(cast<Expr>(visit(w->getCond())));
      w->setBody(statement(w->getBody()));
      return s;
    }
    if (auto* d = dyn_cast<DoStmt>(s)) {
      d->setCond(cast<Expr>(visit(d->getCond())));
      d->setBody(statement(d->getBody()));
      return s;
    }
    if (auto* range = dyn_cast<CXXForRangeStmt>(s)) {
      for (Stmt*& c : range->getRangeInit()->children()) c = visit(c);
      range->setBody(statement(range->getBody()));
      return s;
    }
    if (auto* label = dyn_cast<SwitchCase>(s)) {  // `case k: c += x;`
      if (auto* c = dyn_cast<CaseStmt>(label)) c->setSubStmt(statement(c->getSubStmt()));
      else cast<DefaultStmt>(label)->setSubStmt(statement(label->getSubStmt()));
      return s;
    }
    for (Stmt*& c : s->children()) c = visit(c);
    if (auto* e = dyn_cast<Expr>(s)) return expression(e);
    return s;
  }

 private:
  std::string type_name(QualType t) const {
    return t.getNonReferenceType().getCanonicalType().getUnqualifiedType().getAsString(context_.getPrintingPolicy());
  }

  // A statement: an update in place of a complex variable becomes an assignment.
  Stmt* statement(Stmt* s) {
    auto* e = dyn_cast_or_null<Expr>(s);
    const FunctionDecl* m = e ? in_place_update(e) : nullptr;
    if (!m) return visit(s);
    auto* call = cast<CallExpr>(e->IgnoreImplicit()->IgnoreParens());
    auto* member = dyn_cast<CXXMemberCallExpr>(call);
    Expr* target = member ? member->getImplicitObjectArgument() : call->getArg(0);
    Expr* operand = cast<Expr>(visit(call->getArg(member ? 0 : 1)));
    auto* variable = dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts());
    if (!variable || !isa<VarDecl>(variable->getDecl())) {
      fail(e->getExprLoc(), Diag::unsupported_complex_other_variable, {m->getNameAsString()});
      return s;
    }
    QualType t = target->getType().getNonReferenceType().getUnqualifiedType();
    QualType element = complex_element(t, unit_);
    if (!context_.hasSameUnqualifiedType(operand->getType(), t) &&
        !context_.hasSameUnqualifiedType(operand->getType(), element)) {
      fail(operand->getExprLoc(), Diag::unsupported_complex_operand_type,
           {m->getNameAsString(), type_name(operand->getType()), type_name(t), type_name(element), type_name(t)});
      return s;
    }
    Expr* value = m->getOverloadedOperator() == OO_Equal
                      ? build_call("complex_from_parts", {operand, zero(element)}, e->getExprLoc())
                      : build_call(in_place_function(m), {reference_to(variable), operand}, e->getExprLoc());
    Expr* assigned = value ? assignment(variable, t, value) : nullptr;
    return assigned ? assigned : s;
  }

  // `c op= z`, `c.real(v)`, `c.imag(v)` or `c = x` (a number) on a complex: the method, else nullptr.
  const FunctionDecl* in_place_update(const Expr* e) const {
    // A statement's temporaries (`c *= std::complex<double>(y, x)`) are under an ExprWithCleanups.
    auto* call = dyn_cast<CallExpr>(e->IgnoreImplicit()->IgnoreParens());
    auto* m = call ? dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee()) : nullptr;
    if (!m || m->isConst() || complex_element(QualType(m->getParent()->getTypeForDecl(), 0), unit_).isNull())
      return nullptr;
    if (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator() || m->getNumParams() != 1) return nullptr;
    return in_place_function(m) ? m : nullptr;
  }

  // An expression: a complex built from numbers becomes complex_from_parts(re, im); an update in
  // place whose value is used is reported.
  Expr* expression(Expr* e) {
    if (const FunctionDecl* m = in_place_update(e)) {
      fail(e->getExprLoc(), Diag::unsupported_complex_inside_expression, {m->getNameAsString()});
      return e;
    }
    // `std::complex<double> c = x` and arguments converted from a number: the construction itself.
    if (auto* cast_expr = dyn_cast<CastExpr>(e);
        cast_expr && cast_expr->getCastKind() == CK_ConstructorConversion && !complex_element(cast_expr->getType(), unit_).isNull() && isa<CallExpr>(cast_expr->getSubExpr()->IgnoreImplicit()))
      return cast_expr->getSubExpr();
    if (auto* functional = dyn_cast<CXXFunctionalCastExpr>(e);
        functional && !complex_element(functional->getType(), unit_).isNull() &&
        isa<CallExpr>(functional->getSubExpr()->IgnoreImplicit()))
      return functional->getSubExpr();
    auto* construct = dyn_cast<CXXConstructExpr>(e);
    QualType element = construct ? complex_element(construct->getType(), unit_) : QualType();
    if (element.isNull() || construct->getConstructor()->isCopyOrMoveConstructor()) return e;
    std::vector<Expr*> parts;
    for (Expr* arg : construct->arguments()) {
      if (isa<CXXDefaultArgExpr>(arg)) {
        parts.push_back(zero(element));
        continue;
      }
      if (!arg->getType()->isArithmeticType()) {
        fail(arg->getExprLoc(), Diag::unsupported_complex_conversion,
             {type_name(arg->getType()), type_name(construct->getType()), type_name(construct->getType())});
        return e;
      }
      parts.push_back(arg);
    }
    while (parts.size() < 2) parts.push_back(zero(element));
    Expr* call = build_call("complex_from_parts", parts, e->getBeginLoc());
    return call ? call : e;
  }

  Expr* zero(QualType element) {
    return FloatingLiteral::Create(context_, llvm::APFloat::getZero(context_.getFloatTypeSemantics(element)), true,
                                   element, SourceLocation());
  }

  Expr* reference_to(const DeclRefExpr* variable) {
    return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<ValueDecl*>(variable->getDecl()), false,
                               variable->getLocation(), variable->getType(), VK_LValue);
  }

  // A call of the complex_ops function `name` whose parameters take `args`' types.
  Expr* build_call(const char* name, llvm::ArrayRef<Expr*> args, SourceLocation at) {
    FunctionDecl* f = complex_op(name, args);
    if (!f) {
      fail(at, Diag::complex_ops_missing, {name});
      return nullptr;
    }
    auto* ref = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), f, false, at, f->getType(),
                                    VK_LValue);
    Expr* callee = ImplicitCastExpr::Create(context_, context_.getPointerType(f->getType()), CK_FunctionToPointerDecay,
                                            ref, nullptr, VK_PRValue, FPOptionsOverride());
    return CallExpr::Create(context_, callee, args, f->getReturnType(), VK_PRValue, at, FPOptionsOverride());
  }

  FunctionDecl* complex_op(const char* name, llvm::ArrayRef<Expr*> args) {
    auto lookup = [&](const DeclContext* dc, const char* n) { return dc->lookup(&context_.Idents.get(n)); };
    for (NamedDecl* a : lookup(context_.getTranslationUnitDecl(), "adjoint"))
      if (auto* adjoint = dyn_cast<NamespaceDecl>(a))
        for (NamedDecl* o : lookup(adjoint, "complex_ops"))
          if (auto* ops = dyn_cast<NamespaceDecl>(o))
            for (NamedDecl* d : lookup(ops, name))
              if (auto* f = dyn_cast<FunctionDecl>(d); f && takes(f, args)) return f;
    return nullptr;
  }

  bool takes(const FunctionDecl* f, llvm::ArrayRef<Expr*> args) const {
    if (f->getNumParams() != args.size()) return false;
    for (size_t i = 0; i < args.size(); ++i)
      if (!context_.hasSameUnqualifiedType(f->getParamDecl(i)->getType().getNonReferenceType(),
                                           args[i]->getType().getNonReferenceType()))
        return false;
    return true;
  }

  // `variable = value` through the complex's copy assignment, as lowering reads an assignment.
  Expr* assignment(const DeclRefExpr* variable, QualType t, Expr* value) {
    CXXMethodDecl* assign = nullptr;
    for (CXXMethodDecl* m : t->getAsCXXRecordDecl()->methods())
      if (m->isCopyAssignmentOperator()) assign = m;
    if (!assign) {
      fail(variable->getLocation(), Diag::no_copy_assignment, {type_name(t)});
      return nullptr;
    }
    SourceLocation at = variable->getLocation();
    auto* ref = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), assign, false, at,
                                    assign->getType(), VK_LValue);
    Expr* callee = ImplicitCastExpr::Create(context_, context_.getPointerType(assign->getType()),
                                            CK_FunctionToPointerDecay, ref, nullptr, VK_PRValue, FPOptionsOverride());
    auto* bound = new (context_) MaterializeTemporaryExpr(t.withConst(), value, true);
    return CXXOperatorCallExpr::Create(context_, OO_Equal, callee, {reference_to(variable), bound}, t, VK_LValue, at,
                                       FPOptionsOverride());
  }
};

}  // namespace

bool rewrite_complex_numbers(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, Diagnostics& diags) {
  Rewrite r(unit, context, diags);
  r.visit(const_cast<Stmt*>(fn->getBody()));
  return r.ok;
}

}  // namespace adjc
