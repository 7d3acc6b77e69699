#pragma once
// The pipeline: every pass adjc runs on a function, in one ordered list (pipeline.cpp), from the
// AST rewrites through lowering to the tape plan; and what the command line asks of it (printing,
// verifying and timing passes). Emission (emit*.cpp) then reads the planned IR per activity mask.

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fusion.hpp"
#include "tape_plan.hpp"

namespace adjc {

class Lowering;

// What the passes of one function hand each other: the IR and the analyses' results.
struct FunctionState {
  FunctionState(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context, Diagnostics& diags);
  ~FunctionState();

  clang::ASTContext& context;
  Diagnostics& diags;
  std::unique_ptr<FunctionIR> ir;
  std::unique_ptr<Lowering> lowering;                 // the lowering's state, from lower-signature to lower-body
  Activity full;                                      // activity with every differentiable parameter active
  std::vector<Node*> all;                             // every node, in pre-order (Node::order)
  TapePlan plan;                                      // what the reverse reads, and how it gets it
  std::set<Var*> written;                             // regions some statement writes
  IterationLocals iteration;                          // locals private to each iteration of a loop
  std::map<const Node*, const ReadSite*> save_reads;  // a taped assignment: the reverse read needing it
  LoopPlans loops;                                    // bulk saves and vectorised reverse loops
  std::vector<FusionDecision> fusions;                // consecutive kernel calls: fused, or why not
  // Lowers and plans a callee (the generator's cache): its CallSummary is then in the unit's facts.
  std::function<void(const clang::FunctionDecl*)> plan_callee;
  bool stop = false;   // a pass failed so that the passes after it cannot run
  bool fusion = true;  // PipelineOptions::fusion, set by the runner
};

// A named pass: what it does, what it reads and writes (FunctionState's fields, the IR's), and how.
struct Pass {
  const char* name;
  const char* description;
  const char* reads;
  const char* writes;
  void (*run)(FunctionState&);
};

// Every pass, in the order they run: its four parts, one after the other.
const std::vector<Pass>& function_pipeline();
std::vector<Pass> rewrite_passes();
std::vector<Pass> lowering_passes();  // a friend of Lowering: its steps are passes of their own
std::vector<Pass> analysis_passes();
std::vector<Pass> tape_plan_passes();
// The tape plan's passes that plan again for one activity pattern: those writing only the plan
// (not the diagnostics or the unit's facts, which full activity decides).
std::vector<Pass> pattern_plan_passes();

// What the command line asks of the pipeline (docs/adjc.md).
struct PipelineOptions {
  std::set<std::string> print_after;  // pass names
  bool print_after_all = false;
  bool verify_each = false;
  bool time_passes = false;
  bool remarks = false;
  bool fusion = true;  // `--no-fusion` clears it: fuse-kernel-calls fuses nothing
};

// Parses `--print-after=A,B`, `--print-after-all`, `--verify-each`, `--time-passes`, `--remarks`,
// `--no-fusion`.
// Returns false with `error` set for a malformed option or an unknown pass name; `matched` says
// whether `arg` was one of them.
bool parse_pipeline_option(const std::string& arg, PipelineOptions& options, bool& matched, std::string& error);

// The IR of `state` and the analyses' results so far, readably, headed by the pass (print_ir.cpp).
void print_state(const FunctionState& state, const std::string& pass, std::FILE* out);

// The first invariant of the IR that `state` breaks, in words ("" when none; verify.cpp).
std::string verify_state(const FunctionState& state);

// `--remarks`: file:line:col lines explaining the tape plan's decisions for `state` (remarks.cpp):
// why a value is taped, why a loop's taped write is not saved in bulk, why its reverse is not
// vectorised; which consecutive kernel calls fuse, and why the others do not.
void print_remarks(const FunctionState& state, std::FILE* out);

// `--print-passes`: the list, one pass a line (name, description, reads -> writes).
void print_passes(std::FILE* out);

// Runs the pipeline over functions under one set of options, and keeps the pass times.
class PipelineRunner {
 public:
  explicit PipelineRunner(const PipelineOptions& options) : options_(options) {}
  // Runs every pass of `passes` (the function pipeline by default) on `state` until one stops it.
  // Returns false when the IR fails verification (reported as an error at the function).
  bool run(FunctionState& state, const std::vector<Pass>& passes = function_pipeline());
  // The `--time-passes` table on stderr (nothing when it was not asked for).
  void print_times() const;

 private:
  bool run_passes(FunctionState& state, const std::vector<Pass>& passes);

  const PipelineOptions& options_;
  // Wall time per pass, summed over functions; a pass's time leaves out the nested runs of the
  // callees it plans (nested_: their time so far, per running pass).
  std::map<std::string, double> seconds_;
  std::vector<double> nested_;
};

}  // namespace adjc
