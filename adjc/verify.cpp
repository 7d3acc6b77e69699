// `--verify-each`: the invariants of the IR that the passes after lowering rely on, checked after
// every pass. Each check names what it found broken; the first broken one is reported.
#include "pipeline.hpp"

namespace adjc {

namespace {

struct Verifier {
  const FunctionState& state;
  const FunctionIR& ir;
  std::set<const Var*> vars;    // the function's table
  std::set<const Node*> nodes;  // the nodes it owns
  std::string broken;

  bool fail(const std::string& what) {
    if (broken.empty()) broken = what;
    return false;
  }
  static std::string at(const Node* n) { return "node #" + std::to_string(n->order); }

  bool declared(const Var* v, const std::string& where) {
    return !v || vars.count(v) || fail(where + " refers to a variable not in the function's table");
  }
  bool owned(const Node* n, const std::string& where) {
    return !n || nodes.count(n) || fail(where + " refers to a node the function does not own");
  }

  bool table() {
    for (size_t i = 0; i < ir.vars.size(); ++i)
      if (ir.vars[i]->index != int(i))
        return fail("variable '" + ir.vars[i]->name + "' has index " + std::to_string(ir.vars[i]->index) +
                    " at position " + std::to_string(i) + " of the table");
    for (const auto& [decl, v] : ir.var_of) declared(v, "var_of");
    for (const auto& [key, v] : ir.member_var) declared(v, "member_var");
    for (const auto& [call, v] : ir.call_result) declared(v, "call_result");
    for (const Var* v : ir.params) declared(v, "params");
    declared(ir.self, "self");
    declared(ir.ret, "the result");
    for (const auto& v : ir.vars) {
      const std::string where = "variable '" + v->name + "'";
      declared(v->root, where + "'s root");
      declared(v->heap_size, where + "'s heap size");
      owned(v->block, where + "'s block");
      owned(v->definition, where + "'s definition");
      owned(v->parallel, where + "'s parallel loop");
      const Node* loop = state.iteration.of(v.get());
      if (owned(loop, where + "'s iteration") && loop &&
          (loop->kind != NodeKind::Loop || !declared_in(v.get(), loop->body)))
        fail(where + " is private to the iterations of a node that is not the loop declaring it");
      if (v->param_index >= 0 && (size_t(v->param_index) >= ir.params.size() || ir.params[v->param_index] != v.get()))
        fail(where + " has parameter index " + std::to_string(v->param_index) + " but is not that parameter");
    }
    // The tape plan is indexed by Node::order and Var::index.
    if (!state.plan.nodes.empty() &&
        (state.plan.nodes.size() != state.all.size() || state.plan.vars.size() != ir.vars.size()))
      fail("the tape plan has " + std::to_string(state.plan.nodes.size()) + " nodes and " +
           std::to_string(state.plan.vars.size()) + " variables for " + std::to_string(state.all.size()) + " and " +
           std::to_string(ir.vars.size()));
    return broken.empty();
  }

  void references(const Node* n) {
    const std::string where = at(n);
    for (const Var* v : {n->target, n->memory_root, n->allocates, n->result, n->refilled, n->counter})
      declared(v, where);
    for (const Var* v : n->reductions) declared(v, where);
    owned(n->target_loop, where + "'s jump target");
    for (const Node* loop : n->loops)
      if (owned(loop, where + "'s enclosing loops") && (loop->kind != NodeKind::Loop || !inside(n, loop)))
        fail(where + " lists an enclosing loop " + at(loop) + " it is not inside");
  }

  void shape(const Node* n) {
    const std::string where = at(n);
    switch (n->kind) {
      case NodeKind::Assign:
        if (!n->target && !n->lhs) fail(where + " is an assignment without a target");
        break;
      case NodeKind::Call:
        if (!n->call) fail(where + " is a call node without a call");
        break;
      case NodeKind::If:
        if (!n->cond || !n->then_node) fail(where + " is an if without a condition or a branch");
        break;
      case NodeKind::Loop:
        if (!n->body) fail(where + " is a loop without a body");
        break;
      case NodeKind::Jump:
        if (n->jump != JumpKind::Return &&
            (!n->target_loop || n->target_loop->kind != NodeKind::Loop || !inside(n, n->target_loop)))
          fail(where + " is a break or continue outside the loop it leaves");
        break;
      case NodeKind::Block: break;
    }
  }

  // The tape plan's decisions only on the kinds of node the emitter reads them from.
  void plan(const Node* n) {
    if (state.plan.nodes.empty() || !broken.empty()) return;  // a node out of order has no entry
    const std::string where = at(n);
    const NodePlan& p = state.plan[n];
    bool assign = n->kind == NodeKind::Assign, loop = n->kind == NodeKind::Loop;
    if (p.save && !assign && n->kind != NodeKind::Call) fail(where + " is saved but neither assignment nor call");
    if (p.result_in_target && !assign) fail(where + " reads its result back from a target it does not have");
    if (!loop && (p.bounds_in_reverse || p.recomputed_sum)) fail(where + " carries a loop plan but is no loop");
    if (p.cond_in_reverse && n->kind != NodeKind::If) fail(where + " re-evaluates a condition but is no if");
    if (!p.taped_regions.empty() && n->kind != NodeKind::Call) fail(where + " tapes regions but is no call");
    if (p.reverse && n->parent && !state.plan[n->parent].reverse)
      fail(where + " has reverse code but its parent has none");
    declared(p.recomputed_sum, where + "'s recomputed sum");
    for (const Var* v : p.taped_regions) declared(v, where + "'s taped regions");
  }

