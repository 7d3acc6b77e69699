// Integer globals used as counters (`++calls;`): their uses found in a function and the functions it
// calls before lowering edits the body, and the checks lowering makes of them (classify.hpp,
// lowering.hpp).
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <set>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

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

// The uses of integer globals in one function's own body (GlobalUses), statement by statement.
// `discarded`: the expression is a statement (or the left of a comma, or cast to void) whose value
// nothing uses.
class GlobalUseFinder {
 public:
  explicit GlobalUseFinder(GlobalUses& uses) : uses_(uses) {}

  void statement(const Stmt* s, bool discarded) {
    if (!s) return;
    if (auto* e = dyn_cast<Expr>(s)) return expression(e, discarded);
    if (isa<CompoundStmt>(s)) {
      for (const Stmt* c : s->children()) statement(c, true);
      return;
    }
    if (auto* i = dyn_cast<IfStmt>(s)) {
      statement(i->getInit(), true);
      statement(i->getConditionVariableDeclStmt(), false);
      statement(i->getCond(), false);
      statement(i->getThen(), true);
      return statement(i->getElse(), true);
    }
    if (auto* f = dyn_cast<ForStmt>(s)) {
      statement(f->getInit(), true);
      statement(f->getConditionVariableDeclStmt(), false);
      statement(f->getCond(), false);
      statement(f->getInc(), true);
      return statement(f->getBody(), true);
    }
    if (auto* w = dyn_cast<WhileStmt>(s)) {
      statement(w->getConditionVariableDeclStmt(), false);
      statement(w->getCond(), false);
      return statement(w->getBody(), true);
    }
    if (auto* d = dyn_cast<DoStmt>(s)) {
      statement(d->getBody(), true);
      return statement(d->getCond(), false);
    }
    if (auto* sw = dyn_cast<SwitchStmt>(s)) {
      statement(sw->getInit(), true);
      statement(sw->getConditionVariableDeclStmt(), false);
      statement(sw->getCond(), false);
      return statement(sw->getBody(), true);
    }
    if (auto* r = dyn_cast<CXXForRangeStmt>(s)) {
      statement(r->getInit(), true);
      statement(r->getRangeInit(), false);
      return statement(r->getBody(), true);
    }
    if (auto* c = dyn_cast<SwitchCase>(s)) return statement(c->getSubStmt(), true);
    if (auto* l = dyn_cast<LabelStmt>(s)) return statement(l->getSubStmt(), true);
    if (auto* a = dyn_cast<AttributedStmt>(s)) return statement(a->getSubStmt(), true);
    for (const Stmt* c : s->children()) statement(c, isa<CapturedStmt>(s) || isa<OMPExecutableDirective>(s));
  }

 private:
  GlobalUses& uses_;
  std::set<const FunctionDecl*> callees_;

  void expression(const Expr* e, bool discarded) {
    e = e->IgnoreParens();
    if (auto* full = dyn_cast<FullExpr>(e)) return statement(full->getSubExpr(), discarded);
    if (auto* c = dyn_cast<ExplicitCastExpr>(e); c && c->getType()->isVoidType())
      return statement(c->getSubExpr(), true);
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
      statement(b->getLHS(), true);
      return statement(b->getRHS(), discarded);
    }
    if (counter_update(e, discarded)) return;
    if (auto* ref = dyn_cast<DeclRefExpr>(e))
      if (const VarDecl* g = integer_global(ref)) uses_.read.emplace(g, ref->getLocation());
    if (auto* call = dyn_cast<CallExpr>(e)) callee(call->getDirectCallee());
    if (auto* construct = dyn_cast<CXXConstructExpr>(e)) {
      callee(construct->getConstructor());
      if (auto* ctor = construct->getConstructor(); ctor && ctor->hasBody())
        if (auto* def = dyn_cast<CXXConstructorDecl>(ctor->getDefinition()))
          for (const CXXCtorInitializer* ci : def->inits()) statement(ci->getInit(), false);
    }
    // A lambda's body counts as the function's, where it is written.
    if (auto* lambda = dyn_cast<LambdaExpr>(e)) statement(lambda->getBody(), true);
    for (const Stmt* c : e->children()) statement(c, false);
  }

  // An assignment to an integer global, or its `++`/`--`: a write (and a read, when its value is
  // used); false for any other expression.
  bool counter_update(const Expr* e, bool discarded) {
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp())
      if (const VarDecl* g = integer_global(b->getLHS())) {
        uses_.written.emplace(g, b->getExprLoc());
        if (!discarded) uses_.read.emplace(g, b->getExprLoc());
        if (reads_floating(b->getRHS())) uses_.floating_value.emplace(g, b->getRHS()->getExprLoc());
        statement(b->getRHS(), false);
        return true;
      }
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
      if (const VarDecl* g = integer_global(u->getSubExpr())) {
        uses_.written.emplace(g, u->getExprLoc());
        if (!discarded) uses_.read.emplace(g, u->getExprLoc());
        return true;
      }
    return false;
  }

  // A function of the user's the body calls, whose uses count too.
  void callee(const FunctionDecl* f) {
    const FunctionDecl* body = nullptr;
    if (f && !is_library(f) && !f->isDefaulted() && f->hasBody(body) && callees_.insert(body).second)
      uses_.callees.push_back(body);
  }
};

// The uses in `definition`'s own body (GlobalUses), read once.
const GlobalUses& own_global_uses(const FunctionDecl* definition, const UnitFacts& unit) {
  if (auto it = unit.global_uses.find(definition); it != unit.global_uses.end()) return it->second;
  GlobalUses& uses = unit.global_uses[definition];
  GlobalUseFinder finder(uses);
  if (auto* ctor = dyn_cast<CXXConstructorDecl>(definition))
    for (const CXXCtorInitializer* ci : ctor->inits()) finder.statement(ci->getInit(), false);
  finder.statement(definition->getBody(), true);
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
  auto line = [&](SourceLocation at) { return std::to_string(context_.getSourceManager().getPresumedLineNumber(at)); };
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
