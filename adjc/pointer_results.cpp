// Calls of functions returning a pointer into a pointer argument's array (pointer_results.hpp).
#include "pointer_results.hpp"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include <map>
#include <set>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

namespace {

bool number_pointer(QualType t) {
  t = t.getCanonicalType();
  return t->isPointerType() && t->getPointeeType()->isArithmeticType();
}

// The pointer parameter every pointer `f` returns is derived from by integer offsets alone, when
// `f` reads no memory (so the offset depends on its arguments only) and writes none; else nullptr,
// with `why`, at `where`.
class PointerResult {
 public:
  // `origins_only`: what the function does besides moving pointers does not matter (its result is
  // dereferenced, so a `nullptr` it returns is never the value used).
  explicit PointerResult(const FunctionDecl* f, bool origins_only = false) : f_(f), origins_only_(origins_only) {}

  const ParmVarDecl* parameter(std::string& why, SourceLocation& where) {
    check(f_->getBody());
    if (!why_.empty()) {
      why = why_;
      where = where_;
      return nullptr;
    }
    // Each pointer variable's origins grow until no assignment adds one.
    for (const ParmVarDecl* p : f_->parameters())
      if (number_pointer(p->getType())) origins_[p].insert(p);
    for (bool grown = true; grown;) {
      grown = false;
      for (auto& [vd, value] : assigned_) {
        std::set<const VarDecl*> from = origins(value);
        for (const VarDecl* o : from) grown |= origins_[vd].insert(o).second;
      }
    }
    std::set<const VarDecl*> from;
    for (const ReturnStmt* r : returns_)
      for (const VarDecl* o : origins(r->getRetValue())) from.insert(o);
    where = f_->getLocation();
    if (from.count(nullptr) || from.empty()) {
      why = "it returns a pointer that is not a pointer parameter moved by integer offsets (a global, a local "
            "array, new, nullptr, or another pointer)";
      return nullptr;
    }
    if (from.size() > 1) {
      why = "it returns a pointer derived from";
      const char* sep = " ";
      for (const VarDecl* o : from) {
        why += sep + ("'" + o->getNameAsString() + "'");
        sep = " or ";
      }
      why += ", not from one parameter";
      return nullptr;
    }
    return cast<ParmVarDecl>(*from.begin());
  }

 private:
  const FunctionDecl* f_;
  bool origins_only_;
  std::string why_;
  SourceLocation where_;
  std::vector<const ReturnStmt*> returns_;
  std::vector<std::pair<const VarDecl*, const Expr*>> assigned_;  // pointer variables and the values given them
  std::map<const VarDecl*, std::set<const VarDecl*>> origins_;     // the parameters each may point from

  void reject(const Stmt* s, const std::string& why) {
    if (!why_.empty() || origins_only_) return;
    why_ = why;
    where_ = s->getBeginLoc();
  }

