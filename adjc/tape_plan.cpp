// The tape plan: what the reverse sweep reads, and which overwrites it must tape (passes.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>
#include <functional>
#include <set>

#include "derivatives.hpp"
#include "iteration.hpp"
#include "loop_plans.hpp"
#include "containers.hpp"
#include "passes.hpp"

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
  e = strip(e);
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

// Whether `e` reads an arithmetic value from the memory of `region` (not an address: `&m[k]`
// and pointer members read none of m's values).
bool reads_value_of(const FunctionIR& ir, const Expr* e, const Var* region) {
  if (!e) return false;
  e = strip(e);
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
    const Expr* place = strip(u->getSubExpr());
    if (auto* s = dyn_cast<ArraySubscriptExpr>(place))
      return reads_value_of(ir, s->getBase(), region) || reads_value_of(ir, s->getIdx(), region);
    if (auto* m = dyn_cast<MemberExpr>(place)) return reads_value_of(ir, m->getBase(), region);
    return false;
  }
  if (is_memory_read(e) && e->getType()->isArithmeticType() && memory_root(ir, e) == region) return true;
  for (const Stmt* c : e->children())
    if (reads_value_of(ir, dyn_cast_or_null<Expr>(c), region)) return true;
  return false;
}

// Variables an lvalue's address depends on: indices and pointer variables.
void address_vars(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  e = strip(e);
  if (isa<DeclRefExpr>(e) || ir.var(e)) {
    // Pointer parameters cannot be reassigned, so only local pointers' values matter.
    if (Var* v = ir.var(e); v && v->pointer && v->kind != VarKind::Param) out.push_back(v);
    return;
  }
  if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) {
    address_vars(ir, s->getBase(), out);
    variables_read(ir, s->getIdx(), out);
    return;
  }
  if (auto* m = dyn_cast<MemberExpr>(e)) return address_vars(ir, m->getBase(), out);
  if (auto* u = dyn_cast<UnaryOperator>(e)) return address_vars(ir, u->getSubExpr(), out);
  if (auto* b = dyn_cast<BinaryOperator>(e)) {
    bool left_pointer = b->getLHS()->getType()->isPointerType();
    address_vars(ir, left_pointer ? b->getLHS() : b->getRHS(), out);
    variables_read(ir, left_pointer ? b->getRHS() : b->getLHS(), out);
  }
}

// Address variables of every memory read in `e`.
void memory_addresses(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  if (!e) return;
  e = strip(e);
  if (is_memory_read(e)) address_vars(ir, e, out);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) memory_addresses(ir, ce, out);
}

// Whether `n` (any node) passes memory of `region` to a call other than a math function, which
// could write it where the tape plan cannot see. A hoisted call counts at its own Call node, not
// in the expression it was hoisted from.
bool passes_region_to_call(const FunctionIR& ir, const Node* n, const Var* region) {
  std::function<bool(const Expr*)> visit = [&](const Expr* e) {
    if (!e) return false;
    if (auto* call = dyn_cast<CallExpr>(e);
        call && math_function(call) == MathFn::None && (call == n->call || !ir.hoisted.count(call)))
      for (const Expr* a : call->arguments())
        if (memory_root(ir, a) == region) return true;
    for (const Stmt* c : e->children())
      if (visit(dyn_cast_or_null<Expr>(c))) return true;
    return false;
  };
  return visit(n->lhs) || visit(n->rhs) || visit(n->cond) || visit(n->call) || visit(n->start) || visit(n->end);
}

