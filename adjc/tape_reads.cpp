// Tape plan, what the reverse sweep reads: each active statement's operands, and the loop bounds and
// branch conditions it evaluates again instead of popping them (tape_plan.hpp).
#include <algorithm>

#include "closures.hpp"
#include "ir_walk.hpp"
#include "iteration.hpp"
#include "tape_plan.hpp"

namespace adjc {

using namespace clang;

namespace {

// Variables an lvalue's address depends on: indices and pointer variables.
void address_vars(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  e = strip(e, ir.unit);
  if (isa<DeclRefExpr>(e) || ir.var(e)) {
    // Pointer parameters cannot be reassigned, so only local pointers' values matter.
    if (Var* v = ir.var(e); v && v->pointer && v->kind != VarKind::Param) out.push_back(v);
    return;
  }
  if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) {
    address_vars(ir, s->getBase(), out);
    variables_read(ir, s->getIdx(), out);
    return;
  }
  if (auto* m = dyn_cast<MemberExpr>(e)) return address_vars(ir, m->getBase(), out);
  if (auto* u = dyn_cast<UnaryOperator>(e)) return address_vars(ir, u->getSubExpr(), out);
  if (auto* b = dyn_cast<BinaryOperator>(e)) {
    bool left_pointer = b->getLHS()->getType()->isPointerType();
    address_vars(ir, left_pointer ? b->getLHS() : b->getRHS(), out);
    variables_read(ir, left_pointer ? b->getRHS() : b->getLHS(), out);
  }
}

// Address variables of every memory read in `e`.
void memory_addresses(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  if (!e) return;
  e = strip(e, ir.unit);
  if (is_memory_read(e)) address_vars(ir, e, out);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) memory_addresses(ir, ce, out);
}

// Whether `e` reads nothing but integer variables (no memory, no calls): its variables, appended.
bool reads_only_integers(const FunctionIR& ir, const Expr* e, std::vector<Var*>& vars) {
  bool plain = true;
  walk_operands(e, [&](const Expr* x) { return plain &= !isa<CallExpr>(x) && !is_memory_read(strip(x, ir.unit)); });
  if (!plain) return false;
  variables_read(ir, e, vars);
  for (const Var* v : vars)
    if (v->memory || v->pointer || !v->type->isIntegralOrEnumerationType()) return false;
  return true;
}

}  // namespace

// Read sites: for each active statement (NodePlan::active), the variables and regions its reverse
// code reads (VarPlan::read_in_reverse).
TapePlan find_reverse_reads(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all) {
  TapePlan plan;
  plan.nodes.resize(all.size());
  plan.vars.resize(ir.vars.size());
  for (Node* n : all) {
    bool& active = plan[n].active;
    std::vector<Var*> vars;
    if (n->kind == NodeKind::Assign) {
      Var* written = n->target ? n->target : n->memory_root;
      bool floating = n->target ? n->target->floating || n->target->value : is_floating(n->lhs->getType());
      active = floating && full.of(written);
      if (!active) continue;
      if (n->lhs) address_vars(ir, n->lhs, vars);
      std::vector<const Expr*> values;
      if (n->rhs) needed_values(ir, full, n->rhs, values);
      for (const Expr* v : values) variables_read(ir, v, vars);
      memory_addresses(ir, n->rhs, vars);
      // `y *= r` reads y's old value only for r's adjoint.
      if ((n->op == BO_MulAssign || n->op == BO_DivAssign) && n->rhs) {
        if (reads_varied(ir, full, n->rhs)) vars.push_back(written);
        variables_read(ir, n->rhs, vars);
      }
    } else if (n->kind == NodeKind::Call) {
      if (!ir.hoisted.count(n->call)) continue;
      // A lambda's forward runs even for a call without derivative work: its reverse must run too,
      // to pop what that pushed.
      const FunctionDecl* callee = n->call->getDirectCallee();
      active = (call_active(ir, full, n) && !derivative_free(callee)) ||
               (called_through_forward(callee, ir.unit) && callee_kind(callee, ir.unit) == CalleeKind::User);
      if (!active) continue;
      // A pointer or reference argument is read for its address; the memory it points to only when
      // the callee's reverse reads it (call_reads_memory). A temporary bound to a reference
      // (`h(cos(e + x[i]))` to `const double&`) is a value: the reverse evaluates it again, and its
      // derivative reads its operands.
      std::vector<AdArg> args = ad_args(n->call);
      for (size_t i = 0; i < args.size(); ++i) {
        if (!isa<MaterializeTemporaryExpr>(args[i].expr->IgnoreParens()) && !call_reads_memory(n->call, i, ir.unit)) {
          address_vars(ir, args[i].expr, vars);
          continue;
        }
        variables_read(ir, args[i].expr, vars);
        // A local pointer's value is an address into its region, which the callee reads too.
        if (args[i].expr->getType()->isPointerType())
          if (Var* region = memory_root(ir, args[i].expr)) vars.push_back(region);
      }
      // Clad's zero_like shapes the result's adjoint as the result, again after each pullback.
      if (n->result && has_zero_like(n->result->type)) vars.push_back(n->result);
    }
    for (Var* v : vars) plan.read(n, v);
  }
  // A local's adjoint shaped by zero_like at the start of the reverse reads the local's last value.
  for (auto& v : ir.vars)
    if (v->kind == VarKind::Local && has_zero_like(v->type)) plan[v.get()].read_in_reverse = true;
  return plan;
}

