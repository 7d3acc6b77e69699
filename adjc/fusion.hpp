#pragma once
// Fusion of consecutive kernel calls (docs/adjc-internals.md, "Fusion"): find-kernel-loop
// (kernel_loop.cpp) summarises each callee whose body is one loop with independent iterations;
// find-fusible-calls (fusion.cpp) decides, for each call that reads memory the call just before it
// wrote, whether their loops fuse element by element or row by row, or why not.

#include <string>
#include <vector>

#include "classify.hpp"

namespace adjc {

// The KernelLoop of `ir` (classify.hpp): its refusal says why its body is not one.
KernelLoop find_kernel_loop(const FunctionIR& ir);

// One decision: `consumer` reads `intermediate`, which `producer` (the statement before it) writes.
struct FusionDecision {
  const Node* producer = nullptr;
  const Node* consumer = nullptr;
  std::string intermediate;  // the argument as written
  std::string space;         // fusible: "element by element" or "row by row"
  std::string refusal;       // why not ("" when fusible)
  // Fusible while the intermediate stays stored: the line of the first statement after the pair
  // that reads it again ("" when nothing else uses it).
  std::string kept_for;
  std::vector<std::pair<int, int>> links;  // (producer's, consumer's) parameters passing it
  const Node* fused = nullptr;             // fuse-kernel-calls: the call of the fused function
  std::string unfused;                     // fusible but not fused: why
};

// The decisions for every pair of consecutive calls in `ir` that pass one region from the first
// to the second, in pre-order.
std::vector<FusionDecision> find_fusible_calls(const FunctionIR& ir, const std::vector<Node*>& all);

struct FunctionState;  // pipeline.hpp
// Replaces each fusible pair it can generate code for by one call of a function made of both
// kernels (fuse_calls.cpp), recording it in the decision.
void fuse_kernel_calls(FunctionState& s);

}  // namespace adjc