  // The loop plans: each on a loop the function owns; a bulk save's write a saved assignment
  // directly in the loop's body.
  void loop_plans() {
    for (const auto& [loop, bulk] : state.loops.bulk) {
      if (!owned(loop, "a bulk save") || !owned(bulk.write, "a bulk save's write")) return;
      if (loop->kind != NodeKind::Loop) fail(at(loop) + " carries a loop plan but is no loop");
      if (bulk.write->kind != NodeKind::Assign || bulk.write->parent != loop->body || !state.plan[bulk.write].save)
        fail(at(loop) + "'s bulk write " + at(bulk.write) + " is not a saved assignment in its body");
    }
    for (const auto& [loop, sums] : state.loops.simd_sums) {
      if (!owned(loop, "a vectorised reverse loop")) return;
      if (loop->kind != NodeKind::Loop) fail(at(loop) + " carries a loop plan but is no loop");
      for (const Var* v : sums) declared(v, at(loop) + "'s sums");
    }
  }

  // Each fusion decision is about two calls, the second right after the first in one block; once
  // fused, the fused call stands in the block instead of them (and other decisions about them
  // are about calls no longer there).
  void fusions() {
    std::set<const Node*> fused_away;  // calls a fused call replaced
    for (const FusionDecision& d : state.fusions)
      if (d.fused) fused_away.insert({d.producer, d.consumer});
    for (const FusionDecision& d : state.fusions) {
      if (!owned(d.producer, "a fusion decision") || !owned(d.consumer, "a fusion decision")) return;
      if (d.fused) {
        const auto& siblings = d.fused->parent ? d.fused->parent->children : std::vector<Node*>{};
        if (d.fused->kind != NodeKind::Call || std::find(siblings.begin(), siblings.end(), d.fused) == siblings.end())
          fail("fusion " + at(d.producer) + " -> " + at(d.consumer) + " is fused into no call of the block");
        continue;
      }
      if (fused_away.count(d.producer) || fused_away.count(d.consumer)) continue;
      const Node* block = d.producer->parent;
      auto next = [&] {
        for (size_t i = 0; block && i + 1 < block->children.size(); i++)
          if (block->children[i] == d.producer) return block->children[i + 1];
        return static_cast<Node*>(nullptr);
      };
      if (d.producer->kind != NodeKind::Call || d.consumer->kind != NodeKind::Call || next() != d.consumer)
        fail("fusion " + at(d.producer) + " -> " + at(d.consumer) + " is not two consecutive calls of one block");
    }
  }

  void tree(const Node* n, const Node* parent, int& order) {
    if (!n || !broken.empty()) return;
    if (!owned(n, "the body")) return;
    if (n->parent != parent) fail(at(n) + "'s parent is not the node that holds it");
    if (!state.all.empty() && n->order != order) fail(at(n) + " is at pre-order position " + std::to_string(order));
    ++order;
    references(n);
    shape(n);
    plan(n);
    for (const Node* c : n->children) tree(c, n, order);
    for (const Node* c : {n->then_node, n->else_node, n->body, n->inc}) tree(c, n, order);
  }

  bool results() {
    if (!state.full.varied.empty() && state.full.varied.size() != ir.vars.size())
      return fail("the activity has " + std::to_string(state.full.varied.size()) + " entries for " +
                  std::to_string(ir.vars.size()) + " variables");
    for (const ReadSite& r : state.plan.reads) {
      declared(r.var, "a reverse read");
      owned(r.node, "a reverse read");
    }
    for (const Var* v : state.written) declared(v, "the written regions");
    if (!state.iteration.loop.empty() && state.iteration.loop.size() != ir.vars.size())
      return fail("the iteration locals have " + std::to_string(state.iteration.loop.size()) + " entries for " +
                  std::to_string(ir.vars.size()) + " variables");
    return broken.empty();
  }
};

}  // namespace

std::string verify_state(const FunctionState& state) {
  Verifier v{state, *state.ir, {}, {}, ""};
  for (const auto& var : state.ir->vars) v.vars.insert(var.get());
  for (const auto& node : state.ir->nodes) v.nodes.insert(node.get());
  int order = 0;
  if (v.table()) v.tree(state.ir->body, nullptr, order);
  if (v.broken.empty() && !state.all.empty() && size_t(order) != state.all.size())
    v.fail("the node list has " + std::to_string(state.all.size()) + " nodes, the body " + std::to_string(order));
  if (v.broken.empty() && v.results()) v.loop_plans();
  if (v.broken.empty()) v.fusions();
  return v.broken;
}

}  // namespace adjc