// Whether the derivative of expression `e` with respect to what it reads needs no value: sums and
// differences of variables, elements, members and constants, scaled by constants (`z[v] - maxval`,
// `-(2 * a + b)`). A product of two variables or a call (`tanh(t)`) needs its operands' values.
bool linear_with_constant_coefficients(const FunctionIR& ir, const Expr* e) {
  e = strip(e, ir.unit);
  if (isa<IntegerLiteral, FloatingLiteral, DeclRefExpr, ArraySubscriptExpr, MemberExpr>(e)) return true;
  if (auto* u = dyn_cast<UnaryOperator>(e))
    return (u->getOpcode() == UO_Minus || u->getOpcode() == UO_Plus) &&
           linear_with_constant_coefficients(ir, u->getSubExpr());
  auto* b = dyn_cast<BinaryOperator>(e);
  if (!b) return false;
  auto constant = [&](const Expr* x) { return isa<IntegerLiteral, FloatingLiteral>(strip(x, ir.unit)); };
  switch (b->getOpcode()) {
    case BO_Add:
    case BO_Sub:
      return linear_with_constant_coefficients(ir, b->getLHS()) && linear_with_constant_coefficients(ir, b->getRHS());
    case BO_Mul:
      return (constant(b->getLHS()) && linear_with_constant_coefficients(ir, b->getRHS())) ||
             (constant(b->getRHS()) && linear_with_constant_coefficients(ir, b->getLHS()));
    case BO_Div: return constant(b->getRHS()) && linear_with_constant_coefficients(ir, b->getLHS());
    default: return false;
  }
}

namespace {

bool read_somewhere(const TapePlan& plan, const Var* v) {
  return std::any_of(plan.reads.begin(), plan.reads.end(), [&](const ReadSite& r) { return r.var == v; });
}

// Scalars whose last reverse read was dropped are not read in the reverse. One that was recomputed
// is not recomputed either when its definition has no reverse code of its own: then every read
// registered at the definition was its recomputation's (phase 3), so those reads go too (a sum's
// loop run again included), and the variables they read are looked at in turn. A log-sum-exp
// used only as an exponential's shift, `p[v] = exp(z[v] - lse)`, thus costs the reverse nothing.
void forget_unread(const std::vector<Node*>& all, TapePlan& plan, std::vector<Var*> forgotten) {
  while (!forgotten.empty()) {
    Var* v = forgotten.back();
    forgotten.pop_back();
    if (v->memory || v->pointer || read_somewhere(plan, v)) continue;
    if (plan[v].recompute) {
      const Node* definition = v->definition;
      if (!definition || plan[definition].active) continue;
      plan[v].recompute = false;
      for (const Node* n : all)
        if (plan[n].recomputed_sum == v) plan[n].recomputed_sum = nullptr;
      for (const ReadSite& r : plan.reads)
        if (r.node == definition) forgotten.push_back(r.var);
      std::erase_if(plan.reads, [&](const ReadSite& r) { return r.node == definition; });
    }
    plan[v].read_in_reverse = false;
  }
}

}  // namespace

