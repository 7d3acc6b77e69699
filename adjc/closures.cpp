// Lambdas with captures as free functions of their captures and parameters (closures.hpp).
#include "closures.hpp"

#include <clang/AST/StmtOpenMP.h>
#include <clang/Lex/Lexer.h>

#include <functional>
#include <set>

#include "ast_rewrite.hpp"
#include "classify.hpp"

namespace adjc {

using namespace clang;

namespace {

ClosureFunction build(const CXXRecordDecl* closure, const UnitFacts& unit, ASTContext& context) {
  ClosureFunction c;
  CXXMethodDecl* op = closure->getLambdaCallOperator();
  c.where = closure->getLocation();
  auto fail = [&](SourceLocation at, const std::string& why) {
    c.where = at;
    c.why = why;
    return c;
  };
  if (!op || closure->isGenericLambda() || !op->hasBody())
    return fail(c.where, "a generic lambda with captures is not supported; give its parameters types");
  // Its captures would name the outer lambda's captures, which its function receives as parameters.
  const LambdaExpr* nested = nullptr;
  std::function<void(const Stmt*)> find_nested = [&](const Stmt* s) {
    if (!s || nested) return;
    if (auto* l = dyn_cast<LambdaExpr>(s); l && l->capture_size() != 0) nested = l;
    for (const Stmt* c : s->children()) find_nested(c);
  };
  find_nested(op->getBody());
  if (nested)
    return fail(nested->getBeginLoc(), "a lambda with captures inside another lambda with captures is not supported; "
                                       "pass it what it uses as parameters instead ([](double a, double b) { ... })");
  auto* fn =
      FunctionDecl::Create(context, const_cast<DeclContext*>(closure->getDeclContext()), op->getBeginLoc(),
                           op->getLocation(), &context.Idents.get(base_name(op, unit)), QualType(), nullptr, SC_None);
  auto field = closure->field_begin();
  std::vector<ParmVarDecl*> params;
  std::vector<QualType> types;
  unsigned index = 0;
  for (const LambdaCapture& capture : closure->captures()) {
    SourceLocation at = capture.getLocation();
    ++index;
    if (capture.capturesThis())
      return fail(at, "a lambda capturing 'this' is not supported; copy the members it uses into locals and "
                      "capture those");
    if (auto* binding = capture.capturesVariable() ? dyn_cast<BindingDecl>(capture.getCapturedVar()) : nullptr)
      return fail(at, "a lambda capturing structured binding '" + binding->getName().str() +
                          "' is not supported; copy it into a local ('auto v = " + binding->getName().str() +
                          ";') and capture that");
    auto* var = capture.capturesVariable() ? dyn_cast<VarDecl>(capture.getCapturedVar()) : nullptr;
    if (!var) return fail(at, "this capture is not supported; capture variables by copy or by reference");
    const std::string name = var->getName().str();
    if (auto* inner = var->getType().getNonReferenceType()->getAsCXXRecordDecl(); inner && inner->isLambda()) {
      // A lambda without captures has no state: its calls need no argument.
      if (inner->capture_size() == 0) {
        ++field;
        continue;
      }
      return fail(at, "the lambda captures lambda '" + name +
                          "', which has captures of its own; this is not "
                          "supported: write '" +
                          name + "' as a function, or pass what it computes as a parameter");
    }
    bool by_copy = capture.getCaptureKind() == LCK_ByCopy;
    QualType vt = var->getType(), pt;
    if (by_copy) {
      pt = vt.getNonReferenceType().getUnqualifiedType();
      if (!pt->isArithmeticType() && !pt->isPointerType())
        return fail(at, "the lambda captures '" + name + "' (of type '" + pt.getAsString() +
                            "') by copy, which is not supported; capture it by reference ([&" + name + "])");
      // A mutable lambda's copy lives as long as the lambda: its function updates it by reference.
      if (!op->isConst() && may_modify(op->getBody(), var)) {
        if (!pt->isArithmeticType())
          return fail(at, "the mutable lambda changes its copy of pointer '" + name +
                              "', which is not supported; keep an index in the copy instead");
        pt = context.getLValueReferenceType(pt);
      }
    } else if (var->isInitCapture()) {
      return fail(at, "a lambda's init-capture by reference ('&" + name +
                          " = ...') is not supported; capture the "
                          "variable itself by reference");
    } else if (vt->isReferenceType()) {
      pt = vt;
    } else if (vt->isArrayType()) {
      return fail(at, "the lambda captures array '" + name +
                          "', which is not supported; capture a pointer to its "
                          "first element instead (const double* p = " +
                          name + ";)");
    } else if (may_modify(op->getBody(), var)) {
      // Only locals become the one-element regions a callee writes through a reference.
      if (isa<ParmVarDecl>(var) && vt->isRealFloatingType())
        return fail(at, "the lambda writes parameter '" + name + "', which it captures by reference; this is not "
                        "supported: copy it into a local and capture the local");
      pt = context.getLValueReferenceType(vt);
    } else {
      // Read only: its value at the call (a scalar or pointer), or a const reference.
      pt = vt->isArithmeticType() || vt->isPointerType() ? vt.getUnqualifiedType()
                                                         : context.getLValueReferenceType(vt.withConst());
    }
    auto* param = ParmVarDecl::Create(context, fn, var->getLocation(), var->getLocation(), var->getIdentifier(), pt,
                                      context.getTrivialTypeSourceInfo(pt, var->getLocation()), SC_None, nullptr);
    c.captures.push_back({var, *field++, by_copy, param, at, index - 1});
    params.push_back(param);
    types.push_back(pt);
  }
  for (ParmVarDecl* p : op->parameters()) {
    params.push_back(p);
    types.push_back(p->getType());
  }
  QualType result = op->getReturnType().getCanonicalType();
  fn->setType(context.getFunctionType(result, types, FunctionProtoType::ExtProtoInfo()));
  fn->setParams(params);
  // The body's uses of the captured variables become uses of the parameters.
  std::function<void(Stmt*)> retarget = [&](Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return;
    if (auto* ref = dyn_cast<DeclRefExpr>(s))
      for (const ClosureCapture& k : c.captures)
        if (ref->getDecl() == k.var) ref->setDecl(const_cast<ParmVarDecl*>(k.param));
    for (Stmt* child : s->children()) retarget(child);
  };
  retarget(op->getBody());
  fn->setBody(op->getBody());
  c.fn = fn;
  return c;
}

// The lambda `e` is (parens, temporaries and copies looked through), or nullptr.
const LambdaExpr* lambda_of(const Expr* e) {
  while (e) {
    e = e->IgnoreParenImpCasts();
    if (auto* w = dyn_cast<ExprWithCleanups>(e)) e = w->getSubExpr();
    else if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else return dyn_cast<LambdaExpr>(e);
  }
  return nullptr;
}

class ClosureCalls : public AstRewrite {
 public:
  using AstRewrite::AstRewrite;