// Whether the reverse of `n`, an assignment `m[...] = f(x)` with f exp, tanh or sqrt (whose
// derivatives are functions of f's value), may read f(x) from m[...] instead of calling f again.
// It may when m[...] is certain to hold exactly what `n` wrote once the reverse sweep reaches `n`:
// the target has the call's type (no rounding between them); every write to the region that can
// run after `n` (later in program order, or in a later iteration of a loop they share, `n`
// itself included, unless each iteration of those loops has elements of its own) is taped, so its
// reverse has restored the region before; no call receives the
// region; and `n` is not in a parallel loop (the plan does not follow other threads' writes).
// Distinct parameters are assumed not to alias, as everywhere in adjc.
bool result_in_target(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all) {
  if (n->kind != NodeKind::Assign || !n->active || n->target || !n->memory_root || n->op != BO_Assign || !n->rhs)
    return false;
  auto* call = dyn_cast<CallExpr>(strip(n->rhs));
  if (!call) return false;
  MathFn m = math_function(call);
  if (m != MathFn::Exp && m != MathFn::Tanh && m != MathFn::Sqrt) return false;
  if (call->getType().getCanonicalType().getUnqualifiedType() !=
      n->lhs->getType().getCanonicalType().getUnqualifiedType())
    return false;
  for (const Node* loop : n->loops)
    if (loop->parallel) return false;
  for (const Node* w : all) {
    if (passes_region_to_call(ir, w, n->memory_root)) return false;
    // Writes in later iterations of the loops they share touch other elements when every
    // iteration has elements of its own.
    if (w->kind == NodeKind::Assign && w->memory_root == n->memory_root && !w->save &&
        (w->order > n->order || (shares_loop(w, n) && !disjoint_iterations(ir, n, w, n->memory_root, all))))
      return false;
  }
  return true;
}

// Rejections that depend on activity: casts of active values to integers, calls of functions
// with no derivative. A condition's value carries no derivative (the reverse replays the
// recorded branch), so a call there needs none when it writes nothing.
void check_expression(const FunctionIR& ir, const Activity& full, const Expr* e, bool condition, Diagnostics& diags) {
  if (!e) return;
  if (auto* c = dyn_cast<CastExpr>(e);
      c && (c->getCastKind() == CK_FloatingToIntegral || c->getCastKind() == CK_FloatingToBoolean) &&
      reads_varied(ir, full, c->getSubExpr()))
    diags.error(e->getExprLoc(),
                "non-differentiable cast of an active floating value to '" + c->getType().getAsString() + "'");
  if (auto* call = dyn_cast<CallExpr>(e);
      call && call->getDirectCallee() && math_function(call) == MathFn::None && !ir.hoisted.count(call) &&
      !is_sizing_call(call)) {
    const FunctionDecl* callee = call->getDirectCallee();
    std::vector<AdParam> params = ad_params(callee);
    std::vector<AdArg> args = ad_args(call);
    bool writes = false;
    for (const AdParam& p : params) writes |= is_written_param(p.type);
    bool needs_derivative = !derivative_free(callee) && (writes || !condition);
    for (size_t i = 0; i < args.size() && i < params.size() && needs_derivative; ++i)
      if (arg_varied(ir, full, params[i].type, args[i].expr)) {
        diags.error(call->getBeginLoc(), no_derivative(callee));
        break;
      }
  }
  for (const Stmt* c : e->children()) check_expression(ir, full, dyn_cast_or_null<Expr>(c), condition, diags);
}

void check_derivatives(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all, Diagnostics& diags) {
  for (const Node* n : all) {
    if (n->kind == NodeKind::Assign) {
      check_expression(ir, full, n->rhs, false, diags);
    } else if (n->kind == NodeKind::Call) {
      for (AdArg a : ad_args(n->call)) check_expression(ir, full, a.expr, false, diags);
    } else if (n->kind == NodeKind::If || n->kind == NodeKind::Loop) {
      check_expression(ir, full, n->cond, true, diags);
    }
  }
}

