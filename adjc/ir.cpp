// Queries over the IR shared by the passes (ir.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>

#include "classify.hpp"
#include "ir.hpp"

namespace adjc {

using namespace clang;

Var* FunctionIR::var(const Expr* e) const {
  if (auto* t = dyn_cast<CXXThisExpr>(strip(e, unit))) {
    auto it = this_object.find(t);
    return it == this_object.end() ? self : it->second;
  }
  if (auto* call = dyn_cast<CallExpr>(strip(e, unit))) {
    auto it = call_result.find(call);
    return it == call_result.end() ? nullptr : it->second;
  }
  if (auto* m = dyn_cast<MemberExpr>(strip(e, unit)); m && !m->isArrow() && !member_var.empty()) {
    auto* base = dyn_cast<DeclRefExpr>(strip(m->getBase(), unit));
    auto* vd = base ? dyn_cast<VarDecl>(base->getDecl()) : nullptr;
    auto* field = dyn_cast<FieldDecl>(m->getMemberDecl());
    auto it = member_var.find({vd, field});
    return it == member_var.end() ? nullptr : it->second;
  }
  auto* ref = dyn_cast<DeclRefExpr>(strip(e, unit));
  if (!ref) return nullptr;
  auto* vd = dyn_cast<VarDecl>(ref->getDecl());
  if (!vd) return nullptr;
  auto it = var_of.find(vd);
  return it == var_of.end() ? nullptr : it->second;
}

Var* memory_root(const FunctionIR& ir, const Expr* e) {
  e = strip(e, ir.unit);
  if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e) || ir.var(e)) {
    Var* v = ir.var(e);
    if (!v) return nullptr;
    if (v->memory) return v;
    if (v->pointer) return v->root;
    return nullptr;
  }
  if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) return memory_root(ir, sub->getBase());
  if (auto* m = dyn_cast<MemberExpr>(e)) return memory_root(ir, m->getBase());
  if (auto* u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == UO_Deref || u->getOpcode() == UO_AddrOf) return memory_root(ir, u->getSubExpr());
    return nullptr;
  }
  if (auto* b = dyn_cast<BinaryOperator>(e)) {
    if ((b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) && b->getType()->isPointerType())
      return memory_root(ir, b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
  }
  return nullptr;
}

std::string written_name(const Var* v, const Expr* e) {
  auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
  if (auto* ref = m && !m->isArrow() ? dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts()) : nullptr)
    return ref->getDecl()->getName().str() + "." + m->getMemberDecl()->getName().str();
  return v->source_name();
}

bool is_memory_read(const Expr* e) {
  return isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e) ||
         (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref);
}

// Whether `e` reads an arithmetic value from the memory of `region` (not an address: `&m[k]`
// and pointer members read none of m's values).
bool reads_value_of(const FunctionIR& ir, const Expr* e, const Var* region) {
  if (!e) return false;
  e = strip(e, ir.unit);
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    return place_reads_value_of(ir, u->getSubExpr(), region);
  if (is_memory_read(e) && e->getType()->isArithmeticType() && memory_root(ir, e) == region) return true;
  if (isa<DeclRefExpr>(e) && ir.var(e) == region && e->getType()->isArithmeticType()) return true;  // a scalar
  for (const Stmt* c : e->children())
    if (reads_value_of(ir, dyn_cast_or_null<Expr>(c), region)) return true;
  return false;
}

// Whether addressing the place `place` (`m[k]`, `s.x`: its address is taken, or a reference bound to
// it) reads an arithmetic value from the memory of `region`: only its index or base can.
bool place_reads_value_of(const FunctionIR& ir, const Expr* place, const Var* region) {
  place = strip(place, ir.unit);
  if (auto* s = dyn_cast<ArraySubscriptExpr>(place))
    return reads_value_of(ir, s->getBase(), region) || reads_value_of(ir, s->getIdx(), region);
  if (auto* m = dyn_cast<MemberExpr>(place)) return reads_value_of(ir, m->getBase(), region);
  return false;
}

void variables_read(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  if (!e) return;
  e = strip(e, ir.unit);
  if (auto* call = dyn_cast<CallExpr>(e)) {
    auto it = ir.call_result.find(call);
    if (it != ir.call_result.end()) return out.push_back(it->second);
  }
  if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e) || ir.var(e)) {
    if (Var* v = ir.var(e)) out.push_back(v);
    return;
  }
  if (is_memory_read(e) || e->getType()->isPointerType())
    if (Var* root = memory_root(ir, e)) out.push_back(root);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) variables_read(ir, ce, out);
}

bool declared_in(const Var* v, const Node* block) {
  for (const Node* b = v->block; b; b = b->parent)
    if (b == block) return true;
  return false;
}

bool shares_loop(const Node* a, const Node* b, const Node* within) {
  size_t depth = within ? within->loops.size() + 1 : 0;
  return a->loops.size() > depth && b->loops.size() > depth && a->loops[depth] == b->loops[depth];
}

bool encloses(const Node* block, const Node* n) {
  for (; n; n = n->parent)
    if (n == block) return true;
  return false;
}

bool inside(const Node* n, const Node* loop) {
  return std::find(n->loops.begin(), n->loops.end(), loop) != n->loops.end();
}

}  // namespace adjc
