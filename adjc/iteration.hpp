#pragma once
// Which elements each iteration of a loop owns: accesses `P[X + i]` (i the loop's counter) or rows
// `R[i * S + j]`, `p[j]` with `p = R + i * S`. When every access of a region in the statements
// concerned has one such form, no iteration reads what another wrote, which lets the tape plan
// skip saves, the emitter drop atomics, and the loop plans save in bulk or vectorise.

#include <set>
#include <utility>
#include <vector>

#include "classify.hpp"

namespace adjc {

struct TapePlan;

// Regions of pointer parameters whose elements each iteration of parallel loop `loop` has to
// itself: accessed only as `p[i]`, with `i` its counter; or only in assignments, each iteration
// elements of its own (rows, same_iteration_elements); or only read, at indices where the same
// iteration writes another pointer parameter (RoPE's `out[j] = inp[j] * c - inp[j + 1] * s` beside
// `out[j + 1] = ...`: the writes are race-free, so the reads are each iteration's own). Every
// thread touches only its own iterations' elements, so their adjoints need no atomics.
std::set<const Var*> counter_indexed_regions(const FunctionIR& ir, const Node* loop);

// Regions of pointer parameters that parallel loop `loop` only reads, every access `p[j]` with j
// the counter of a loop inside it from a constant >= 0 while below one bound S, the same in every
// iteration (a weight's `w[c]`, read by every row): the regions with S. Every iteration may add
// into any of the adjoint's first S elements, so each thread of the reverse loop adds into a zeroed
// copy of its own, summed into the adjoint after the loop (adjoint::detail::thread_sums) instead
// of by atomics. S can be evaluated before the reverse loop: its inner loop's bound is evaluated
// in the reverse anyway (NodePlan::bounds_in_reverse), or it reads only parameters nothing assigns.
std::vector<std::pair<const Var*, const clang::Expr*>> summed_regions(const FunctionIR& ir, const TapePlan& plan,
                                                                      const Node* loop);

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
// way (one P and X, or one row length), or as disjoint segments of rows (disjoint_row_segments).
bool same_iteration_elements(const FunctionIR& ir, const std::vector<const clang::Expr*>& accesses, const Node* loop,
                             const std::vector<Node*>& all);

// Whether `accesses` give each iteration of `loop` segments of every row of their region, different
// iterations disjoint ones (row_segments.cpp): each access is X·S + B + c·K + r, c the loop's counter
// below N, r in [0, K), with one row length S; 0 <= B, B + N·K <= S, and two accesses' segments
// [B, B + N·K) are the same or one ends before the other starts — a packed row's query heads
// g·G + j, key heads NKV·G + g and value heads NKV·G + NKV + g all iteration g's. The bounds are
// shown on polynomials: equal, or their difference a sum of products of loop bounds.
bool disjoint_row_segments(const FunctionIR& ir, const std::vector<const clang::Expr*>& accesses, const Node* loop,
                           const std::vector<Node*>& all);

// Whether `e` is provably >= 0: a constant >= 0, a counter counting up from such a value, or a sum
// or product of them.
bool provably_non_negative(const FunctionIR& ir, const clang::Expr* e, const std::vector<Node*>& all);

// Whether variable v keeps its value throughout `loop`: nothing in it assigns v or counts with it.
bool invariant_in_loop(const FunctionIR& ir, const Var* v, const Node* loop, const std::vector<Node*>& all);

// Whether `accesses` give each iteration of every loop enclosing both a and b elements of its own,
// the same way (same_iteration_elements in each shared loop).
bool same_elements_in_shared_loops(const FunctionIR& ir, const std::vector<const clang::Expr*>& accesses, const Node* a,
                                   const Node* b, const std::vector<Node*>& all);

// Whether every access of `region` in nodes a and b gives each iteration of every loop they share
// elements of its own, the same way (so one iteration never reads what another wrote).
bool disjoint_iterations(const FunctionIR& ir, const Node* a, const Node* b, const Var* region,
                         const std::vector<Node*>& all);

}  // namespace adjc
