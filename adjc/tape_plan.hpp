#pragma once
// The phases of the tape plan (plan_tape, passes.hpp), in the order tape_plan.cpp runs them; each
// file holds one job: tape_reads.cpp (what the reverse reads), tape_recompute.cpp (what it computes
// again), tape_saves.cpp (what is taped, and results read back), loop_plans.cpp (bulk saves and
// vectorised reverse loops: one push_n/pop_n per loop instead of a push and a pop per element,
// `omp simd` with reductions).

#include <vector>

#include "passes.hpp"

namespace adjc {

// Reverse code of `node` reads `var`.
struct ReadSite {
  const Node* node;
  Var* var;
};

// ----- what the reverse sweep reads (tape_reads.cpp)
std::vector<ReadSite> find_reverse_reads(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all);
void plan_loop_bounds(const FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads);
void plan_branch_conditions(const FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads);

// ----- what it computes again (tape_recompute.cpp)
void plan_recomputation(FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads);

// ----- what is taped (tape_saves.cpp)
void plan_assignment_save(const FunctionIR& ir, Node* n, const std::vector<ReadSite>& reads,
                          const std::vector<Node*>& all);
void plan_call_save(const FunctionIR& ir, Node* n, const std::vector<ReadSite>& reads, const std::vector<Node*>& all,
                    Diagnostics& diags);
bool passes_region_to_call(const FunctionIR& ir, const Node* n, const Var* region);
bool result_in_target(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all);
// What calls do with the memory their pointer and reference arguments point to, from the callee's
// CallSummary (classify.hpp): whether the reverse of `call` reads the memory of its argument `i` as
// the reverse finds it, and whether the call writes it. A call without a summary (a custom pullback,
// a recursion, no body) reads what it receives and writes what it receives by non-const pointer or
// reference.
bool call_reads_memory(const clang::CallExpr* call, size_t i, const UnitFacts& unit);
bool call_writes_memory(const clang::CallExpr* call, size_t i, const UnitFacts& unit);
// Records `ir`'s CallSummary in its unit's facts, for its callers (the last phase of plan_tape).
void record_call_summary(const FunctionIR& ir, const std::vector<ReadSite>& reads, const std::vector<Node*>& all);

// ----- loop plans (loop_plans.cpp)
// Sets Node::bulk and the loop's bulk_* fields for the loops whose one taped write can be saved
// in bulk.
void plan_bulk_saves(const FunctionIR& ir, const std::vector<Node*>& all, const std::vector<ReadSite>& reads);
// Sets Node::simd_reverse and simd_sums for the loops whose reverse may be vectorised.
void plan_simd_reverse(FunctionIR& ir, const Activity& full, const std::vector<Node*>& all);

}  // namespace adjc
