#pragma once
// Which elements each iteration of a loop owns: accesses `P[X + i]` (i the loop's counter) or rows
// `R[i * S + j]`, `p[j]` with `p = R + i * S`. When every access of a region in the statements
// concerned has one such form, no iteration reads what another wrote, which lets the tape plan
// skip saves, the emitter drop atomics, and the loop plans save in bulk or vectorise.

#include <set>
#include <vector>

#include "classify.hpp"

namespace adjc {

// Regions that parallel loop `loop` only ever accesses as `p[i]`, with `i` its counter and `p` a
// pointer parameter: every thread touches only its own iterations' elements, so their adjoints
// can be accumulated without atomics.
std::set<const Var*> counter_indexed_regions(const FunctionIR& ir, const Node* loop);

// Whether a and b are the same expression (both null counts).
bool same_expr(const FunctionIR& ir, const clang::Expr* a, const clang::Expr* b);

// Whether `e` has the same value in every iteration of `loop`: no calls, no memory reads, and no
// variable that the loop assigns.
bool invariant_in(const FunctionIR& ir, const clang::Expr* e, const Node* loop, const std::vector<Node*>& all);

// `P[i]` or `P[X + i]` / `P[i + X]` with i the counter of `loop` and P a pointer variable: P and X.
bool counter_access(const FunctionIR& ir, const clang::Expr* e, const Node* loop, const clang::Expr*& pointer,
                    const clang::Expr*& offset);

// The subscripts `...[...]` of `region` in the assignments `nodes`, appended to `out`; false when
// the region is also mentioned otherwise (a pointer passed on, dereferenced, or offset).
bool region_subscripts(const FunctionIR& ir, const std::vector<const Node*>& nodes, const Var* region,
                       std::vector<const clang::Expr*>& out);

// Whether every one of `accesses` gives each iteration of `loop` elements of its own, all the same
// way (one P and X, or one row length).
bool same_iteration_elements(const FunctionIR& ir, const std::vector<const clang::Expr*>& accesses, const Node* loop,
                             const std::vector<Node*>& all);

// Whether every access of `region` in nodes a and b gives each iteration of every loop they share
// elements of its own, the same way (so one iteration never reads what another wrote).
bool disjoint_iterations(const FunctionIR& ir, const Node* a, const Node* b, const Var* region,
                         const std::vector<Node*>& all);

}  // namespace adjc
