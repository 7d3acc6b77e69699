#pragma once
// The phases of the tape plan (what the reverse sweep reads, and which overwrites it tapes), run
// in the order of the pipeline (pipeline.cpp); each file holds one job: tape_plan.cpp (the small
// phases: checks, written regions, kept variables, which nodes have reverse code), tape_reads.cpp
// (what the reverse reads), tape_recompute.cpp (what it computes again), tape_saves.cpp (what is
// taped, and results read back), loop_plans.cpp (bulk saves and vectorised reverse loops: one
// push_n/pop_n per loop instead of a push and a pop per element, `omp simd` with reductions).
// The phases hand their decisions on in two result objects, TapePlan and LoopPlans, which
// emission reads; the IR itself stays as lowering built it.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "passes.hpp"

namespace adjc {

// Reverse code of `node` reads `var`.
struct ReadSite {
  const Node* node;
  Var* var;
};

// The tape plan's decisions for one node (TapePlan, by Node::order).
struct NodePlan {
  bool active = false;   // has adjoint work under full activity
  bool save = false;     // Assign: push the old target first; Call: its old result (a refill: the vector)
  bool reverse = false;  // the reverse sweep has code for it
  // Assign `m[...] = exp/tanh/sqrt(x)`: when its reverse runs, m[...] still holds the call's value
  // (every later write to the region is taped), so the reverse reads it instead of calling again.
  bool result_in_target = false;
  // Assign `m[...] *= r` or `m[...] /= s` that would be taped: the reverse undoes it instead, by the
  // inverse operation (undone_by_inverse), and the forward pushes nothing.
  bool undone_by_inverse = false;
  // Loop: its start and trip count are evaluated again in the reverse (from the variables the
  // bounds read, which the plan keeps readable there) instead of being pushed per execution.
  bool bounds_in_reverse = false;
  // If: its condition is evaluated again in the reverse instead of being recorded (a causal
  // mask's `t2 <= t`): it reads only integers that hold there what they held in the forward.
  bool cond_in_reverse = false;
  // Loop `for (...) s += e;` summing into a recomputed local s (`s = 0` before it): the reverse
  // runs it again after recomputing s's definition.
  Var* recomputed_sum = nullptr;
  // Call: memory it overwrites that the reverse of earlier code reads (a local or a reference
  // parameter of numbers): the forward tapes it whole before the call, the reverse restores it
  // after the call's pullback.
  std::vector<Var*> taped_regions;
};

// The tape plan's decisions for one variable (TapePlan, by Var::index).
struct VarPlan {
  bool read_in_reverse = false;  // some reverse code reads its value (or memory)
  bool recompute = false;        // the reverse re-evaluates its definition instead of taping
  bool kept = false;             // pushed at the end of the forward sweep, popped at the reverse's start
};

// What the reverse sweep reads, and how each value it reads gets there (taped, recomputed,
// kept, evaluated again), under full activity: made by find-reverse-reads, completed by the
// tape plan's passes after it (pipeline.cpp), read by emission.
struct TapePlan {
  std::vector<NodePlan> nodes;  // by Node::order
  std::vector<VarPlan> vars;    // by Var::index
  std::vector<ReadSite> reads;  // what the reverse sweep reads, where

  NodePlan& operator[](const Node* n) { return nodes[n->order]; }
  const NodePlan& operator[](const Node* n) const { return nodes[n->order]; }
  VarPlan& operator[](const Var* v) { return vars[v->index]; }
  const VarPlan& operator[](const Var* v) const { return vars[v->index]; }
  // Reverse code of `n` reads `v`: v is read in the reverse.
  void read(const Node* n, Var* v) {
    vars[v->index].read_in_reverse = true;
    reads.push_back({n, v});
  }
};

// A loop's bulk save: its one taped write `P[X + i] = ...` (i its counter, X optional) pushes
// P[X + start .. X + end) before the loop and pops them around its reverse, instead of a push
// and a pop per iteration.
struct BulkSave {
  const Node* write;           // the assignment
  const clang::Expr* pointer;  // P
  const clang::Expr* offset;   // X, or nullptr
  bool restore_first;          // the reverse reads the old values: restore before it
};

// The loop plans (loop_plans.cpp): bulk saves, vectorised reverse loops, and why the other loops
// have neither, in words (`--remarks`).
struct LoopPlans {
  std::map<const Node*, BulkSave> bulk;  // by loop
  // Loops whose reverse iterations share nothing but sums into the adjoints of the outer scalars
  // they read: the reverse loop is marked `omp simd` with those sums as reductions (none: a loop
  // without sums writing the adjoints of two or more arrays, loop_plans.cpp).
  std::map<const Node*, std::vector<Var*>> simd_sums;
  std::map<const Node*, std::string> not_bulk;  // loops whose taped write is not saved in bulk
  std::map<const Node*, std::string> not_simd;  // loops with reverse code not marked `omp simd`