// Read sites: for each active statement (Node::active), the variables and regions its reverse
// code reads (Var::read_in_reverse).
std::vector<ReadSite> find_reverse_reads(const FunctionIR& ir, const Activity& full, const std::vector<Node*>& all) {
  std::vector<ReadSite> reads;
  for (Node* n : all) {
    std::vector<Var*> vars;
    if (n->kind == NodeKind::Assign) {
      Var* written = n->target ? n->target : n->memory_root;
      bool floating = n->target ? n->target->floating || n->target->value : is_floating(n->lhs->getType());
      n->active = floating && full.of(written);
      if (!n->active) continue;
      if (n->lhs) address_vars(ir, n->lhs, vars);
      std::vector<const Expr*> values;
      if (n->rhs) needed_values(ir, full, n->rhs, values);
      for (const Expr* v : values) variables_read(ir, v, vars);
      memory_addresses(ir, n->rhs, vars);
      // `y *= r` reads y's old value only for r's adjoint.
      if ((n->op == BO_MulAssign || n->op == BO_DivAssign) && n->rhs) {
        if (reads_varied(ir, full, n->rhs)) vars.push_back(written);
        variables_read(ir, n->rhs, vars);
      }
    } else if (n->kind == NodeKind::Call) {
      if (!ir.hoisted.count(n->call)) continue;
      n->active = call_active(ir, full, n) && !derivative_free(n->call->getDirectCallee());
      if (!n->active) continue;
      for (AdArg a : ad_args(n->call)) variables_read(ir, a.expr, vars);
    }
    for (Var* v : vars) {
      v->read_in_reverse = true;
      reads.push_back({n, v});
    }
  }
  return reads;
}

// Loop bounds read in the reverse (Node::bounds_in_reverse): a counted loop `for (i = s; i < E;
// i += k)` (or `i <= E - 1`) without jumps, whose s and E read no memory, call nothing and read no variable the loop
// assigns, runs (E - s) / k times (rounded up, at least 0) from s. So its reverse evaluates s and
// that trip count again instead of popping two integers per execution, when the variables they
// read hold there what they held when the loop started: they are registered as read by the loop,
// so they are kept, taped, recomputed or (enclosing loops' counters) rebuilt like any value the
// reverse reads. A matmul's inner loop thus stores nothing per output element. The comparison
// must be signed (an unsigned `i < E` does not count from s to E), and the loop must have some
// active statement (otherwise registering its bounds only costs tape).
void plan_loop_bounds(const FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads) {
  for (Node* loop : all) {
    const Expr* bound = loop->end ? loop->end : loop->last;
    if (loop->kind != NodeKind::Loop || !loop->counter || !bound || loop->parallel || loop->step <= 0 ||
        !loop->jumps.empty())
      continue;
    auto* cond = dyn_cast<BinaryOperator>(loop->cond->IgnoreParenImpCasts());
    if (!cond || !cond->getLHS()->getType()->isSignedIntegerType() ||
        !loop->counter->type->isSignedIntegerType() || !invariant_in(ir, loop->start, loop, all) ||
        !invariant_in(ir, bound, loop, all))
      continue;
    std::vector<Var*> vars;
    variables_read(ir, loop->start, vars);
    variables_read(ir, bound, vars);
    // A call in the loop receiving one of them by reference could change it.
    bool jumps = false, active = false, passed = false;
    for_each_node(loop->body, [&](const Node* n) {
      jumps |= n->kind == NodeKind::Jump;
      active |= n->active;
      if (n->kind == NodeKind::Call)
        for (AdArg a : ad_args(n->call)) passed |= std::find(vars.begin(), vars.end(), ir.var(a.expr)) != vars.end();
    });
    if (jumps || !active || passed) continue;
    loop->bounds_in_reverse = true;
    for (Var* v : vars) {
      v->read_in_reverse = true;
      reads.push_back({loop, v});
    }
  }
}

// Whether `e` reads nothing but integer variables (no memory, no calls): its variables, appended.
bool reads_only_integers(const FunctionIR& ir, const Expr* e, std::vector<Var*>& vars) {
  std::function<bool(const Expr*)> plain = [&](const Expr* x) {
    if (!x) return true;
    if (isa<CallExpr>(x) || is_memory_read(strip(x))) return false;
    for (const Stmt* c : x->children())
      if (!plain(dyn_cast_or_null<Expr>(c))) return false;
    return true;
  };
  if (!plain(e)) return false;
  variables_read(ir, e, vars);
  for (const Var* v : vars)
    if (v->memory || v->pointer || !v->type->isIntegralOrEnumerationType()) return false;
  return true;
}