  // The variable of `f` an assignment or `++` writes, else nullptr.
  const VarDecl* own_variable(const Expr* e) {
    auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParens());
    auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!vd || !vd->hasLocalStorage() || vd->getType()->isReferenceType() || vd->getDeclContext() != f_) return nullptr;
    return vd;
  }

  // The parameters the pointer `e` may point from (nullptr: something else).
  std::set<const VarDecl*> origins(const Expr* e) {
    e = e->IgnoreParenImpCasts();
    if (origins_only_ && e->isNullPointerConstant(f_->getASTContext(), Expr::NPC_ValueDependentIsNotNull)) return {};
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      auto it = origins_.find(dyn_cast<VarDecl>(ref->getDecl()));
      if (it != origins_.end()) return it->second;
      return number_pointer(ref->getType()) && own_variable(ref) ? std::set<const VarDecl*>{}
                                                               : std::set<const VarDecl*>{nullptr};
    }
    if (auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)
        return origins(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
      if (b->getOpcode() == BO_Comma) return origins(b->getRHS());
      if (b->isAssignmentOp()) return origins(b->getLHS());
    }
    if (auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->isIncrementDecrementOp()) return origins(u->getSubExpr());
      if (auto* s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()); s && u->getOpcode() == UO_AddrOf)
        return origins(s->getBase());
    }
    if (auto* c = dyn_cast<ConditionalOperator>(e)) {
      std::set<const VarDecl*> both = origins(c->getTrueExpr());
      for (const VarDecl* o : origins(c->getFalseExpr())) both.insert(o);
      return both;
    }
    return {nullptr};
  }

  // What adjc accepts in such a function: integer and pointer arithmetic on its own variables,
  // control flow, and returns.
  void check(const Stmt* s) {
    if (!s || !why_.empty()) return;
    if (auto* r = dyn_cast<ReturnStmt>(s)) returns_.push_back(r);
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls()) {
        auto* vd = dyn_cast<VarDecl>(d);
        if (!vd || !vd->hasLocalStorage() || vd->getType()->isReferenceType())
          return reject(s, "it declares something other than a local variable");
        if (number_pointer(vd->getType()) && vd->getInit()) assigned_.push_back({vd, vd->getInit()});
      }
    }
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) {
      const VarDecl* vd = own_variable(b->getLHS());
      if (!vd) return reject(s, "it writes memory (only its own variables may change)");
      if (number_pointer(vd->getType()) && b->getOpcode() == BO_Assign) assigned_.push_back({vd, b->getRHS()});
    }
    if (auto* u = dyn_cast<UnaryOperator>(s)) {
      if (u->isIncrementDecrementOp() && !own_variable(u->getSubExpr()))
        return reject(s, "it writes memory (only its own variables may change)");
      if (u->getOpcode() == UO_Deref) return reject(s, "it reads memory through a pointer");
      if (u->getOpcode() == UO_AddrOf) {
        auto* sub = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
        if (!sub || !number_pointer(sub->getBase()->getType())) return reject(s, "it takes an address");
        check(sub->getBase());  // `&p[k]`: an address, no read
        return check(sub->getIdx());
      }
    }
    if (isa<ArraySubscriptExpr>(s)) return reject(s, "it reads memory through a pointer");
    if (auto* ref = dyn_cast<DeclRefExpr>(s)) {
      auto* vd = dyn_cast<VarDecl>(ref->getDecl());
      if (!isa<EnumConstantDecl>(ref->getDecl()) && !(vd && vd->hasLocalStorage() && vd->getDeclContext() == f_))
        return reject(s, "it reads '" + ref->getDecl()->getNameAsString() + "', which is not its own variable");
    }
    if (auto* call = dyn_cast<CallExpr>(s)) {
      const FunctionDecl* callee = call->getDirectCallee();
      return reject(s, "it calls " + (callee ? "'" + callee->getNameAsString() + "'" : std::string("a function")));
    }
    if (!isa<CompoundStmt, DeclStmt, ReturnStmt, IfStmt, ForStmt, WhileStmt, DoStmt, NullStmt, BreakStmt,
             ContinueStmt, DeclRefExpr, IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr,
             ParenExpr, ImplicitCastExpr, BinaryOperator, CompoundAssignOperator, UnaryOperator, ConditionalOperator,
             UnaryExprOrTypeTraitExpr>(s) &&
        !(isa<ExplicitCastExpr>(s) && cast<ExplicitCastExpr>(s)->getType()->isArithmeticType()))
      return reject(s, std::string("it holds a construct adjc does not follow here (") + s->getStmtClassName() + ")");
    for (const Stmt* c : s->children()) check(c);
  }
};

// The variable the pointer argument `e` points into (`a`, `a + k`, `&a[k]`), else nullptr.
const VarDecl* argument_root(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub))
    return argument_root(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    if (auto* s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens())) return argument_root(s->getBase());
  auto* ref = dyn_cast<DeclRefExpr>(e);
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  QualType t = vd ? vd->getType().getNonReferenceType().getCanonicalType() : QualType();
  return vd && (t->isPointerType() || t->isArrayType()) ? vd : nullptr;
}

// `vd` as a pointer of type `t`.
Expr* pointer_value(ASTContext& context, const VarDecl* vd, QualType t, SourceLocation at) {
  QualType own = vd->getType().getNonReferenceType();
  Expr* e = DeclRefExpr::Create(context, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd), false,
                                at, own, VK_LValue);
  if (own->isArrayType())
    e = ImplicitCastExpr::Create(context, context.getArrayDecayedType(own), CK_ArrayToPointerDecay, e, nullptr,
                                 VK_PRValue, FPOptionsOverride());
  else
    e = ImplicitCastExpr::Create(context, own.getUnqualifiedType(), CK_LValueToRValue, e, nullptr, VK_PRValue,
                                 FPOptionsOverride());
  if (!context.hasSameUnqualifiedType(e->getType(), t))
    e = ImplicitCastExpr::Create(context, t, CK_NoOp, e, nullptr, VK_PRValue, FPOptionsOverride());
  return e;
}

// The number variable `e` takes the address of (`&x`), else nullptr.
const VarDecl* addressed_number(const Expr* e) {
  auto* u = dyn_cast<UnaryOperator>(e->IgnoreParenImpCasts());
  auto* ref = u && u->getOpcode() == UO_AddrOf ? dyn_cast<DeclRefExpr>(u->getSubExpr()->IgnoreParens()) : nullptr;
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return vd && vd->getType()->isArithmeticType() ? vd : nullptr;
}

