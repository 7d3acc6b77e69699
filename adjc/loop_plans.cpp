// Loop plans: bulk saves and vectorised reverse loops (tape_plan.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>

#include "iteration.hpp"
#include "tape_plan.hpp"

namespace adjc {

using namespace clang;

// Bulk saves: a straight loop `for (i = s; i < E; i++)` (assignments only, no jumps, not in a
// parallel loop) whose one saved write `P[X + i] = ...` is the loop's only write to its region,
// and that touches the region only as P[X + i] (P, X and E the same in every iteration). Then
// iteration i overwrites exactly the element P[X + i] held before the loop, and its reverse reads
// no other iteration's element, so one push of P[X + s .. X + E) before the loop and one pop
// restore what a push and a pop per iteration would: before the reverse loop when the reverse
// reads the old values (reads at or before the write), after it when it reads the new ones.
namespace {

// Why `loop`'s taped write cannot be saved in bulk ("" when it can: then `save` is its bulk save).
std::string plan_bulk_save(const FunctionIR& ir, const Node* loop, const std::vector<Node*>& all, const TapePlan& plan,
                           const IterationLocals& iteration, BulkSave& save) {
  if (!loop->counter || loop->step != 1 || !loop->jumps.empty() || loop->parallel || loop->inc)
    return "it is not a loop `for (i = s; i < E; i++)` without break or continue";
  for (const Node* l : loop->loops)
    if (l->parallel) return "it is inside an OpenMP parallel loop";
  if (!loop->end || !invariant_in(ir, loop->end, loop, all)) return "its end may change while it runs";
  // Nothing else in the loop pushes: its only saved node is the write.
  std::vector<Node*> saved;
  bool straight = true;
  for (Node* n : loop->body->children) {
    straight &= n->kind == NodeKind::Assign;
    if (plan[n].save) saved.push_back(n);
  }
  if (!straight) return "its body holds more than assignments";
  for (auto& v : ir.vars)
    if (iteration.of(v.get()) == loop && plan[v.get()].read_in_reverse && !plan[v.get()].recompute)
      return "local '" + v->source_name() + "' of its body is taped in each iteration";
  if (saved.size() != 1) return saved.empty() ? "nothing in it is taped" : "it tapes more than one write";
  Node* write = saved[0];
  if (!write->memory_root || !write->lhs || !is_floating(write->lhs->getType()))
    return "its taped write is not to an element of floating memory";
  const Var* region = write->memory_root;
  const Expr *pointer, *offset;
  if (!counter_access(ir, write->lhs, loop, pointer, offset) || !invariant_in(ir, pointer, loop, all) ||
      (offset && !invariant_in(ir, offset, loop, all)))
    return "its taped write is not to P[X + i], with P and X the same in every iteration";
  // Every access of the region is the write's P[X + i] (the body has no inner loop, so no row
  // form); any other mention of it (another index, the pointer passed on, a second write)
  // disqualifies the loop.
  std::vector<const Node*> body(loop->body->children.begin(), loop->body->children.end());
  std::vector<const Expr*> accesses;
  bool only_counter = region_subscripts(ir, body, region, accesses) && same_iteration_elements(ir, accesses, loop, all);
  for (const Node* n : body) only_counter &= n == write || n->memory_root != region;
  if (!only_counter) return "'" + region->source_name() + "' is used in it other than as that write's P[X + i]";
  bool reads_old = false, reads_new = plan[write].result_in_target;
  for (const ReadSite& r : plan.reads)
    if (r.var == region && inside(r.node, loop)) (r.node->order <= write->order ? reads_old : reads_new) = true;
  if (reads_old && reads_new) return "its reverse reads both the old and the new values of what it writes";
  save = {write, pointer, offset, reads_old};
  return "";
}

}  // namespace

LoopPlans plan_bulk_saves(const FunctionIR& ir, const std::vector<Node*>& all, const TapePlan& plan,
                          const IterationLocals& iteration) {
  LoopPlans loops;
  for (const Node* loop : all) {
    if (loop->kind != NodeKind::Loop) continue;
    BulkSave save{};
    if (std::string why = plan_bulk_save(ir, loop, all, plan, iteration, save); !why.empty())
      loops.not_bulk[loop] = why;
    else loops.bulk[loop] = save;
  }
  return loops;
}

namespace {

// The assignments of `block` and of the blocks inside it; false when it holds anything else.
bool straight_assignments(const Node* block, std::vector<const Node*>& out) {
  for (const Node* c : block->children) {
    if (c->kind == NodeKind::Block) {
      if (!straight_assignments(c, out)) return false;
    } else if (c->kind == NodeKind::Assign) {
      out.push_back(c);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

// Vectorised reverse loops. The reverse of a straight counted loop (assignments only, not parallel)
// may run its iterations in any order, and so be marked `omp simd`, when they share nothing but
// sums into the adjoints of outer scalars that the loop reads:
//  - it pops nothing per iteration (a bulk save's pop_n is outside the loop), so primal memory
//    stays as it is while the reverse loop runs, and its locals are recomputed, not taped;
//  - every region with an adjoint is accessed only as P[X + i], so each iteration accumulates into
//    its own adjoint elements (distinct parameters do not alias, as everywhere in adjc);
//  - outer scalars it writes are only accumulated (`s += ...`) and not read in it: the reverse
//    only reads their adjoints;
//  - the outer floating scalars it reads get sums: each is a local, or an assigned parameter (whose
//    adjoint is a local accumulator), and private to the enclosing parallel loop's thread, as the
//    adjoints of regions are, or their threads' copies (no atomics, which `omp simd` does not allow).
// Loops with such sums are marked, and so are loops without sums whose reverse writes the
// adjoints of two or more arrays: the compiler vectorises those only after checking at run time
// that the arrays do not overlap, a check that fails, leaving the loop scalar, when the caller
// passes one array for both elementwise (the models' probabilities written over their logits).
// Other straight loops vectorise without being told.
namespace {

// Why `loop`'s reverse may not run its iterations in any order ("" when it may; then `sums` are
// the outer scalars whose adjoints it sums into, and `adjoint_regions` counts the arrays whose
// adjoints it accesses).
std::string simd_obstacle(const FunctionIR& ir, const Activity& full, const Node* loop, const std::vector<Node*>& all,
                          const TapePlan& plan, const LoopPlans& loops, std::vector<Var*>& sums,
                          int& adjoint_regions) {
  std::vector<const Node*> body;
  if (!straight_assignments(loop->body, body)) return "its body holds calls, branches or inner loops";
  const Node* parallel = nullptr;
  for (const Node* l : loop->loops)
    if (l->parallel) parallel = l;
  std::vector<Var*> read;
  std::set<const Var*> accumulated;
  for (const Node* n : body) {
    if (plan[n].save && !loops.saved_in_bulk(n))
      return "each iteration's reverse pops a value it taped (a save not made in bulk)";
    variables_read(ir, n->rhs, read);
    if (n->target && !declared_in(n->target, loop->body)) {
      if (n->op != BO_AddAssign && n->op != BO_SubAssign)
        return "it assigns '" + n->target->source_name() + "', declared outside it, other than by += or -=";
      accumulated.insert(n->target);
    } else if (!n->target) {
      variables_read(ir, n->lhs, read);
    }
  }
  for (auto& v : ir.vars)
    if (declared_in(v.get(), loop->body) &&
        !((!plan[v.get()].read_in_reverse || plan[v.get()].recompute) && !v->value && !v->memory))
      return "local '" + v->source_name() + "' of its body is taped, a value class or memory";
  std::set<const Var*> regions;
  for (Var* v : read) {
    if (v->memory || v->pointer) {
      if (Var* root = v->memory ? v : v->root) regions.insert(root);
      continue;
    }
    if (v == loop->counter || declared_in(v, loop->body) || !full.of(v)) continue;
    if (accumulated.count(v) || !v->floating || (v->kind == VarKind::Param && v->assignments == 0) ||
        v->parallel != parallel)
      return "the adjoint of '" + v->source_name() + "', which it reads, cannot be a sum private to the reverse loop";
    if (std::find(sums.begin(), sums.end(), v) == sums.end()) sums.push_back(v);
  }
  std::set<const Var*> partitioned;
  if (parallel) {
    partitioned = counter_indexed_regions(ir, parallel);
    for (auto [region, extent] : summed_regions(ir, plan, parallel)) partitioned.insert(region);
  }
  for (const Var* region : regions) {
    if (!full.of(region)) continue;
    ++adjoint_regions;
    if (parallel && region->parallel != parallel && !partitioned.count(region))
      return "the threads of the enclosing parallel loop share the adjoint of '" + region->source_name() + "'";
    // The body has no inner loop, so every access is P[X + i].
    std::vector<const Expr*> accesses;
    if (!region_subscripts(ir, body, region, accesses) || !same_iteration_elements(ir, accesses, loop, all))
      return "'" + region->source_name() + "' is accessed in it other than as P[X + i]";
  }
  return "";
}

}  // namespace

void plan_simd_reverse(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all, const TapePlan& plan,
                       LoopPlans& loops) {
  for (const Node* loop : all) {
    if (loop->kind != NodeKind::Loop || !plan[loop].reverse || !loop->counter || !loop->jumps.empty() ||
        loop->parallel || loop->inc)
      continue;
    std::vector<Var*> sums;
    int adjoint_regions = 0;
    if (std::string why = simd_obstacle(ir, full, loop, all, plan, loops, sums, adjoint_regions); !why.empty())
      loops.not_simd[loop] = why;
    else if (!sums.empty() || adjoint_regions > 1) loops.simd_sums[loop] = sums;
  }
}

}  // namespace adjc