// Branch conditions evaluated again in the reverse (Node::cond_in_reverse) instead of recorded: an
// `if` whose condition reads only integer variables that neither branch assigns (the reverse
// evaluates it before undoing the branch), around active statements and no jumps. Its variables
// are registered as read by the `if`, so they hold in the reverse what they held in the forward
// (a causal mask's `t2 <= t` reads two loop counters and costs nothing).
void plan_branch_conditions(const FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads) {
  for (Node* branch : all) {
    std::vector<Var*> vars;
    if (branch->kind != NodeKind::If || !reads_only_integers(ir, branch->cond, vars)) continue;
    bool active = false, unchanged = true;
    auto visit = [&](const Node* n) {
      active |= n->active;
      unchanged &= n->kind != NodeKind::Jump;
      for (const Var* v : vars) {
        unchanged &= !(n->kind == NodeKind::Assign && n->target == v) && !(n->kind == NodeKind::Loop && n->counter == v);
        if (n->kind == NodeKind::Call)
          for (AdArg a : ad_args(n->call)) unchanged &= ir.var(a.expr) != v;
      }
    };
    for_each_node(branch->then_node, visit);
    for_each_node(branch->else_node, visit);
    if (!active || !unchanged) continue;
    branch->cond_in_reverse = true;
    for (Var* v : vars) {
      v->read_in_reverse = true;
      reads.push_back({branch, v});
    }
  }
}

// Regions some statement writes: by assignment, or through a call's pointer or reference.
std::set<Var*> written_regions(const FunctionIR& ir, const std::vector<Node*>& all) {
  std::set<Var*> written;
  for (Node* n : all) {
    if (n->kind == NodeKind::Assign && n->memory_root) written.insert(n->memory_root);
    if (n->kind == NodeKind::Call && ir.hoisted.count(n->call)) {
      std::vector<AdParam> params = ad_params(n->call->getDirectCallee());
      std::vector<AdArg> args = ad_args(n->call);
      for (size_t i = 0; i < args.size() && i < params.size(); ++i)
        if (is_written_param(params[i].type))
          if (Var* r = memory_root(ir, args[i].expr)) written.insert(r);
    }
  }
  return written;
}

// Whether a node after `definition` in `block` satisfies `writes`.
template <class F>
bool written_later(const std::vector<Node*>& all, const Node* definition, const Node* block, F&& writes) {
  for (const Node* n : all)
    if (n->order > definition->order && encloses(block, n) && writes(n)) return true;
  return false;
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
bool cheap_call(const CallExpr* call, const CustomPullbacks& custom) {
  const FunctionDecl* callee = call->getDirectCallee();
  const FunctionDecl* definition = callee ? callee->getDefinition() : nullptr;
  if (!definition || callee_kind(callee, custom) != CalleeKind::User || isa<CXXMethodDecl>(callee) ||
      !callee->getReturnType()->isArithmeticType())
    return false;
  for (const ParmVarDecl* p : callee->parameters())
    if (!p->getType()->isArithmeticType()) return false;
  std::function<bool(const Stmt*)> plain = [&](const Stmt* s) {
    if (!s) return true;
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s) || isa<GotoStmt>(s))
      return false;
    if (auto* c = dyn_cast<CallExpr>(s); c && math_function(c) == MathFn::None) return false;
    if (auto* r = dyn_cast<DeclRefExpr>(s))
      if (auto* v = dyn_cast<VarDecl>(r->getDecl()); v && !v->isLocalVarDeclOrParm()) return false;
    if (auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (auto* v = dyn_cast<VarDecl>(d); v && (v->isStaticLocal() || !plain(v->getInit()))) return false;
    for (const Stmt* c : s->children())
      if (!plain(c)) return false;
    return true;
  };
  return plain(definition->getBody());
}

