#pragma once
// The phases of the tape plan (what the reverse sweep reads, and which overwrites it tapes), run
// in the order of the pipeline (pipeline.cpp); each file holds one job: tape_plan.cpp (the small
// phases: checks, written regions, kept variables, which nodes have reverse code), tape_reads.cpp
// (what the reverse reads), tape_recompute.cpp (what it computes again), tape_saves.cpp (what is
// taped, and results read back), loop_plans.cpp (bulk saves and vectorised reverse loops: one
// push_n/pop_n per loop instead of a push and a pop per element, `omp simd` with reductions).

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

// ----- checks and small phases (tape_plan.cpp)
// Rejects calls of functions without a derivative that receive varied values.
void check_derivatives(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all, Diagnostics& diags);
// Regions some statement writes: by assignment, through a call's pointer or reference, or as a
// call's struct result.
std::set<Var*> written_regions(const FunctionIR& ir, const std::vector<Node*>& all);
// Locals of a jump-free loop's body are private to its iterations.
IterationLocals find_iteration_locals(const FunctionIR& ir);
// Variables whose value at the end of the forward sweep is pushed there and popped at the start
// of the reverse (Var::kept).
void plan_kept(FunctionIR& ir, const std::set<Var*>& written, const IterationLocals& iteration);
// Which nodes have reverse code (Node::reverse); whether `n` has.
bool mark_reverse(Node* n);
// What the reverse of a parallel loop cannot do: call differentiated functions, or restore a
// reduction variable.
void check_parallel_loops(const FunctionIR& ir, Diagnostics& diags);

// ----- what the reverse sweep reads (tape_reads.cpp)
std::vector<ReadSite> find_reverse_reads(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all);
void plan_loop_bounds(const FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads);
void plan_branch_conditions(const FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads);

// ----- what it computes again (tape_recompute.cpp)
void plan_recomputation(FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads);

// ----- what is taped (tape_saves.cpp)
// Sets Node::save on an assignment whose old value the reverse reads; returns the read (nullptr: none).
const ReadSite* plan_assignment_save(const FunctionIR& ir, Node* n, const std::vector<ReadSite>& reads,
                                     const std::vector<Node*>& all, const IterationLocals& iteration);
void plan_call_save(const FunctionIR& ir, Node* n, const std::vector<ReadSite>& reads, const std::vector<Node*>& all,
                    const IterationLocals& iteration, Diagnostics& diags);
bool passes_region_to_call(const FunctionIR& ir, const Node* n, const Var* region);
bool result_in_target(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all);
// What calls do with the memory their pointer and reference arguments point to, from the callee's
// CallSummary (classify.hpp): whether the reverse of `call` reads the memory of its argument `i` as
// the reverse finds it, and whether the call writes it. A call without a summary (a custom pullback,
// a recursion, no body) reads what it receives and writes what it receives by non-const pointer or
// reference.
bool call_reads_memory(const clang::CallExpr* call, size_t i, const UnitFacts& unit);
bool call_writes_memory(const clang::CallExpr* call, size_t i, const UnitFacts& unit);
// Records `ir`'s CallSummary in its unit's facts, for its callers.
void record_call_summary(const FunctionIR& ir, const std::vector<ReadSite>& reads, const std::vector<Node*>& all);

// ----- loop plans (loop_plans.cpp)
// Why the loop plans left each loop out, in words (`--remarks`).
struct LoopPlanNotes {
  std::map<const Node*, std::string> not_bulk;  // loops whose taped write is not saved in bulk
  std::map<const Node*, std::string> not_simd;  // loops with reverse code not marked `omp simd`
};
// Sets Node::bulk and the loop's bulk_* fields for the loops whose one taped write can be saved
// in bulk.
void plan_bulk_saves(const FunctionIR& ir, const std::vector<Node*>& all, const std::vector<ReadSite>& reads,
                     const IterationLocals& iteration, LoopPlanNotes& notes);
// Sets Node::simd_reverse and simd_sums for the loops whose reverse may be vectorised.
void plan_simd_reverse(FunctionIR& ir, const Activity& full, const std::vector<Node*>& all, LoopPlanNotes& notes);

}  // namespace adjc
