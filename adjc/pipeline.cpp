// The pipeline: every pass adjc runs on a function, in order (pipeline.hpp). Each entry names a
// pass, says what it does and what it reads and writes, and calls the pass, which lives in the
// file named for its job (docs/adjc-internals.md follows this list).
#include "pipeline.hpp"

#include <chrono>
#include <cstdio>

#include "closures.hpp"
#include "containers.hpp"
#include "function_pointers.hpp"
#include "lowering.hpp"
#include "nesting.hpp"
#include "pointer_results.hpp"
#include "tangent.hpp"

namespace adjc {

using namespace clang;

FunctionState::FunctionState(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& c, Diagnostics& d)
    : context(c), diags(d), ir(std::make_unique<FunctionIR>(fn, unit)) {}
FunctionState::~FunctionState() = default;

// AST rewrites: the function's body edited in place into what lowering reads. A rewrite that fails
// marks the IR invalid; lowering still runs, to report what else it finds.
std::vector<Pass> rewrite_passes() {
  return {
      {"resolve-derivative-calls", "calls of an earlier stage's generated derivatives (execute) made direct", "AST",
       "AST",
       [](FunctionState& s) {
         if (!resolve_derivative_calls(s.ir->fn, s.ir->unit, s.context, s.diags)) s.ir->valid = false;
       }},
      {"resolve-function-pointers", "calls through function pointers whose function is known made direct", "AST", "AST",
       [](FunctionState& s) {
         if (!resolve_function_pointers(s.ir->fn, s.ir->unit, s.context, s.diags)) s.ir->valid = false;
       }},
      {"find-global-counters", "uses of non-const integer globals, read before the rewrites edit the body", "AST",
       "unit.global_uses", [](FunctionState& s) { global_counter_uses(s.ir->fn, s.ir->unit); }},
      {"rewrite-pointer-results", "calls returning a pointer into an argument's array as that array plus an offset",
       "AST", "AST",
       [](FunctionState& s) {
         // A result adjc does not follow would be reported again by every use of it.
         if (!rewrite_pointer_results(s.ir->fn, s.ir->unit, s.context, s.diags)) {
           s.ir->valid = false;
           s.stop = true;
         }
       }},
      {"inline-accessors", "calls of accessors returning a member replaced by the member", "AST", "AST",
       [](FunctionState& s) { inline_accessor_calls(s.ir->fn, s.context); }},
      {"rewrite-closure-calls", "lambdas with captures as functions of their captures", "AST", "AST",
       [](FunctionState& s) {
         if (!rewrite_closure_calls(s.ir->fn, s.ir->unit, s.context, s.diags)) s.ir->valid = false;
       }},
      {"rewrite-containers", "std::vector and std::array operations as array forms", "AST", "AST, unit.sizing_calls",
       [](FunctionState& s) {
         if (!rewrite_containers(s.ir->fn, s.ir->unit, s.context, s.diags)) s.ir->valid = false;
       }},
      {"rewrite-complex-numbers", "std::complex constructions and updates as calls of adjoint::complex_ops", "AST",
       "AST",
       [](FunctionState& s) {
         if (!rewrite_complex_numbers(s.ir->fn, s.ir->unit, s.context, s.diags)) s.ir->valid = false;
       }},
  };
}

// Lowering: clang AST -> IR (lower*.cpp), rejecting what adjc cannot differentiate; Lowering's
// steps, whose state lives in FunctionState::lowering from lower-signature to number-nodes.
std::vector<Pass> lowering_passes() {
  return {
      {"lower-signature", "the checks of the whole function; parameters and result as variables", "AST",
       "ir.params, ir.ret, ir.vars",
       [](FunctionState& s) {
         s.lowering = std::make_unique<Lowering>(*s.ir, s.context, s.diags);
         s.lowering->lower_signature();
       }},
      {"lower-bindings", "structured bindings as references to their parts", "AST", "AST",
       [](FunctionState& s) { s.lowering->lower_bindings(s.ir->fn->getBody()); }},
      {"find-aliases", "local references and pointer aliases, each use rewritten into its referent", "AST",
       "lowering state", [](FunctionState& s) { s.lowering->find_aliases(s.ir->fn->getBody()); }},
      {"copy-addressed-params", "floating parameters passed by address get a one-element local", "AST",
       "lowering state", [](FunctionState& s) { s.lowering->copy_addressed_params(s.ir->fn->getBody()); }},
      {"copy-read-globals", "non-const globals the function reads, copied into locals at its start", "AST",
       "ir.copied_globals", [](FunctionState& s) { s.lowering->copy_read_globals(s.ir->fn->getBody()); }},
      {"check-global-counters", "integer globals written as counters are rejected", "unit.global_uses", "diagnostics",
       [](FunctionState& s) { s.lowering->check_global_counters(); }},
      {"find-split-structs", "local structs used only through members split into one variable each", "AST",
       "ir.member_var", [](FunctionState& s) { s.lowering->find_split_structs(s.ir->fn->getBody()); }},
      {"find-heap-arrays", "local pointers given new[] or realloc as heap arrays", "AST", "lowering state",
       [](FunctionState& s) { s.lowering->find_heap_arrays(s.ir->fn->getBody()); }},
      {"split-retargeted-pointers", "a local pointer given another array by a statement of its block: a new local",
       "AST, lowering state", "AST", [](FunctionState& s) { s.lowering->split_retargeted_pointers(); }},
      {"lower-body", "the body's statements as IR nodes", "AST, lowering state", "ir.body, ir.nodes, ir.vars",
       [](FunctionState& s) { s.lowering->lower_body(); }},
      {"number-nodes", "each node's pre-order position; the node list the analyses walk", "ir.body", "Node::order, all",
       [](FunctionState& s) {
         s.lowering.reset();
         s.stop = !s.ir->valid;
         for_each_node(s.ir->body, [&](Node* n) {
           n->order = int(s.all.size());
           s.all.push_back(n);
         });
       }},
  };
}

// The analyses the tape plan reads: activity under full activity, and the callees' summaries.
std::vector<Pass> analysis_passes() {
  return {
      {"activity", "which variables and memory depend on the parameters (all differentiable ones active)", "ir", "full",
       [](FunctionState& s) { s.full = analyze_activity(*s.ir, all_differentiable(s.ir->fn)); }},
      {"plan-callees", "callees with derivative work lowered and planned first, for their call summaries", "ir, full",
       "unit.call_summaries",
       [](FunctionState& s) {
         // A call within a recursion finds its callee lowered but not yet planned, and no summary.
         for (const Node* n : s.all) {
           const FunctionDecl* callee = n->kind == NodeKind::Call ? n->call->getDirectCallee() : nullptr;
           // A callee without a body is reported by check-derivatives.
           if (callee && callee->getDefinition() && s.ir->hoisted.count(n->call) &&
               callee_kind(callee, s.ir->unit) == CalleeKind::User && call_active(*s.ir, s.full, n)) {
             // An error in the callee's passes names this call in its notes.
             Diagnostics::InDerivative called(s.diags, callee, s.ir->fn, n->call->getBeginLoc());
             s.plan_callee(callee);
           }
         }
       }},
      {"find-fusible-calls", "consecutive kernel calls whose loops fuse through the memory one passes the next",
       "ir, unit.kernel_loops", "fusions", [](FunctionState& s) { s.fusions = find_fusible_calls(*s.ir, s.all); }},
      {"fuse-kernel-calls", "each fusible pair of element loops one call of a function running both loops as one",
       "ir, fusions", "ir, all, full, fusions (fused), unit.call_summaries",
       [](FunctionState& s) { fuse_kernel_calls(s); }},
  };
}

// The tape plan (tape_plan.hpp): what the reverse sweep reads, and which overwrites it tapes. Its
// decisions go into two results, `plan` (TapePlan: per node, per variable) and `loops` (LoopPlans).
std::vector<Pass> tape_plan_passes() {
  return {
      {"check-derivatives", "calls without a derivative that receive varied values are rejected", "ir, full",
       "diagnostics", [](FunctionState& s) { check_derivatives(*s.ir, s.full, s.all, s.diags); }},
      {"find-reverse-reads", "which nodes have adjoint work, and what the reverse sweep reads", "ir, full",
       "plan (active, read_in_reverse, reads)",
       [](FunctionState& s) { s.plan = find_reverse_reads(*s.ir, s.full, s.all); }},
      {"plan-loop-bounds", "loop bounds evaluated again in the reverse instead of taped", "ir, plan",
       "plan (bounds_in_reverse, read_in_reverse, reads)",
       [](FunctionState& s) { plan_loop_bounds(*s.ir, s.all, s.plan); }},
      {"plan-branch-conditions", "branch conditions evaluated again in the reverse instead of recorded", "ir, plan",
       "plan (cond_in_reverse, read_in_reverse, reads)",
       [](FunctionState& s) { plan_branch_conditions(*s.ir, s.all, s.plan); }},
      {"find-written-regions", "regions some statement writes", "ir", "written",
       [](FunctionState& s) { s.written = written_regions(*s.ir, s.all); }},
      {"plan-recomputation", "locals, call results and sums computed again instead of taped", "ir, plan",
       "plan (recompute, recomputed_sum, read_in_reverse, reads)",
       [](FunctionState& s) { plan_recomputation(*s.ir, s.all, s.plan); }},
      {"find-iteration-locals", "locals of a jump-free loop body private to each iteration", "ir", "iteration",
       [](FunctionState& s) { s.iteration = find_iteration_locals(*s.ir); }},
      {"plan-assignment-saves", "assignments whose overwritten value the reverse reads are taped",
       "ir, plan, iteration", "plan (save), save_reads",
       [](FunctionState& s) {
         for (Node* n : s.all)
           if (n->kind == NodeKind::Assign)
             if (const ReadSite* r = plan_assignment_save(*s.ir, n, s.all, s.iteration, s.plan)) s.save_reads[n] = r;
       }},
      {"plan-call-saves", "memory calls overwrite that the reverse reads is taped around them", "ir, plan, iteration",
       "plan (save, taped_regions)",
       [](FunctionState& s) {
         // After every assignment's save: a taped assignment restores what it reads before reading it.
         // A local vector's refill (lower_containers.cpp) tapes the vector whole.
         for (Node* n : s.all)
           if (n->kind == NodeKind::Call && n->refilled) s.plan[n].save = true;
           else if (n->kind == NodeKind::Call && n->call) plan_call_save(*s.ir, n, s.all, s.iteration, s.plan, s.diags);
       }},
      {"plan-inverse-restores", "scales in place undone in the reverse by the inverse operation instead of taped",
       "ir, plan", "plan (save, undone_by_inverse)",
       [](FunctionState& s) {
         // In program order: a later scale of the same elements is still taped (or already undone).
         for (Node* n : s.all)
           if (undone_by_inverse(*s.ir, s.plan, n, s.all)) {
             s.plan[n].save = false;
             s.plan[n].undone_by_inverse = true;
           }
       }},
      {"find-results-in-targets", "results the reverse reads back from the target instead of calling again",
       "ir, plan, iteration", "plan (result_in_target)",
       [](FunctionState& s) {
         for (Node* n : s.all) {
           s.plan[n].result_in_target = result_in_target(*s.ir, s.plan, n, s.all);
           if (result_in_scalar_target(*s.ir, s.plan, s.iteration, n)) {
             s.plan[n].result_in_target = true;
             s.plan.read(n, n->target);
           }
         }
       }},
      {"forget-operand-reads", "operand values a result read back makes dead are not read in the reverse", "ir, plan",
       "plan (read_in_reverse, reads)", [](FunctionState& s) { forget_operand_reads(*s.ir, s.all, s.plan); }},
      {"untape-results-in-place", "results read back in place whose overwritten value nothing else reads untaped",
       "ir, plan, iteration", "plan (save)",
       [](FunctionState& s) { untape_results_in_place(*s.ir, s.all, s.iteration, s.plan); }},
      {"plan-bulk-saves", "loops whose one taped write is saved in bulk (push_n/pop_n)", "ir, plan, iteration",
       "loops (bulk, not_bulk)",
       [](FunctionState& s) { s.loops = plan_bulk_saves(*s.ir, s.all, s.plan, s.iteration); }},
      {"plan-kept", "variables pushed at the end of the forward sweep and popped at the reverse's start",
       "ir, written, iteration, plan", "plan (kept)",
       [](FunctionState& s) { plan_kept(*s.ir, s.written, s.iteration, s.plan); }},
      {"mark-reverse", "which nodes have reverse code", "ir, plan", "plan (reverse)",
       [](FunctionState& s) { mark_reverse(s.ir->body, s.plan); }},
      {"plan-simd-reverse", "loops whose reverse is vectorised (omp simd with reductions)", "ir, full, plan, loops",
       "loops (simd_sums, not_simd)",
       [](FunctionState& s) { plan_simd_reverse(*s.ir, s.full, s.all, s.plan, s.loops); }},
      {"check-parallel-loops", "what the reverse of an OpenMP parallel loop cannot do is rejected", "ir, plan",
       "diagnostics", [](FunctionState& s) { check_parallel_loops(*s.ir, s.plan, s.diags); }},
      {"record-call-summary", "what the reverse reads and the function writes of its parameters' memory",
       "ir, plan, loops", "unit.call_summaries",
       [](FunctionState& s) { record_call_summary(*s.ir, s.plan, s.loops, s.all); }},
      {"find-kernel-loop", "whether the body is one loop of independent iterations, and what each reaches", "ir",
       "unit.kernel_loops", [](FunctionState& s) { s.ir->unit.kernel_loops[s.ir->fn] = find_kernel_loop(*s.ir); }},
      {"keep-local-vectors", "local std::vectors kept: their adjoints are sized from them in the reverse", "ir",
       "plan (kept)", [](FunctionState& s) { keep_local_vectors(*s.ir, s.plan); }},
  };
}

std::vector<Pass> pattern_plan_passes() {
  static const std::set<std::string> unit_wide = {"check-derivatives", "check-parallel-loops", "record-call-summary",
                                                  "find-kernel-loop"};
  std::vector<Pass> passes;
  for (const Pass& p : tape_plan_passes())
    if (!unit_wide.count(p.name)) passes.push_back(p);
  return passes;
}

// Forward mode's passes (tangent.hpp), run on a function planned by the passes above when a
// derivative request first needs its pushforward; emission then reads the activity per request.
std::vector<Pass> tangent_passes() {
  return {
      {"check-tangents", "what forward mode does not support is rejected (under full activity)", "ir, full",
       "diagnostics", [](FunctionState& s) { check_tangents(s); }},
  };
}

const std::vector<Pass>& function_pipeline() {
  static const std::vector<Pass> passes = [] {
    std::vector<Pass> all;
    for (auto part : {rewrite_passes, lowering_passes, analysis_passes, tape_plan_passes})
      for (const Pass& p : part()) all.push_back(p);
    return all;
  }();
  return passes;
}

void print_passes(std::FILE* out) {
  const std::vector<Pass> tangents = tangent_passes();
  size_t width = 0;
  for (const auto* list : {&function_pipeline(), &tangents})
    for (const Pass& p : *list) width = std::max(width, std::string(p.name).size());
  auto print = [&](const std::vector<Pass>& list) {
    for (const Pass& p : list)
      std::fprintf(out, "%-*s  %s (%s -> %s)\n", int(width), p.name, p.description, p.reads, p.writes);
  };
  print(function_pipeline());
  std::fprintf(out,
               "\nforward mode (adjoint::derivative), after the passes above, on each function it differentiates:\n");
  print(tangents);
}

namespace {

bool is_pass(const std::string& name) {
  for (const auto& list : {function_pipeline(), tangent_passes()})
    for (const Pass& p : list)
      if (name == p.name) return true;
  return false;
}

}  // namespace

bool parse_pipeline_option(const std::string& arg, PipelineOptions& options, bool& matched, std::string& error) {
  matched = true;
  if (arg == "--print-after-all") {
    options.print_after_all = true;
  } else if (arg == "--verify-each") {
    options.verify_each = true;
  } else if (arg == "--time-passes") {
    options.time_passes = true;
  } else if (arg == "--remarks") {
    options.remarks = true;
  } else if (arg == "--no-fusion") {
    options.fusion = false;
  } else if (arg.rfind("--print-after=", 0) == 0) {
    std::string list = arg.substr(std::string("--print-after=").size()) + ",";
    for (size_t start = 0, comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1) {
      std::string name = list.substr(start, comma - start);
      if (!is_pass(name)) {
        error = "--print-after: no pass named '" + name + "' (adjc --print-passes lists them)";
        return false;
      }
      options.print_after.insert(name);
    }
  } else {
    matched = false;
  }
  return true;
}

bool PipelineRunner::run(FunctionState& state, const std::vector<Pass>& passes) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point begin = Clock::now();
  state.fusion = options_.fusion;
  bool verified = run_passes(state, passes);
  // The whole nested run (its printing and checks too) is the enclosing pass's callees' time.
  if (!nested_.empty()) nested_.back() += std::chrono::duration<double>(Clock::now() - begin).count();
  return verified;
}