// Once the reverse of `m[k] = f(x)` (or `t = f(x)`) reads f(x) back from m[k] (from t: that read
// stays) (NodePlan::result_in_target), and x
// is linear with constant coefficients (so its derivative reads no value), it no longer needs x's
// value: the scalars only that value read (a softmax's maximum in `exp(z[v] - maxval)`) are not
// read there. Addresses stay read: the reverse still adds into x's adjoint. A scalar no other
// reverse code reads is then neither kept nor pushed per iteration, nor recomputed (forget_unread).
void forget_operand_reads(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan) {
  std::vector<Var*> forgotten;
  for (const Node* n : all) {
    if (!plan[n].result_in_target) continue;
    auto* call = dyn_cast<CallExpr>(strip(n->rhs, ir.unit));
    if (!call || call->getNumArgs() != 1 || !linear_with_constant_coefficients(ir, call->getArg(0))) continue;
    std::vector<Var*> addresses;
    address_vars(ir, n->lhs, addresses);
    memory_addresses(ir, n->rhs, addresses);
    auto operand_only = [&](const ReadSite& r) {
      return r.node == n && r.var != n->target && !r.var->memory && !r.var->pointer &&
             std::find(addresses.begin(), addresses.end(), r.var) == addresses.end();
    };
    for (const ReadSite& r : plan.reads)
      if (operand_only(r)) forgotten.push_back(r.var);
    std::erase_if(plan.reads, operand_only);
  }
  forget_unread(all, plan, std::move(forgotten));
}

// Loop bounds read in the reverse (NodePlan::bounds_in_reverse): a counted loop `for (i = s; i < E;
// i += k)` (or `i <= E - 1`) without jumps, whose s and E read no memory, call nothing and read no variable the loop
// assigns, runs (E - s) / k times (rounded up, at least 0) from s. So its reverse evaluates s and
// that trip count again instead of popping two integers per execution, when the variables they
// read hold there what they held when the loop started: they are registered as read by the loop,
// so they are kept, taped, recomputed or (enclosing loops' counters) rebuilt like any value the
// reverse reads. A matmul's inner loop thus stores nothing per output element. The comparison
// must be signed (an unsigned `i < E` does not count from s to E), and the loop must have some
// active statement (otherwise registering its bounds only costs tape).
void plan_loop_bounds(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan) {
  for (Node* loop : all) {
    const Expr* bound = loop->end ? loop->end : loop->last;
    if (loop->kind != NodeKind::Loop || !loop->counter || !bound || loop->parallel || loop->step <= 0 ||
        !loop->jumps.empty())
      continue;
    auto* cond = dyn_cast<BinaryOperator>(loop->cond->IgnoreParenImpCasts());
    if (!cond || !cond->getLHS()->getType()->isSignedIntegerType() || !loop->counter->type->isSignedIntegerType() ||
        !invariant_in(ir, loop->start, loop, all) || !invariant_in(ir, bound, loop, all))
      continue;
    std::vector<Var*> vars;
    variables_read(ir, loop->start, vars);
    variables_read(ir, bound, vars);
    // A call in the loop receiving one of them by reference could change it.
    bool jumps = false, active = false, passed = false;
    for_each_node(loop->body, [&](const Node* n) {
      jumps |= n->kind == NodeKind::Jump;
      active |= plan[n].active;
      if (n->kind == NodeKind::Call)
        for (AdArg a : ad_args(n->call)) passed |= std::find(vars.begin(), vars.end(), ir.var(a.expr)) != vars.end();
    });
    if (jumps || !active || passed) continue;
    plan[loop].bounds_in_reverse = true;
    for (Var* v : vars) plan.read(loop, v);
  }
}

// Branch conditions evaluated again in the reverse (NodePlan::cond_in_reverse) instead of recorded: an
// `if` whose condition reads only integer variables that neither branch assigns (the reverse
// evaluates it before undoing the branch), around active statements and no jumps. Its variables
// are registered as read by the `if`, so they hold in the reverse what they held in the forward
// (a causal mask's `t2 <= t` reads two loop counters and costs nothing).
void plan_branch_conditions(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan) {
  for (Node* branch : all) {
    std::vector<Var*> vars;
    if (branch->kind != NodeKind::If || !reads_only_integers(ir, branch->cond, vars)) continue;
    bool active = false, unchanged = true;
    auto visit = [&](const Node* n) {
      active |= plan[n].active;
      unchanged &= n->kind != NodeKind::Jump;
      for (const Var* v : vars) {
        unchanged &=
            !(n->kind == NodeKind::Assign && n->target == v) && !(n->kind == NodeKind::Loop && n->counter == v);
        if (n->kind == NodeKind::Call)
          for (AdArg a : ad_args(n->call)) unchanged &= ir.var(a.expr) != v;
      }
    };
    for_each_node(branch->then_node, visit);
    for_each_node(branch->else_node, visit);
    if (!active || !unchanged) continue;
    plan[branch].cond_in_reverse = true;
    for (Var* v : vars) plan.read(branch, v);
  }
}

}  // namespace adjc
