// Activity: which variables and memory depend on the active parameters (passes.hpp).
#include <clang/AST/ExprCXX.h>

#include "passes.hpp"
#include "tape_plan.hpp"

namespace adjc {

using namespace clang;

// Whether `e` reads a value marked non_differentiable: a call of such a function, a member, or
// memory reached through such a member (`*obj.p`, `obj.p[i]`).
bool reads_non_differentiable(const Expr* e) {
  for (;;) {
    e = e->IgnoreParenImpCasts();
    if (auto* call = dyn_cast<CallExpr>(e)) return non_differentiable(call->getDirectCallee());
    if (auto* m = dyn_cast<MemberExpr>(e)) return non_differentiable(m->getMemberDecl());
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref) e = u->getSubExpr();
    else if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) e = s->getBase();
    else return false;
  }
}

bool reads_varied(const FunctionIR& ir, const Activity& act, const Expr* e) {
  e = strip(e, ir.unit);
  if (reads_non_differentiable(e)) return false;
  if (auto* call = dyn_cast<CallExpr>(e)) {
    auto it = ir.call_result.find(call);
    if (it != ir.call_result.end()) return act.of(it->second) && has_result_adjoint(call->getType(), ir.unit);
  }
  QualType t = e->getType();
  if (is_value_class(t, ir.unit)) return isa<DeclRefExpr>(e) ? act.of(ir.var(e)) : act.of(memory_root(ir, e));
  if (t->isPointerType() || t->isRecordType()) return act.of(memory_root(ir, e));
  if (!is_floating(t)) return false;
  if (isa<DeclRefExpr>(e) || ir.var(e)) return act.of(ir.var(e));
  if (is_memory_read(e)) return act.of(memory_root(ir, e));
  for (const Stmt* child : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(child); ce && reads_varied(ir, act, ce)) return true;
  return false;
}

bool value_reference(const FunctionIR& ir, QualType param, const Expr* arg) {
  QualType t = param.getCanonicalType();
  if (!t->isLValueReferenceType() || !t->getPointeeType().isConstQualified() || !is_floating(t->getPointeeType()))
    return false;
  // Bound to a temporary (`x[i]` of another floating type, converted) or to no memory.
  const Expr* e = arg->IgnoreParens();
  if (auto* c = dyn_cast<ExprWithCleanups>(e)) e = c->getSubExpr()->IgnoreParens();
  return isa<MaterializeTemporaryExpr>(e) || !memory_root(ir, arg);
}

bool arg_varied(const FunctionIR& ir, const Activity& act, QualType param, const Expr* arg) {
  if (!is_differentiable(param)) return false;
  QualType t = param.getCanonicalType();
  if (value_reference(ir, param, arg)) return reads_varied(ir, act, arg);
  // A value class, or the object of one of its member functions.
  if (is_value_class(t, ir.unit) || (t->isPointerType() && is_value_class(t->getPointeeType(), ir.unit)))
    return reads_varied(ir, act, arg);
  if (t->isReferenceType() || t->isPointerType() || t->isRecordType()) return act.of(memory_root(ir, arg));
  return reads_varied(ir, act, arg);
}