  Stmt* visit(Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return s;  // a lambda's body is lowered as a function of its own
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->getOperator() == OO_Call)
      if (const CXXRecordDecl* closure = capturing_lambda(op->getArg(0)->getType())) return call(op, closure);
    if (auto* ref = dyn_cast<DeclRefExpr>(s); ref && capturing_lambda(ref->getType())) {
      fail(ref->getLocation(), "lambda '" + ref->getDecl()->getNameAsString() +
                                   "' has captures and is used other than by calling it (copied or passed), which "
                                   "is not supported; call it in the function that declares it");
      return s;
    }
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (Decl* d : ds->decls())
        if (auto* vd = dyn_cast<VarDecl>(d); vd && vd->getInit()) {
          if (capturing_lambda(vd->getType()) && lambda_of(vd->getInit())) continue;  // lowered by lower_decl
          vd->setInit(cast<Expr>(visit(vd->getInit())));
        }
      return s;
    }
    if (visit_region(s, [&](Stmt* held) { visit(held); })) return s;
    for (Stmt*& c : s->children()) c = visit(c);
    return s;
  }

 private:
  std::set<const CXXRecordDecl*> reported_;

  Expr* value(Expr* e, QualType t) {
    return ImplicitCastExpr::Create(context_, t.getNonReferenceType().getUnqualifiedType(), CK_LValueToRValue, e,
                                    nullptr, VK_PRValue, FPOptionsOverride());
  }

  Stmt* call(CXXOperatorCallExpr* op, const CXXRecordDecl* closure) {
    const ClosureFunction& c = closure_function(closure, unit_, context_);
    if (!c.fn) {
      if (reported_.insert(closure).second) fail(c.where, c.why);
      ok = false;
      return op;
    }
    const Expr* object = op->getArg(0)->IgnoreParenImpCasts();
    auto* ref = dyn_cast<DeclRefExpr>(object);
    auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    const LambdaExpr* named = vd && vd->isLocalVarDecl() ? lambda_of(vd->getInit()) : nullptr;
    const LambdaExpr* written = named ? nullptr : lambda_of(op->getArg(0));
    if (!named && !written) {
      fail(op->getBeginLoc(), "a lambda with captures is called here through something other than the local "
                              "variable that holds it, which is not supported; call it in the function that "
                              "declares it");
      return op;
    }
    std::vector<Expr*> args;
    for (const ClosureCapture& k : c.captures) {
      QualType pt = k.param->getType();
      if (k.by_copy && named) {
        auto* base = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd),
                                         false, op->getBeginLoc(), vd->getType().getNonReferenceType(), VK_LValue);
        auto* member = MemberExpr::CreateImplicit(context_, base, false, const_cast<FieldDecl*>(k.field),
                                                  k.field->getType(), VK_LValue, OK_Ordinary);
        args.push_back(pt->isReferenceType() ? static_cast<Expr*>(member) : value(member, pt));
      } else if (k.by_copy && pt->isReferenceType()) {
        fail(op->getBeginLoc(), "a mutable lambda that changes its copy of '" + k.var->getName().str() +
                                    "' is called where it is written, which is not supported; hold it in a local "
                                    "variable (auto f = [...](...) mutable { ... };) and call that");
        return op;
      } else if (k.by_copy) {
        args.push_back(cast<Expr>(visit(written->capture_init_begin()[k.index])));
      } else {
        auto* var =
            DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(k.var),
                                false, op->getBeginLoc(), k.var->getType().getNonReferenceType(), VK_LValue);
        args.push_back(pt->isReferenceType() ? static_cast<Expr*>(var) : value(var, pt));
      }
    }
    for (unsigned a = 1; a < op->getNumArgs(); ++a) args.push_back(cast<Expr>(visit(op->getArg(a))));
    auto* fn = const_cast<FunctionDecl*>(c.fn);
    auto* callee_ref = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), fn, false,
                                           op->getBeginLoc(), fn->getType(), VK_LValue);
    auto* callee = ImplicitCastExpr::Create(context_, context_.getPointerType(fn->getType()), CK_FunctionToPointerDecay,
                                            callee_ref, nullptr, VK_PRValue, FPOptionsOverride());
    return CallExpr::Create(context_, callee, args, fn->getReturnType(), VK_PRValue, op->getBeginLoc(),
                            FPOptionsOverride());
  }
};

}  // namespace

