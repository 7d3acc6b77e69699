// The tape plan's small phases (tape_plan.hpp); the pipeline (pipeline.cpp) runs them with the
// others, which are in tape_*.cpp and loop_plans.cpp.
#include <algorithm>
#include <optional>
#include <set>

#include "containers.hpp"
#include "tape_plan.hpp"

namespace adjc {

using namespace clang;

namespace {

// What a call does to numbers that adjc cannot see through (none when nothing): a library
// function writing them as untyped memory (memcpy, memset), or numbers carrying derivatives passed
// through a variadic function's `...`.
std::optional<Message> untracked_argument(const FunctionIR& ir, const Activity& full, const CallExpr* call,
                                          const std::vector<AdParam>& params, const std::vector<AdArg>& args) {
  const FunctionDecl* callee = call->getDirectCallee();
  const std::string name = quoted(callee->getQualifiedNameAsString());
  for (size_t i = 0; i < args.size(); ++i) {
    const Expr* arg = args[i].expr;
    QualType given = arg->IgnoreParenImpCasts()->getType();
    QualType element = given->isPointerType() ? given->getPointeeType()
                       : given->isArrayType() ? QualType(given->getPointeeOrArrayElementType(), 0)
                                              : QualType();
    if (i < params.size()) {
      QualType p = params[i].type;
      if (is_library(callee) && p->isPointerType() && p->getPointeeType()->isVoidType() &&
          !p->getPointeeType().isConstQualified() && !element.isNull() &&
          (is_floating(element) || element->isRecordType()) && memory_root(ir, arg))
        return Message{Diag::call_argument_not_followed, {name}};
    } else if (callee->isVariadic() && (!is_library(callee) || is_floating(call->getType())) &&
               (reads_varied(ir, full, arg) || (!element.isNull() && full.of(memory_root(ir, arg))))) {
      return Message{Diag::call_varied_through_ellipsis, {name}};
    }
  }
  return std::nullopt;
}

// Rejections that depend on activity: calls of functions with no derivative. A condition's
// value carries no derivative (the reverse replays the recorded branch), so a call there needs
// none when it writes nothing. (A cast of an active value to an integer or bool is accepted: its
// derivative is zero, as trunc's is.)
void check_expression(const FunctionIR& ir, const Activity& full, const Expr* e, bool condition, Diagnostics& diags) {
  if (!e) return;
  e = strip(e, ir.unit);  // the `std::move` a copy by members stands for is no call
  if (auto* call = dyn_cast<CallExpr>(e);
      call && call->getDirectCallee() && math_function(call) == MathFn::None && !ir.hoisted.count(call) &&
      !is_sizing_call(call, ir.unit)) {
    const FunctionDecl* callee = call->getDirectCallee();
    std::vector<AdParam> params = ad_params(callee);
    std::vector<AdArg> args = ad_args(call);
    if (const auto untracked = untracked_argument(ir, full, call, params, args)) {
      diags.error(call->getBeginLoc(), *untracked);
      return;
    }
    // A function returning a pointer into its argument's array computes an offset (pointer_results.hpp).
    bool needs_derivative = !derivative_free(callee) && !ir.unit.pointer_results.count(callee->getCanonicalDecl()) &&
                            (writes_through_parameters(callee) || !condition);
    for (size_t i = 0; i < args.size() && i < params.size() && needs_derivative; ++i)
      if (arg_varied(ir, full, params[i].type, args[i].expr)) {
        diags.error(call->getBeginLoc(), Diag::no_derivative, {no_derivative(callee, ir.unit)});
        break;
      }
  }
  for (const Stmt* c : e->children()) check_expression(ir, full, dyn_cast_or_null<Expr>(c), condition, diags);
}

}  // namespace

void check_derivatives(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all, Diagnostics& diags) {
  for (const Node* n : all) {
    if (n->kind == NodeKind::Assign) {
      check_expression(ir, full, n->rhs, false, diags);
    } else if (n->kind == NodeKind::Call) {
      // A hoisted call (a struct result, arguments it writes) of a function without a body.
      const FunctionDecl* callee = n->call->getDirectCallee();
      if (const auto untracked = untracked_argument(ir, full, n->call, ad_params(callee), ad_args(n->call)))
        diags.error(n->call->getBeginLoc(), *untracked);
      else if (ir.hoisted.count(n->call) && callee_kind(callee, ir.unit) == CalleeKind::Plain &&
          !derivative_free(callee) && call_active(ir, full, n))
        diags.error(n->call->getBeginLoc(), Diag::no_derivative, {no_derivative(callee, ir.unit)});
      for (AdArg a : ad_args(n->call)) check_expression(ir, full, a.expr, false, diags);
    } else if (n->kind == NodeKind::If || n->kind == NodeKind::Loop) {
      check_expression(ir, full, n->cond, true, diags);
    }
  }
}

// Regions some statement writes: by assignment, through a call's pointer or reference, or as a
// call's struct result.
std::set<Var*> written_regions(const FunctionIR& ir, const std::vector<Node*>& all) {
  std::set<Var*> written;
  for (Node* n : all) {
    if (n->kind == NodeKind::Assign && n->memory_root) written.insert(n->memory_root);
    if (n->kind == NodeKind::Call && n->result && n->result->memory) written.insert(n->result);
    if (n->kind == NodeKind::Call && ir.hoisted.count(n->call)) {
      std::vector<AdParam> params = ad_params(n->call->getDirectCallee());
      std::vector<AdArg> args = ad_args(n->call);
      for (size_t i = 0; i < args.size() && i < params.size(); ++i)
        if (is_written_param(params[i].type))
          if (Var* r = memory_root(ir, args[i].expr)) written.insert(r);
    }
  }
  return written;
}

// Locals of a jump-free loop's body are private to its iterations.
IterationLocals find_iteration_locals(const FunctionIR& ir) {
  IterationLocals iteration;
  iteration.loop.assign(ir.vars.size(), nullptr);
  for (auto& vp : ir.vars) {
    const Var* v = vp.get();
    Node* loop = v->block ? v->block->parent : nullptr;
    if ((v->kind == VarKind::Local || v->kind == VarKind::CallResult) && !v->memory && !v->counter && loop &&
        loop->kind == NodeKind::Loop && loop->body == v->block && loop->jumps.empty())
      iteration.loop[v->index] = loop;
  }
  return iteration;
}

// Variables whose value at the end of the forward sweep is pushed there and popped at the start
// of the reverse (VarPlan::kept).
void plan_kept(const FunctionIR& ir, const std::set<Var*>& written, const IterationLocals& iteration, TapePlan& plan) {
  for (auto& vp : ir.vars) {
    Var* v = vp.get();
    bool assigned_param = v->kind == VarKind::Param && v->assignments > 0;
    plan[v].kept = plan[v].read_in_reverse && !plan[v].recompute && !v->counter && !iteration.of(v) &&
                   (v->kind == VarKind::Local || v->kind == VarKind::CallResult || assigned_param) &&
                   (!v->memory || written.count(v));
  }
  // The reverse frees a heap array, and sizes its adjoint by its element count.
  for (auto& v : ir.vars)
    if (v->heap) {
      plan[v.get()].kept = true;
      if (v->heap_size) plan[v->heap_size].kept = true;
    }
}

// Which nodes have reverse code (NodePlan::reverse).
bool mark_reverse(const Node* n, TapePlan& plan) {
  if (!n) return false;
  NodePlan& p = plan[n];
  bool r = false;
  switch (n->kind) {
    case NodeKind::Assign: r = p.active || p.save; break;
    case NodeKind::Call: r = p.active || p.save || !p.taped_regions.empty(); break;
    case NodeKind::Jump: r = true; break;
    case NodeKind::Block:
      for (Node* c : n->children) r |= mark_reverse(c, plan);
      break;
    case NodeKind::If:
      r = mark_reverse(n->then_node, plan);
      r |= mark_reverse(n->else_node, plan);
      break;
    case NodeKind::Loop:
      r = mark_reverse(n->body, plan);
      r |= mark_reverse(n->inc, plan);
      break;
  }
  p.reverse = r;
  return r;
}

// What the reverse of a parallel loop cannot do: call differentiated functions, or restore a
// reduction variable (its threads held partial sums, in copies the reverse does not have).
void check_parallel_loops(const FunctionIR& ir, const TapePlan& plan, Diagnostics& diags) {
  for (Node* loop : ir.parallel_loops)
    for_each_node(loop->body, [&](Node* n) {
      if (n->kind == NodeKind::Call && plan[n].active) diags.error(n->loc, Diag::unsupported_call_in_parallel_loop);
      if (n->kind == NodeKind::Assign && plan[n].save &&
          std::count(loop->reductions.begin(), loop->reductions.end(), n->target))
        diags.error(n->loc, Diag::reduction_initial_value_read, {n->target->source_name()});
    });
}

}  // namespace adjc
