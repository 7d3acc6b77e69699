// Tape plan, recomputation: locals, cheap calls' results and sums the reverse sweep computes again
// from their definitions instead of popping them (tape_plan.hpp).
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>

#include <algorithm>

#include "closures.hpp"
#include "iteration.hpp"
#include "tape_plan.hpp"
#include "walk.hpp"

namespace adjc {

using namespace clang;

namespace {

// What a definition `e` reads: variables by value (a pointer's value is an address; arrays and
// structs are only read through their memory) and the regions of its memory reads.
struct DefinitionReads {
  std::vector<Var*> values, regions;
};
void definition_reads(const FunctionIR& ir, const Expr* e, DefinitionReads& out) {
  if (!e) return;
  e = strip(e, ir.unit);
  if (auto* call = dyn_cast<CallExpr>(e); call && ir.call_result.count(call))
    return out.values.push_back(ir.call_result.at(call));
  if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e) || ir.var(e)) {
    if (Var* v = ir.var(e); v && !v->memory) out.values.push_back(v);
    return;
  }
  if (is_memory_read(e))
    if (Var* root = memory_root(ir, e)) out.regions.push_back(root);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) definition_reads(ir, ce, out);
}

// Whether evaluating `e` calls a function that writes or reads a non-const global of integers
// (global_counter_uses): evaluated again in the reverse, a counter would count twice, and a read
// could find a value a counter changed since.
bool calls_counter(const Expr* e, const UnitFacts& unit) {
  if (!e) return false;
  if (auto* call = dyn_cast<CallExpr>(e))
    if (const FunctionDecl* f = call->getDirectCallee()) {
      GlobalUses uses = global_counter_uses(f, unit, true);
      if (!uses.written.empty() || !uses.read.empty()) return true;
    }
  for (const Stmt* c : e->children())
    if (calls_counter(dyn_cast_or_null<Expr>(c), unit)) return true;
  return false;
}

// Whether a node after `definition` in `block` satisfies `writes`.
template <class F>
bool written_later(const std::vector<Node*>& all, const Node* definition, const Node* block, F&& writes) {
  for (const Node* n : all)
    if (n->order > definition->order && encloses(block, n) && writes(n)) return true;
  return false;
}

// Whether some loop around `n` is an OpenMP parallel loop (whose iterations push nothing).
bool in_parallel_loop(const Node* n) {
  return std::any_of(n->loops.begin(), n->loops.end(), [](const Node* l) { return l->parallel; });
}

// Whether local `v`'s definition gives at the start of its block's reverse what it gave in the
// forward: nothing it reads is written later in the block.
bool stable_definition(const FunctionIR& ir, const Var* v, const DefinitionReads& deps, const std::vector<Node*>& all) {
  const Node* definition = v->definition;
  bool stable = true;
  for (Var* d : deps.values)
    stable &= d->kind != VarKind::CallResult && !(d->kind == VarKind::Param && d->assignments > 0) &&
              !written_later(all, definition, v->block,
                             [&](const Node* n) { return n->kind == NodeKind::Assign && n->target == d; });
  for (Var* r : deps.regions)
    stable &= !written_later(all, definition, v->block, [&](const Node* n) {
      return (n->kind == NodeKind::Assign && n->memory_root == r) || passes_region_to_call(ir, n, r);
    });
  return stable;
}

// Whether calling `call`'s function again costs less than taping its result: a function with a
// body of plain arithmetic (no loops, no calls but math functions, no variables but its own) that
// takes arithmetic values and returns one, like `silu(a)`, so calling it again gives the same
// result and changes nothing.
bool cheap_call(const CallExpr* call, const UnitFacts& unit) {
  const FunctionDecl* callee = call->getDirectCallee();
  const FunctionDecl* definition = callee ? callee->getDefinition() : nullptr;
  // A lambda's function exists only as its generated sweeps, which push onto the tape.
  if (!definition || callee_kind(callee, unit) != CalleeKind::User || isa<CXXMethodDecl>(callee) ||
      as_closure_function(callee, unit) || !callee->getReturnType()->isArithmeticType())
    return false;
  for (const ParmVarDecl* p : callee->parameters())
    if (!p->getType()->isArithmeticType()) return false;
  // A declaration's initialisers are its statement's children.
  bool plain = true;
  walk_statements(definition->getBody(), [&](const Stmt* s) {
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s) || isa<GotoStmt>(s))
      plain = false;
    if (auto* c = dyn_cast<CallExpr>(s); c && math_function(c) == MathFn::None) plain = false;
    if (auto* r = dyn_cast<DeclRefExpr>(s))
      if (auto* v = dyn_cast<VarDecl>(r->getDecl()); v && !v->isLocalVarDeclOrParm()) plain = false;
    if (auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (auto* v = dyn_cast<VarDecl>(d); v && v->isStaticLocal()) plain = false;
    return plain;
  });
  return plain;
}