// A sum `s = e0; for (i = a; i < E; i += k) s += e;` (the loop's only statement, directly after
// in the same block, s read in the reverse only after the loop): the loop that completes s's value,
// run again when s is recomputed (Node::recomputed_sum). Its start, bound and e are then part of
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
  if (std::find(in_sum.begin(), in_sum.end(), v) != in_sum.end() ||
      !invariant_in(ir, loop->start, loop, all) || !invariant_in(ir, loop->end ? loop->end : loop->last, loop, all))
    return nullptr;
  for (const ReadSite& r : reads)
    if (r.var == v && r.node->order <= add->order) return nullptr;
  return loop;
}

// Locals the reverse sweep recomputes from their definition instead of taping (Var::recompute).
// A local defined once in a loop is recomputed at the start of its block's reverse, so its
// definition must give there what it gave in the forward: nothing it reads (a variable, or memory
// of a region) is written later in the block, by an assignment (a loop's initialisation and
// increment included: only loops that declare their counter are lowered with none) or through a
// call. What it reads is then read in the reverse there, so it is kept, taped or recomputed in
// turn, and later overwrites of the memory it reads are taped. A call's result is recomputed the
// same way, by calling again, when that is cheap (cheap_call) and its arguments are stable, and a
// sum by running its loop again (summing_loop): one pass over a row instead of a value per row.
void plan_recomputation(FunctionIR& ir, const std::vector<Node*>& all, std::vector<ReadSite>& reads,
                        const CustomPullbacks& custom) {
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& vp : ir.vars) {
      Var* v = vp.get();
      bool call = v->kind == VarKind::CallResult && v->definition && cheap_call(v->definition->call, custom);
      Node* sum = v->definition && !v->recompute ? summing_loop(ir, v, all, reads) : nullptr;
      if ((v->kind != VarKind::Local && !call) || v->memory || v->counter || (v->assignments != 1 && !sum) ||
          !v->definition || v->definition->loops.empty() || !v->read_in_reverse || v->recompute)
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
      v->recompute = changed = true;
      if (sum) sum->recomputed_sum = v;
      // Parameters' values are the reverse's own arguments.
      for (Var* d : deps.values)
        if (d->kind != VarKind::Param) {
          d->read_in_reverse = true;
          reads.push_back({v->definition, d});
        }
      for (Var* r : deps.regions) {
        r->read_in_reverse = true;
        reads.push_back({v->definition, r});
      }
    }
  }
}

// Locals of a jump-free loop's body are private to its iteration (Var::iteration).
void find_iteration_locals(FunctionIR& ir) {
  for (auto& vp : ir.vars) {
    Var* v = vp.get();
    Node* loop = v->block ? v->block->parent : nullptr;
    if ((v->kind == VarKind::Local || v->kind == VarKind::CallResult) && !v->memory && !v->counter && loop &&
        loop->kind == NodeKind::Loop && loop->body == v->block && loop->jumps.empty())
      v->iteration = loop;
  }
}

// Whether a and b lie in different branches of one `if`, so one execution of it runs only one.
bool exclusive_branches(const Node* a, const Node* b) {
  for (const Node* x = a; x->parent; x = x->parent) {
    const Node* branch = x->parent;
    if (branch->kind != NodeKind::If) continue;
    const Node* other = x == branch->then_node ? branch->else_node : x == branch->else_node ? branch->then_node : nullptr;
    if (other && encloses(other, b)) return true;
  }
  return false;
}

// An assignment is taped when reverse code that runs after it (in reverse order) reads the old
// value: a read at or before it in program order (not in the other branch of an `if`), or anywhere
// in a loop they share — unless each iteration of the loops they share reads and writes elements
// of its own (rows of a matrix).
void plan_assignment_save(const FunctionIR& ir, Node* n, const std::vector<ReadSite>& reads,
                          const std::vector<Node*>& all) {
  Var* written = n->target ? n->target : n->memory_root;
  if (!written || written->recompute || written->kind == VarKind::Return) return;
  for (const ReadSite& r : reads)
    if (r.var == written &&
        ((r.node->order <= n->order && !exclusive_branches(r.node, n)) ||
         (shares_loop(r.node, n, written->iteration) &&
          !(!n->target && disjoint_iterations(ir, n, r.node, written, all))))) {
      n->save = true;
      return;
    }
}

