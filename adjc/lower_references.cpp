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
  bool only_derefs = true;
  for (Stmt** s : scope)
    walk_statements(*s, [&](const Stmt* x) {
      if (auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == vd) only_derefs = false;
      return only_derefs && !deref_of_p(x);
    });
  if (!only_derefs) return;
  auto replace = [&](Stmt*& s) {
    if (!deref_of_p(s)) return true;
    s = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), target, false, s->getBeginLoc(),
                            target->getType().getNonReferenceType(), VK_LValue);
    return false;
  };
  for (Stmt** s : scope) rewrite_statements(*s, replace, [](Stmt*&) {});
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

// The statement `at` of block `cs`, an assignment `p = e` with `old` = p, becomes the declaration
// of a new local `p` given e, which the block's later statements name instead of old.
VarDecl* Lowering::redeclare_in_rest_of_block(CompoundStmt* cs, Stmt** at, const VarDecl* old) {
  auto* assign = cast<BinaryOperator>(*at);
  VarDecl* next = synthesized(old->getName().str(), old->getType(), assign->getBeginLoc());
  next->setInit(assign->getRHS());
  *at = new (context_) DeclStmt(DeclGroupRef(next), assign->getBeginLoc(), assign->getEndLoc());
  for (auto later = at + 1; later != cs->body_end(); ++later)
    replace_uses(*later, old, [&](const DeclRefExpr* ref) -> Expr* {
      return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), next, false, ref->getLocation(),
                                 next->getType(), VK_LValue);
    });
  return next;
}

namespace {

// The local pointer to data that the statement `s`, `p = e` with e not naming p, gives a value
// independent of its old one; else nullptr.
const VarDecl* retargeted_pointer(const Stmt* s) {
  auto* b = dyn_cast<BinaryOperator>(s);
  auto* ref = b && b->getOpcode() == BO_Assign ? dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParens()) : nullptr;
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!vd || isa<ParmVarDecl>(vd) || !vd->isLocalVarDecl() || !vd->getType()->isPointerType() ||
      vd->getType()->isFunctionPointerType())
    return nullptr;
  bool named = false;
  walk_statements(b->getRHS(), [&](const Stmt* x) {
    if (auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl() == vd) named = true;
    return !named;
  });
  return named ? nullptr : vd;
}

// Whether `body` uses `vd` only by its value, by assigning it or by stepping it: no address taken,
// no reference bound, no lambda capturing it (each would keep naming the old variable).
bool used_only_as_value(const Stmt* body, const VarDecl* vd) {
  bool other = false;
  auto names_vd = [&](const Expr* e) {
    auto* r = e ? dyn_cast<DeclRefExpr>(e->IgnoreParens()) : nullptr;
    return r && r->getDecl() == vd;
  };
  std::function<bool(const Stmt*)> visit = [&](const Stmt* s) {
    if (auto* lambda = dyn_cast<LambdaExpr>(s))
      for (const LambdaCapture& c : lambda->captures())
        if (c.capturesVariable() && c.getCapturedVar() == vd) other = true;
    if (auto* cast = dyn_cast<ImplicitCastExpr>(s);
        cast && cast->getCastKind() == CK_LValueToRValue && names_vd(cast->getSubExpr()))
      return false;
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && names_vd(b->getLHS())) {
      walk_statements(b->getRHS(), visit);
      return false;
    }
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp() && names_vd(u->getSubExpr()))
      return false;
    if (auto* r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == vd) other = true;
    return !other;
  };
  walk_statements(body, visit);
  return !other;
}

}  // namespace

// A local pointer (a moved pointer parameter's copy too) given, by a statement of the block that
// declares it, a value that does not read its old one (`b = a;`) is from there on another local
// pointer: the rest of the block names a new declaration `b = a`, which points into a's array and
// whose adjoint pointer is a's adjoint. `declared`: the pointers the enclosing call's block
// declares before `s` (for the body, the parameters' copies). Assignments elsewhere (in a branch
// or a loop not declaring the pointer) stay one variable, and lowering reports them.
void Lowering::split_retargeted_pointers() {
  std::set<const VarDecl*> copies;
  for (auto [param, copy] : copied_params_) copies.insert(copy);
  split_retargeted_pointers_in(ir_.fn->getBody(), copies);
}

void Lowering::split_retargeted_pointers_in(Stmt* s, std::set<const VarDecl*> declared) {
  if (!s || isa<LambdaExpr>(s)) return;
  if (auto* cs = dyn_cast<CompoundStmt>(s))
    for (auto it = cs->body_begin(); it != cs->body_end(); ++it) {
      if (auto* ds = dyn_cast<DeclStmt>(*it))
        for (const Decl* d : ds->decls())
          if (auto* vd = dyn_cast<VarDecl>(d)) declared.insert(vd);
      const VarDecl* old = retargeted_pointer(*it);
      if (old && declared.count(old) && !heap_.count(old) && used_only_as_value(ir_.fn->getBody(), old) &&
          !unread_local_pointer(old, ir_.fn->getBody()))
        declared.insert(redeclare_in_rest_of_block(cs, it, old));
    }
  for_each_child(s, [&](Stmt* c) { split_retargeted_pointers_in(c, {}); });
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