const CXXRecordDecl* capturing_lambda(QualType t) {
  if (t.isNull()) return nullptr;
  auto* record = t.getNonReferenceType()->getAsCXXRecordDecl();
  return record && record->isLambda() && record->capture_size() != 0 ? record : nullptr;
}

const ClosureFunction& closure_function(const CXXRecordDecl* closure, const UnitFacts& unit, ASTContext& context) {
  auto& slot = unit.closures[closure->getCanonicalDecl()];
  if (!slot) {
    slot = std::make_shared<ClosureFunction>(build(closure, unit, context));
    if (slot->fn) unit.closure_of[slot->fn] = slot.get();
  }
  return *slot;
}

const ClosureFunction* as_closure_function(const FunctionDecl* fn, const UnitFacts& unit) {
  auto it = unit.closure_of.find(fn);
  return it == unit.closure_of.end() ? nullptr : it->second;
}

bool called_through_forward(const FunctionDecl* fn, const UnitFacts& unit) {
  auto* method = dyn_cast<CXXMethodDecl>(fn);
  return (method && method->getParent()->isLambda()) || as_closure_function(fn, unit);
}

bool closure_request_arguments(const ClosureFunction& c, const Expr* target, ASTContext& context, Diagnostics& diags,
                               std::string& out) {
  const SourceManager& sm = context.getSourceManager();
  auto* ref = dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts());
  auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  const LambdaExpr* named = var && var->isLocalVarDecl() ? lambda_of(var->getInit()) : nullptr;
  const LambdaExpr* written = named ? nullptr : lambda_of(target);
  if (!named && !written) {
    diags.error(target->getBeginLoc(), "a gradient of a lambda with captures must be requested in the function that "
                                       "declares it, of the lambda or of the local variable holding it");
    return false;
  }
  for (const ClosureCapture& k : c.captures) {
    const Expr* value = (named ? named : written)->capture_init_begin()[k.index];
    const std::string name = k.var->getName().str();
    QualType pt = k.param->getType();
    if (!k.by_copy) {
      if (pt->isLValueReferenceType() && !pt->getPointeeType().isConstQualified() && is_differentiable(pt)) {
        diags.error(k.at, "the lambda writes its capture '" + name +
                              "', which a gradient request cannot return; "
                              "return the value from the lambda instead");
        return false;
      }
      out += ", ::std::ref(" + name + ")";
    } else if (pt->isReferenceType()) {
      diags.error(k.at, "the mutable lambda changes its copy of '" + name +
                            "', which a gradient request cannot follow; request the gradient of a function that "
                            "declares and calls the lambda");
      return false;
    } else if (k.var->isInitCapture()) {
      if (named) {
        diags.error(k.at, "a gradient of a lambda with an init-capture ('" + name +
                              " = ...') must be requested "
                              "where the lambda is written: adjoint::gradient([" +
                              name + " = ...](...) { ... })");
        return false;
      }
      out += ", " +
             Lexer::getSourceText(CharSourceRange::getTokenRange(value->getSourceRange()), sm, context.getLangOpts())
                 .str();
    } else {
      auto* function = named ? dyn_cast<FunctionDecl>(var->getDeclContext()) : nullptr;
      if (function && may_modify(function->getBody(), k.var, &sm, named->getEndLoc())) {
        diags.error(k.at, "'" + name +
                              "' is captured by copy and changed after the lambda is declared, so a "
                              "gradient request cannot read the lambda's copy; capture it by reference ([&" +
                              name + "]), or request the gradient where the lambda is written");
        return false;
      }
      out += ", " + name;
    }
  }
  return true;
}

bool rewrite_closure_calls(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, Diagnostics& diags) {
  ClosureCalls r(unit, context, diags);
  r.visit(const_cast<Stmt*>(fn->getBody()));
  return r.ok;
}

}  // namespace adjc