  const BulkSave* bulk_of(const Node* loop) const {
    auto it = bulk.find(loop);
    return it == bulk.end() ? nullptr : &it->second;
  }
  // Whether assignment `n` is saved by its loop's bulk save (not by a push of its own).
  bool saved_in_bulk(const Node* n) const {
    const BulkSave* b = n->loops.empty() ? nullptr : bulk_of(n->loops.back());
    return b && b->write == n;
  }
  const std::vector<Var*>* simd_of(const Node* loop) const {
    auto it = simd_sums.find(loop);
    return it == simd_sums.end() ? nullptr : &it->second;
  }
};

// ----- checks and small phases (tape_plan.cpp)
// Rejects calls of functions without a derivative that receive varied values.
void check_derivatives(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all, Diagnostics& diags);
// Regions some statement writes: by assignment, through a call's pointer or reference, or as a
// call's struct result.
std::set<Var*> written_regions(const FunctionIR& ir, const std::vector<Node*>& all);
// Locals of a jump-free loop's body are private to its iterations.
IterationLocals find_iteration_locals(const FunctionIR& ir);
// Variables whose value at the end of the forward sweep is pushed there and popped at the start
// of the reverse (VarPlan::kept).
void plan_kept(const FunctionIR& ir, const std::set<Var*>& written, const IterationLocals& iteration, TapePlan& plan);
// Which nodes have reverse code (NodePlan::reverse); whether `n` has.
bool mark_reverse(const Node* n, TapePlan& plan);
// What the reverse of a parallel loop cannot do: call differentiated functions, or restore a
// reduction variable.
void check_parallel_loops(const FunctionIR& ir, const TapePlan& plan, Diagnostics& diags);

// ----- what the reverse sweep reads (tape_reads.cpp)
// The plan, with which nodes have adjoint work (NodePlan::active) and what their reverse reads.
TapePlan find_reverse_reads(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all);
void plan_loop_bounds(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan);
void plan_branch_conditions(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan);

// Whether the derivative of `e` with respect to what it reads needs no value (`z[v] - maxval`).
bool linear_with_constant_coefficients(const FunctionIR& ir, const clang::Expr* e);
// Drops the reads of an operand whose result the reverse reads back from its target instead.
void forget_operand_reads(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan);

// ----- what it computes again (tape_recompute.cpp)
void plan_recomputation(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan);
// Whether `e` calls a transcendental math function not declared SIMD-callable (dearer than taping
// its result).
bool calls_transcendental(const clang::Expr* e);

// ----- what is taped (tape_saves.cpp)
// Sets NodePlan::save on an assignment whose old value the reverse reads; returns the read (nullptr: none).
const ReadSite* plan_assignment_save(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all,
                                     const IterationLocals& iteration, TapePlan& plan);
void plan_call_save(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all,
                    const IterationLocals& iteration, TapePlan& plan, Diagnostics& diags);
bool passes_region_to_call(const FunctionIR& ir, const Node* n, const Var* region);
bool result_in_target(const FunctionIR& ir, const TapePlan& plan, const Node* n, const std::vector<Node*>& all);
bool result_in_scalar_target(const FunctionIR& ir, const TapePlan& plan, const IterationLocals& iteration,
                             const Node* n);
// Untapes an exponential in place whose result is read back (`p[k] = std::exp(p[k] - m)`) when only
// its own reverse read the value it overwrites, and only for the result: reading the result instead,
// nothing needs the old one. Kept when its own derivative needs the old value (`p[k] =
// std::tanh(2 * std::tanh(p[k]))`: the inner tanh's), or another result read back or scale undone
// would then find its target changed.
void untape_results_in_place(const FunctionIR& ir, const std::vector<Node*>& all, const IterationLocals& iteration,
                             TapePlan& plan);
bool undone_by_inverse(const FunctionIR& ir, const TapePlan& plan, const Node* n, const std::vector<Node*>& all);
// What calls do with the memory their pointer and reference arguments point to, from the callee's
// CallSummary (classify.hpp): whether the reverse of `call` reads the memory of its argument `i` as
// the reverse finds it, and whether the call writes it. A call without a summary (a custom pullback,
// a recursion, no body) reads what it receives, but what its custom pullback leaves unused, and writes
// what it receives by non-const pointer or reference.
bool call_reads_memory(const clang::CallExpr* call, size_t i, const UnitFacts& unit);
bool call_writes_memory(const clang::CallExpr* call, size_t i, const UnitFacts& unit);
// Records `ir`'s CallSummary in its unit's facts, for its callers.
void record_call_summary(const FunctionIR& ir, const TapePlan& plan, const LoopPlans& loops,
                         const std::vector<Node*>& all);

// ----- loop plans (loop_plans.cpp)
// The loops whose one taped write can be saved in bulk (and why the others cannot).
LoopPlans plan_bulk_saves(const FunctionIR& ir, const std::vector<Node*>& all, const TapePlan& plan,
                          const IterationLocals& iteration);
// The loops whose reverse may be vectorised, with their sums (and why the others may not).
void plan_simd_reverse(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all, const TapePlan& plan,
                       LoopPlans& loops);

}  // namespace adjc