bool PipelineRunner::run_passes(FunctionState& state, const std::vector<Pass>& passes) {
  using Clock = std::chrono::steady_clock;
  for (const Pass& pass : passes) {
    nested_.push_back(0);
    Clock::time_point start = Clock::now();
    pass.run(state);
    seconds_[pass.name] += std::chrono::duration<double>(Clock::now() - start).count() - nested_.back();
    nested_.pop_back();
    if (options_.print_after_all || options_.print_after.count(pass.name)) print_state(state, pass.name, stderr);
    // Invalid IR (its errors reported) goes no further than lowering: there is nothing to check.
    if (options_.verify_each && state.ir->valid) {
      if (std::string broken = verify_state(state); !broken.empty()) {
        state.diags.error(state.ir->fn->getLocation(), Diag::ir_verification_failed,
                          {state.ir->fn->getQualifiedNameAsString(), pass.name, broken});
        return false;
      }
    }
    if (state.stop) return true;
  }
  // The remarks explain the tape plan, which the function pipeline makes.
  if (options_.remarks && &passes == &function_pipeline()) print_remarks(state, stderr);
  return true;
}

void PipelineRunner::print_times() const {
  if (!options_.time_passes) return;
  double total = 0;
  for (auto& [name, seconds] : seconds_) total += seconds;
  std::fprintf(stderr, "adjc pass times (wall, summed over functions)\n%-28s %10s %7s\n", "pass", "ms", "%");
  std::vector<Pass> passes = function_pipeline();
  for (const Pass& p : tangent_passes()) passes.push_back(p);
  for (const Pass& p : passes) {
    auto it = seconds_.find(p.name);
    if (it == seconds_.end()) continue;
    std::fprintf(stderr, "%-28s %10.3f %6.1f%%\n", p.name, it->second * 1e3,
                 total > 0 ? 100 * it->second / total : 0.0);
  }
  std::fprintf(stderr, "%-28s %10.3f\n", "total", total * 1e3);
}

}  // namespace adjc
