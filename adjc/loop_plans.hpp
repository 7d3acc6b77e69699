#pragma once
// Loop plans, the tape plan's last phases: bulk saves (one push_n/pop_n per loop instead of a
// push and a pop per element) and vectorised reverse loops (`omp simd` with reductions).

#include <vector>

#include "passes.hpp"

namespace adjc {

// Reverse code of `node` reads `var`.
struct ReadSite {
  const Node* node;
  Var* var;
};

// Sets Node::bulk and the loop's bulk_* fields for the loops whose one taped write can be saved
// in bulk.
void plan_bulk_saves(const FunctionIR& ir, const std::vector<Node*>& all, const std::vector<ReadSite>& reads);

// Sets Node::simd_reverse and simd_sums for the loops whose reverse may be vectorised.
void plan_simd_reverse(FunctionIR& ir, const Activity& full, const std::vector<Node*>& all);

}  // namespace adjc