namespace {

bool writes_memory(const Node* call) { return writes_through_parameters(call->call->getDirectCallee()); }

// A local number (or a call's result) whose adjoint can be non-zero only if its value reaches
// something that can: the return value, memory, a call that writes memory.
bool may_be_useless(const Var* v) {
  return (v->kind == VarKind::Local || v->kind == VarKind::CallResult) && v->floating && !v->memory &&
         !v->reference && !v->pointer && !v->value && !v->heap;
}

// Which variables' values reach a result. The others have a zero adjoint everywhere: they are left
// inactive, so that no reverse is emitted for them, which would multiply that zero by partials
// that may be NaN there (`sqrt(1.5 + b)` in dead code, b < -1.5) and tape their values for nothing.
std::vector<char> useful_variables(const FunctionIR& ir) {
  std::vector<char> useful(ir.vars.size(), 0);
  for (auto& v : ir.vars)
    if (!may_be_useless(v.get())) useful[v->index] = 1;
  bool changed = true;
  auto reads_are_useful = [&](const Expr* e) {
    std::vector<Var*> read;
    variables_read(ir, e, read);
    for (Var* v : read)
      if (!useful[v->index]) useful[v->index] = changed = 1;
  };
  while (changed) {
    changed = false;
    for_each_node(ir.body, [&](Node* n) {
      if (n->kind == NodeKind::Assign) {
        if (n->target && !useful[n->target->index]) return;
        reads_are_useful(n->lhs);
        reads_are_useful(n->rhs);
      } else if (n->kind == NodeKind::Call) {
        if (n->result && !useful[n->result->index] && !writes_memory(n)) return;
        for (const AdArg& a : ad_args(n->call)) reads_are_useful(a.expr);
      }
    });
  }
  return useful;
}

bool args_varied(const FunctionIR& ir, const Activity& act, const Node* node) {
  std::vector<AdParam> params = ad_params(node->call->getDirectCallee());
  std::vector<AdArg> args = ad_args(node->call);
  for (size_t i = 0; i < args.size() && i < params.size(); ++i)
    if (arg_varied(ir, act, params[i].type, args[i].expr)) return true;
  return false;
}

}  // namespace

bool call_active(const FunctionIR& ir, const Activity& act, const Node* node) {
  // Its result carries no derivative and it writes no memory: nothing to propagate.
  if (node->result && may_be_useless(node->result) && !act.of(node->result) && !writes_memory(node)) return false;
  return args_varied(ir, act, node);
}

Activity analyze_activity(const FunctionIR& ir, const std::vector<bool>& active) {
  Activity act;
  act.varied.assign(ir.vars.size(), 0);
  for (auto& v : ir.vars)
    if (v->kind == VarKind::Param && active[v->param_index] && v->differentiable) act.varied[v->index] = 1;
  std::vector<char> useful = useful_variables(ir);
  bool changed = true;
  auto mark = [&](Var* v) {
    if (v && useful[v->index] && !act.varied[v->index] && !non_differentiable(v->decl))
      act.varied[v->index] = changed = 1;
  };
  while (changed) {
    changed = false;
    for_each_node(ir.body, [&](Node* n) {
      if (n->kind == NodeKind::Assign) {
        bool varied_rhs = n->rhs && reads_varied(ir, act, n->rhs);
        if (!varied_rhs) return;
        if (n->target && (n->target->floating || n->target->value)) mark(n->target);
        if (n->memory_root && is_floating(n->lhs->getType())) mark(n->memory_root);
      } else if (n->kind == NodeKind::Call && ir.hoisted.count(n->call) && args_varied(ir, act, n) &&
                 !non_differentiable(n->call->getDirectCallee())) {
        if (n->result && (n->result->floating || n->result->value || n->result->memory)) mark(n->result);
        std::vector<AdParam> params = ad_params(n->call->getDirectCallee());
        std::vector<AdArg> args = ad_args(n->call);
        // What the callee writes: every non-const pointer or reference, unless its summary
        // (planned before its callers, except within a recursion) says it writes nothing there.
        for (size_t i = 0; i < args.size() && i < params.size(); ++i)
          if (is_written_param(params[i].type) && call_writes_memory(n->call, i, ir.unit))
            mark(memory_root(ir, args[i].expr));
      }
    });
  }
  return act;
}

void check_unselected_writes(const FunctionIR& ir, const Activity& act, const std::vector<bool>& active,
                             Diagnostics& diags, SourceLocation request) {
  for (auto& v : ir.vars)
    if (v->kind == VarKind::Param && v->differentiable && !v->floating && !v->value && act.varied[v->index] &&
        !active[v->param_index])
      diags.error(request, Diag::unselected_parameter_receives_active_values, {v->name, ir.fn->getNameAsString()});
}

}  // namespace adjc