// The member of a struct a pointer or lvalue expression addresses memory through (`a.out + k`,
// `a.layers[l].qkv`, `&s.buf[i]`: the pointer or array member `out`, `qkv`, `buf`); nullptr when it is
// not reached through one. Distinct pointer members are assumed not to alias, as distinct pointer
// parameters are, so each member is a region of its own within its struct.
const FieldDecl* member_region(const Expr* e) {
  e = strip(e);
  if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub))
    return member_region(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
  if (auto* u = dyn_cast<UnaryOperator>(e); u && (u->getOpcode() == UO_AddrOf || u->getOpcode() == UO_Deref))
    return member_region(u->getSubExpr());
  if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) return member_region(s->getBase());
  if (auto* m = dyn_cast<MemberExpr>(e)) {
    QualType t = m->getType().getCanonicalType();
    if (t->isPointerType() || t->isArrayType()) return dyn_cast<FieldDecl>(m->getMemberDecl());
    return member_region(m->getBase());
  }
  return nullptr;
}

// Whether node `n` accesses `region` other than through pointer or array members other than `member`.
bool accesses_member(const FunctionIR& ir, const Node* n, const Var* region, const FieldDecl* member) {
  bool found = false;
  std::function<void(const Expr*)> visit = [&](const Expr* e) {
    if (!e || found) return;
    e = strip(e);
    if (Var* v = ir.var(e); v && v->pointer && v->kind != VarKind::Param && v->root == region) {
      const FieldDecl* through = member_region(v->base);  // a local pointer into the region
      found = !through || through == member;
      return;
    }
    if (auto* m = dyn_cast<MemberExpr>(e); m && memory_root(ir, m) == region) {
      QualType t = m->getType().getCanonicalType();
      if (t->isPointerType() || t->isArrayType()) {
        found = m->getMemberDecl() == member;
        return;
      }
    }
    if ((isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e)) && memory_root(ir, e) == region) {
      found = true;  // the whole struct
      return;
    }
    for (const Stmt* c : e->children()) visit(dyn_cast_or_null<Expr>(c));
  };
  if (n->kind == NodeKind::Call)
    for (const AdArg& a : ad_args(n->call)) visit(a.expr);
  visit(n->lhs);
  visit(n->rhs);
  visit(n->cond);
  return found;
}

// A call's result is taped like an assignment's target. Memory the call writes is not taped: a
// call that overwrites what the reverse reads is rejected, as is an argument read from memory the
// call writes.
void plan_call_save(const FunctionIR& ir, Node* n, const std::vector<ReadSite>& reads, const CustomPullbacks& custom,
                    Diagnostics& diags) {
  for (const ReadSite& r : reads)
    if (n->result && !n->result->recompute && r.var == n->result &&
        (r.node->order <= n->order || shares_loop(r.node, n, n->result->iteration))) {
      n->save = true;
      break;
    }
  const FunctionDecl* callee = n->call->getDirectCallee();
  const bool custom_callee = callee_kind(callee, custom) == CalleeKind::Custom;
  std::vector<AdParam> params = ad_params(callee);
  std::vector<AdArg> args = ad_args(n->call);
  for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
    if (!is_written_param(params[i].type)) continue;
    Var* region = memory_root(ir, args[i].expr);
    if (is_write_once(region)) continue;  // the user's contract: no call overwrites what it wrote
    const FieldDecl* member = member_region(args[i].expr);
    for (const ReadSite& r : reads)
      // A custom pullback reads memory as its call left it, so a call in a loop also destroys
      // what its own earlier iterations' pullbacks read (generated callees restore it from
      // their tape). Reads through other pointer members of a struct read other memory.
      if (r.var == region && (r.node != n || custom_callee) && (r.node->order < n->order || shares_loop(r.node, n)) &&
          (!member || accesses_member(ir, r.node, region, member))) {
        diags.error(n->loc, "'" + region->name + "' is overwritten by the call to '" + callee->getNameAsString() +
                                "' but the derivative needs its earlier value; copy it first");
        break;
      }
    // The reverse evaluates the arguments again for the pullback, before the callee's reverse
    // has restored what the call wrote: an argument read from that memory would be the new value.
    for (const AdArg& a : args)
      if (reads_value_of(ir, a.expr, region)) {
        diags.error(a.expr->getBeginLoc(), "an argument reads '" + region->name + "', which the call to '" +
                                               callee->getNameAsString() +
                                               "' overwrites; copy the value into a local first");
        break;
      }
  }
}