// `(f(&x, ...), &x)`: a pointer to one number can only stay where it is, so the call runs for what
// else it does (a custom pullback's derivative, writes) and the pointer it returns is `&x`.
Expr* run_then_address(ASTContext& context, CallExpr* call, const VarDecl* x) {
  SourceLocation at = call->getBeginLoc();
  auto* ref = DeclRefExpr::Create(context, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(x), false,
                                  at, x->getType(), VK_LValue);
  auto* address = UnaryOperator::Create(context, ref, UO_AddrOf, context.getPointerType(x->getType()), VK_PRValue,
                                        OK_Ordinary, at, false, FPOptionsOverride());
  Expr* value = address;
  if (!context.hasSameType(address->getType(), call->getType()))
    value = ImplicitCastExpr::Create(context, call->getType(), CK_NoOp, address, nullptr, VK_PRValue,
                                     FPOptionsOverride());
  auto* both = BinaryOperator::Create(context, call, value, BO_Comma, call->getType(), VK_PRValue, OK_Ordinary, at,
                                      FPOptionsOverride());
  return new (context) ParenExpr(at, call->getEndLoc(), both);
}

}  // namespace

bool rewrite_pointer_results(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, Diagnostics& diags) {
  bool ok = true;
  auto fail = [&](SourceLocation at, Diag id, std::vector<std::string> args = {}) {
    diags.error(at, id, std::move(args));
    ok = false;
    return nullptr;
  };
  // Calls whose result is dereferenced where it is made (`*f(&x)`).
  std::set<const CallExpr*> dereferenced;
  walk_statements(fn->getBody(), [&](const Stmt* s) {
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_Deref)
      if (auto* call = dyn_cast<CallExpr>(u->getSubExpr()->IgnoreParenImpCasts())) dereferenced.insert(call);
    return true;
  });
  // The call's replacement, or nullptr.
  auto rewrite = [&](CallExpr* call) -> Expr* {
    const FunctionDecl* callee = call->getDirectCallee();
    QualType result = call->getType().getCanonicalType();
    if (!callee || isa<CXXMethodDecl>(callee) || !result->isPointerType() || is_library(callee)) return nullptr;
    const FunctionDecl* f = callee->getDefinition();
    const std::string name = "'" + callee->getNameAsString() + "'";
    if (!f || !f->hasBody()) return nullptr;  // reported as a call without a body
    if (result->getPointeeType()->isRecordType())
      return fail(call->getBeginLoc(), Diag::unsupported_pointer_result_type,
                  {name, call->getType()->getPointeeType().getAsString()});
    if (!number_pointer(result)) return nullptr;
    std::string why;
    SourceLocation where;
    const ParmVarDecl* p = PointerResult(f).parameter(why, where);
    // `*f(&x, ...)`: the result can only be &x, whatever else f does.
    if (std::string ignored; !p && dereferenced.count(call))
      if (const ParmVarDecl* q = PointerResult(f, true).parameter(ignored, where))
        if (const VarDecl* scalar = addressed_number(call->getArg(q->getFunctionScopeIndex())))
          return run_then_address(context, call, scalar);
    if (!p) return fail(call->getBeginLoc(), Diag::unsupported_pointer_result, {name, why});
    const Expr* arg = call->getArg(p->getFunctionScopeIndex());
    if (const VarDecl* scalar = addressed_number(arg)) return run_then_address(context, call, scalar);
    const VarDecl* root = argument_root(arg);
    if (!root)
      return fail(arg->getBeginLoc(), Diag::pointer_result_argument_not_variable, {p->getNameAsString(), name, name});
    for (const Expr* a : call->arguments())
      if (has_side_effects(a)) return fail(a->getBeginLoc(), Diag::pointer_result_argument_side_effect, {name});
    if (unit.pointer_results.insert(f->getCanonicalDecl()).second) {
      // It reads and writes no memory.
      CallSummary none;
      for (const ParmVarDecl* q : f->parameters()) {
        const bool memory = q->getType()->isPointerType() || q->getType()->isReferenceType();
        none.reads.push_back(!memory);
        none.writes.push_back(false);
        none.restores.push_back(false);
        none.element_index.push_back(-1);
      }
      unit.call_summaries[f] = std::move(none);
    }
    const QualType t = call->getType();
    SourceLocation at = call->getBeginLoc();
    auto* offset = BinaryOperator::Create(context, call, pointer_value(context, root, t, at), BO_Sub,
                                          context.getPointerDiffType(), VK_PRValue, OK_Ordinary, at,
                                          FPOptionsOverride());
    auto* moved = BinaryOperator::Create(context, pointer_value(context, root, t, at),
                                         new (context) ParenExpr(at, call->getEndLoc(), offset), BO_Add, t,
                                         VK_PRValue, OK_Ordinary, at, FPOptionsOverride());
    return new (context) ParenExpr(at, call->getEndLoc(), moved);
  };
  for (Stmt*& s : fn->getBody()->children())
    rewrite_statements(
        s, [](Stmt* s) { return !isa<LambdaExpr>(s); },
        [&](Stmt*& s) {
          if (auto* call = dyn_cast<CallExpr>(s))
            if (Expr* moved = rewrite(call)) s = moved;
        });
  return ok;
}

}  // namespace adjc