// A sum `s = e0; for (i = a; i < E; i += k) s += e;` (the loop's only statement, directly after
// in the same block, s read in the reverse only after the loop): the loop that completes s's value,
// run again when s is recomputed (NodePlan::recomputed_sum). Its start, bound and e are then part of
// s's definition. nullptr when s is not such a sum.
Node* summing_loop(const FunctionIR& ir, const Var* v, const std::vector<Node*>& all,
                   const std::vector<ReadSite>& reads) {
  if (v->kind != VarKind::Local || v->assignments != 2 || !v->floating) return nullptr;
  const Node* add = nullptr;
  for (const Node* n : all)
    if (n->kind == NodeKind::Assign && n->target == v && n != v->definition) add = n;
  if (!add || (add->op != BO_AddAssign && add->op != BO_SubAssign) || !add->rhs) return nullptr;
  Node* loop = add->parent ? add->parent->parent : nullptr;
  if (!loop || loop->kind != NodeKind::Loop || loop->body != add->parent || loop->body->children.size() != 1 ||
      loop->parent != v->block || loop->order < v->definition->order || !loop->counter || loop->step <= 0 ||
      !(loop->end || loop->last) || !loop->jumps.empty() || loop->inc || loop->parallel)
    return nullptr;
  std::vector<Var*> in_sum;
  variables_read(ir, add->rhs, in_sum);
  if (std::find(in_sum.begin(), in_sum.end(), v) != in_sum.end() || !invariant_in(ir, loop->start, loop, all) ||
      !invariant_in(ir, loop->end ? loop->end : loop->last, loop, all))
    return nullptr;
  for (const ReadSite& r : reads)
    if (r.var == v && r.node->order <= add->order) return nullptr;
  return loop;
}

}  // namespace

// Whether evaluating `e` calls a math function dearer than a push and a pop (exponentials,
// logarithms, powers, trigonometric, hyperbolic and error functions) that is not declared
// SIMD-callable (`#pragma omp declare simd`, as glibc's headers declare them under -ffast-math):
// a local defined with one is taped per iteration rather than recomputed, so the reverse does not
// pay the call a second time (a tangent's `_value0 = tanh(u)`, whose reverse reads it back:
// result_in_scalar_target). A SIMD-callable one costs about a pop in a vectorised loop, and a push
// per iteration would keep the forward loop from vectorising.
bool calls_transcendental(const Expr* e) {
  if (!e) return false;
  if (auto* call = dyn_cast<CallExpr>(e)) switch (math_function(call)) {
      case MathFn::None:
      case MathFn::Sqrt:
      case MathFn::Cbrt:
      case MathFn::Fma:
      case MathFn::Copysign:
      case MathFn::Fmod:
      case MathFn::Remainder:
      case MathFn::Fdim:
      case MathFn::Ldexp:
      case MathFn::Floor:
      case MathFn::Ceil:
      case MathFn::Round:
      case MathFn::Trunc:
      case MathFn::Fabs:
      case MathFn::Fmax:
      case MathFn::Fmin:
      case MathFn::Max:
      case MathFn::Min:
      case MathFn::Clamp: break;
      default:
        if (const FunctionDecl* f = call->getDirectCallee(); f && !f->hasAttr<OMPDeclareSimdDeclAttr>()) return true;
    }
  for (const Stmt* c : e->children())
    if (calls_transcendental(dyn_cast_or_null<Expr>(c))) return true;
  return false;
}

// Locals the reverse sweep recomputes from their definition instead of taping (VarPlan::recompute).
// A local defined once in a loop is recomputed at the start of its block's reverse, so its
// definition must give there what it gave in the forward: nothing it reads (a variable, or memory
// of a region) is written later in the block, by an assignment (a loop's initialisation and
// increment included: only loops that declare their counter are lowered with none) or through a
// call. What it reads is then read in the reverse there, so it is kept, taped or recomputed in
// turn, and later overwrites of the memory it reads are taped. A call's result is recomputed the
// same way, by calling again, when that is cheap (cheap_call) and its arguments are stable, and a
// sum by running its loop again (summing_loop): one pass over a row instead of a value per row. A
// local defined with a transcendental call (calls_transcendental) is taped instead, outside
// parallel loops.
void plan_recomputation(const FunctionIR& ir, const std::vector<Node*>& all, TapePlan& plan) {
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& vp : ir.vars) {
      Var* v = vp.get();
      bool call = v->kind == VarKind::CallResult && v->definition && cheap_call(v->definition->call, ir.unit);
      Node* sum = v->definition && !plan[v].recompute ? summing_loop(ir, v, all, plan.reads) : nullptr;
      if ((v->kind != VarKind::Local && !call) || v->memory || v->counter || (v->assignments != 1 && !sum) ||
          !v->definition || v->definition->loops.empty() || !plan[v].read_in_reverse || plan[v].recompute)
        continue;
      DefinitionReads deps;
      if (call)
        for (AdArg a : ad_args(v->definition->call)) definition_reads(ir, a.expr, deps);
      else definition_reads(ir, v->definition->rhs, deps);
      if (sum) {
        definition_reads(ir, sum->start, deps);
        definition_reads(ir, sum->end ? sum->end : sum->last, deps);
        definition_reads(ir, sum->body->children[0]->rhs, deps);
        deps.values.erase(std::remove(deps.values.begin(), deps.values.end(), sum->counter), deps.values.end());
      }
      if (!stable_definition(ir, v, deps, all)) continue;
      if (!call && !sum && !in_parallel_loop(v->definition) && calls_transcendental(v->definition->rhs)) continue;
      // A call in the definition runs again in the reverse: not one that counts (a counter would
      // count twice).
      if ((!call && calls_counter(v->definition->rhs, ir.unit)) ||
          (sum && calls_counter(sum->body->children[0]->rhs, ir.unit)))
        continue;
      plan[v].recompute = changed = true;
      if (sum) plan[sum].recomputed_sum = v;
      // Parameters' values are the reverse's own arguments.
      for (Var* d : deps.values)
        if (d->kind != VarKind::Param) plan.read(v->definition, d);
      for (Var* r : deps.regions) plan.read(v->definition, r);
    }
  }
}

}  // namespace adjc