// Variables whose value at the end of the forward sweep is pushed there and popped at the start
// of the reverse (Var::kept).
void plan_kept(FunctionIR& ir, const std::set<Var*>& written) {
  for (auto& vp : ir.vars) {
    Var* v = vp.get();
    bool assigned_param = v->kind == VarKind::Param && v->assignments > 0;
    v->kept = v->read_in_reverse && !v->recompute && !v->counter && !v->iteration &&
              (v->kind == VarKind::Local || v->kind == VarKind::CallResult || assigned_param) &&
              (!v->memory || written.count(v));
  }
}

// Which nodes have reverse code (Node::reverse).
bool mark_reverse(Node* n) {
  if (!n) return false;
  bool r = false;
  switch (n->kind) {
    case NodeKind::Assign: r = n->active || n->save; break;
    case NodeKind::Call: r = n->active || n->save; break;
    case NodeKind::Jump: r = true; break;
    case NodeKind::Block:
      for (Node* c : n->children) r |= mark_reverse(c);
      break;
    case NodeKind::If:
      r = mark_reverse(n->then_node);
      r |= mark_reverse(n->else_node);
      break;
    case NodeKind::Loop:
      r = mark_reverse(n->body);
      r |= mark_reverse(n->inc);
      break;
  }
  n->reverse = r;
  return r;
}

void reject_calls_in_parallel_loops(const FunctionIR& ir, Diagnostics& diags) {
  for (Node* loop : ir.parallel_loops)
    for_each_node(loop->body, [&](Node* n) {
      if (n->kind == NodeKind::Call && n->active)
        diags.error(n->loc, "calls of differentiated functions inside an OpenMP parallel loop are not supported");
    });
}

}  // namespace

// The phases, in the order docs/adjc-internals.md describes them.
void plan_tape(FunctionIR& ir, const Activity& full, const CustomPullbacks& custom, Diagnostics& diags) {
  std::vector<Node*> all;
  for_each_node(ir.body, [&](Node* n) { all.push_back(n); });
  check_derivatives(ir, full, all, diags);
  std::vector<ReadSite> reads = find_reverse_reads(ir, full, all);
  plan_loop_bounds(ir, all, reads);
  plan_branch_conditions(ir, all, reads);
  std::set<Var*> written = written_regions(ir, all);
  plan_recomputation(ir, all, reads, custom);
  find_iteration_locals(ir);
  for (Node* n : all) {
    if (n->kind == NodeKind::Assign) plan_assignment_save(ir, n, reads, all);
    else if (n->kind == NodeKind::Call && ir.hoisted.count(n->call)) plan_call_save(ir, n, reads, custom, diags);
  }
  for (Node* n : all) n->result_in_target = result_in_target(ir, n, all);
  plan_bulk_saves(ir, all, reads);
  plan_kept(ir, written);
  mark_reverse(ir.body);
  plan_simd_reverse(ir, full, all);
  reject_calls_in_parallel_loops(ir, diags);
}

}  // namespace adjc
