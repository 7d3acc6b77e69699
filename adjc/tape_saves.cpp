// Tape plan, saves: which overwrites are taped, which calls' overwrites are rejected, and which
// results the reverse reads back from their targets (tape_plan.hpp).
#include <llvm/ADT/FoldingSet.h>

#include <algorithm>
#include <array>
#include <functional>
#include <set>

#include "containers.hpp"
#include "ir_walk.hpp"
#include "iteration.hpp"
#include "tape_plan.hpp"

namespace adjc {

using namespace clang;

namespace {

// Whether a and b lie in different branches of one `if`, so one execution of it runs only one.
bool exclusive_branches(const Node* a, const Node* b) {
  for (const Node* x = a; x->parent; x = x->parent) {
    const Node* branch = x->parent;
    if (branch->kind != NodeKind::If) continue;
    const Node* other = x == branch->then_node   ? branch->else_node
                        : x == branch->else_node ? branch->then_node
                                                 : nullptr;
    if (other && encloses(other, b)) return true;
  }
  return false;
}

// The member of a struct a pointer or lvalue expression addresses memory through (`a.out + k`,
// `a.layers[l].qkv`, `&s.buf[i]`: the pointer or array member `out`, `qkv`, `buf`); nullptr when it is
// not reached through one. Distinct pointer members are assumed not to alias, as distinct pointer
// parameters are, so each member is a region of its own within its struct.
const FieldDecl* member_region(const FunctionIR& ir, const Expr* e) {
  e = strip(e, ir.unit);
  if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub))
    return member_region(ir, b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
  if (auto* u = dyn_cast<UnaryOperator>(e); u && (u->getOpcode() == UO_AddrOf || u->getOpcode() == UO_Deref))
    return member_region(ir, u->getSubExpr());
  if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) return member_region(ir, s->getBase());
  if (auto* m = dyn_cast<MemberExpr>(e)) {
    QualType t = m->getType().getCanonicalType();
    if (t->isPointerType() || t->isArrayType()) return dyn_cast<FieldDecl>(m->getMemberDecl());
    return member_region(ir, m->getBase());
  }
  return nullptr;
}

// Whether node `n` accesses `region` other than through pointer or array members other than `member`.
bool accesses_member(const FunctionIR& ir, const Node* n, const Var* region, const FieldDecl* member) {
  bool found = false;
  auto visit = [&](const Expr* e) {
    if (found) return false;
    if (Var* v = ir.var(e); v && v->pointer && v->kind != VarKind::Param && v->root == region) {
      const FieldDecl* through = member_region(ir, v->base);  // a local pointer into the region
      found = !through || through == member;
      return false;
    }
    if (auto* m = dyn_cast<MemberExpr>(e); m && memory_root(ir, m) == region) {
      QualType t = m->getType().getCanonicalType();
      if (t->isPointerType() || t->isArrayType()) {
        found = m->getMemberDecl() == member;
        return false;
      }
    }
    found = (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e)) && memory_root(ir, e) == region;  // the whole struct
    return !found;
  };
  if (n->kind == NodeKind::Call)
    for (const AdArg& a : ad_args(n->call)) walk_stripped(a.expr, ir.unit, visit);
  for (const Expr* e : {n->lhs, n->rhs, n->cond}) walk_stripped(e, ir.unit, visit);
  return found;
}

// A pointer or reference parameter: the call passes memory (a value-class handle is a value).
bool memory_param(QualType t, const UnitFacts& unit) {
  t = t.getCanonicalType();
  return (t->isPointerType() || t->isReferenceType()) && !is_value_class(t->getPointeeType(), unit);
}

const CallSummary* summary_of(const CallExpr* call, const UnitFacts& unit) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (!callee ||
      (callee_kind(callee, unit) != CalleeKind::User && !unit.pointer_results.count(callee->getCanonicalDecl())))
    return nullptr;
  auto it = unit.call_summaries.find(callee->getDefinition());
  return it == unit.call_summaries.end() ? nullptr : &it->second;
}

bool same_expression(const FunctionIR& ir, const Expr* a, const Expr* b) {
  llvm::FoldingSetNodeID x, y;
  strip(a, ir.unit)->Profile(x, ir.fn->getASTContext(), true);
  strip(b, ir.unit)->Profile(y, ir.fn->getASTContext(), true);
  return x == y;
}

// Whether what node `r` reads of `region` is restored from the tape before its reverse reads it:
// `r` is a taped assignment into `region` whose every read of the region is its own target
// (`o[0] = o[0] * a`), so its reverse does not depend on what the region holds when it starts. A
// bulk save restores before the loop's reverse when the loop's reverse reads the old values
// (`loops`: nullptr before the loop plans are made).
bool restored_before_read(const FunctionIR& ir, const TapePlan& plan, const LoopPlans* loops, const Node* r,
                          const Var* region) {
  if (r->kind != NodeKind::Assign || !plan[r].save || plan[r].result_in_target || r->memory_root != region || !r->lhs)
    return false;
  if (loops && loops->saved_in_bulk(r) && !loops->bulk_of(r->loops.back())->restore_first) return false;
  bool only_target = true;
  auto visit = [&](const Expr* e) {
    if (!only_target) return false;
    if (!is_memory_read(e) || memory_root(ir, e) != region) return true;
    only_target = same_expression(ir, e, r->lhs);
    return false;
  };
  walk_stripped(r->rhs, ir.unit, visit);
  for (const Stmt* c : strip(r->lhs, ir.unit)->children()) walk_stripped(dyn_cast_or_null<Expr>(c), ir.unit, visit);
  return only_target;
}

// Whether the reverse sweep of `ir` reads memory of `region` as it finds it there: a read the tape
// does not restore first, or a result read back from its target (NodePlan::result_in_target).
bool reverse_reads_region(const FunctionIR& ir, const TapePlan& plan, const LoopPlans& loops,
                          const std::vector<Node*>& all, const Var* region) {
  for (const ReadSite& r : plan.reads)
    if (r.var == region && !restored_before_read(ir, plan, &loops, r.node, region)) return true;
  for (const Node* n : all)
    if (plan[n].result_in_target && n->memory_root == region) return true;
  return false;
}

// The expressions a node holds, for walks over everything it mentions.
std::array<const Expr*, 7> expressions_of(const Node* n) {
  return {n->lhs, n->rhs, n->cond, n->call, n->start, n->end, n->last};
}

// A write to memory of a region: an assignment (`call` nullptr) or argument `arg` of a call.
struct RegionWrite {
  const Node* node;
  const CallExpr* call;
  size_t arg;
};

// The statements of `ir` that write memory of `region`: assignments, and calls (in any expression)
// that write what their argument points to.
std::vector<RegionWrite> region_writes(const FunctionIR& ir, const std::vector<Node*>& all, const Var* region) {
  std::vector<RegionWrite> out;
  for (const Node* n : all) {
    if (n->kind == NodeKind::Assign && (n->memory_root == region || n->target == region))
      out.push_back({n, nullptr, 0});
    auto visit = [&](const Expr* e) {
      if (auto* call = dyn_cast<CallExpr>(e);
          call && math_function(call) == MathFn::None && (call == n->call || !ir.hoisted.count(call))) {
        std::vector<AdArg> args = ad_args(call);
        for (size_t i = 0; i < args.size(); ++i)
          if (memory_root(ir, args[i].expr) == region &&
              (!call->getDirectCallee() || call_writes_memory(call, i, ir.unit)))
            out.push_back({n, call, i});
      }
      return true;
    };
    for (const Expr* e : expressions_of(n)) walk_operands(e, visit);
  }
  return out;
}

// Whether call `n`'s own reverse reads memory of `region` that its argument through `member` (nullptr:
// not through a pointer member) overwrites: an argument in the region, through the same member or
// none, whose memory the callee's reverse reads.
bool reads_own_write(const FunctionIR& ir, const Node* n, const Var* region, const FieldDecl* member) {
  std::vector<AdArg> args = ad_args(n->call);
  for (size_t j = 0; j < args.size(); ++j) {
    if (memory_root(ir, args[j].expr) != region || !call_reads_memory(n->call, j, ir.unit)) continue;
    const FieldDecl* through = member_region(ir, args[j].expr);
    if (!member || !through || through == member) return true;
  }
  return false;
}

// Whether the reverse of `ir` leaves `region` as it found it before the forward ran: every write
// to it is taped (restored by its reverse) or an active call whose callee restores what it writes.
bool restores_region(const FunctionIR& ir, const TapePlan& plan, const std::vector<Node*>& all, const Var* region) {
  for (const Node* n : all)
    if (n->refilled == region) return false;
  for (const RegionWrite& w : region_writes(ir, all, region)) {
    if (!w.call) {
      if (!plan[w.node].save) return false;
      continue;
    }
    const std::vector<Var*>& taped = plan[w.node].taped_regions;
    if (w.call == w.node->call && std::count(taped.begin(), taped.end(), region)) continue;
    const CallSummary* summary = summary_of(w.call, ir.unit);
    if (w.call != w.node->call || !plan[w.node].active || !summary || w.arg >= summary->restores.size() ||
        !summary->restores[w.arg])
      return false;
  }
  return true;
}

// The position of the parameter k when every access of pointer parameter `region` in `ir` is
// `region[k]`, k an integer parameter that nothing assigns: each call touches the one element its
// caller names; else -1.
int element_index(const FunctionIR& ir, const std::vector<Node*>& all, const Var* region) {
  std::vector<const Node*> assignments;
  bool elsewhere = false;
  auto mentions = [&](const Expr* e) {
    elsewhere |= (isa<DeclRefExpr>(strip(e, ir.unit)) || ir.var(e)) && memory_root(ir, e) == region;
    return !elsewhere;
  };
  for (const Node* n : all) {
    if (n->kind == NodeKind::Assign) assignments.push_back(n);
    else
      for (const Expr* e : expressions_of(n)) walk_operands(e, mentions);
  }
  std::vector<const Expr*> accesses;
  if (elsewhere || !region_subscripts(ir, assignments, region, accesses) || accesses.empty()) return -1;
  const Var* k = nullptr;
  for (const Expr* a : accesses) {
    auto* sub = cast<ArraySubscriptExpr>(strip(a, ir.unit));
    auto* base = dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit));
    auto* index = dyn_cast<DeclRefExpr>(strip(sub->getIdx(), ir.unit));
    const Var* i = index ? ir.var(index) : nullptr;
    if (!base || ir.var(base) != region || !i || i->kind != VarKind::Param || i->assignments ||
        !i->type->isIntegerType() || (k && i != k))
      return -1;
    k = i;
  }
  return k->param_index;
}

// Call `n`'s access of the element it writes through argument `i` (`p[k]` for the callee's `p[k]`,
// built in the AST for the iteration analysis, or the element a reference is bound to); nullptr
// when the callee's accesses of it are not one element its caller names (`summary`), or the
// argument is not a pointer variable.
const Expr* call_element(const FunctionIR& ir, const Node* n, const CallSummary* summary,
                         const std::vector<AdArg>& args, size_t i) {
  // A number by reference: the call touches the one element it is bound to (`doubler(arr[i])`).
  std::vector<AdParam> params = ad_params(n->call->getDirectCallee());
  if (i < params.size() && params[i].decl && params[i].type->isLValueReferenceType() &&
      is_floating(params[i].type.getNonReferenceType()))
    return dyn_cast<ArraySubscriptExpr>(strip(args[i].expr, ir.unit));
  if (!summary || i >= summary->element_index.size() || summary->element_index[i] < 0) return nullptr;
  size_t k = summary->element_index[i];
  auto* pointer = dyn_cast<DeclRefExpr>(strip(args[i].expr, ir.unit));
  if (k >= args.size() || args[i].address || args[k].address || !pointer || !ir.var(pointer) ||
      !ir.var(pointer)->pointer)
    return nullptr;
  ASTContext& context = ir.fn->getASTContext();
  return new (context)
      ArraySubscriptExpr(const_cast<Expr*>(args[i].expr), const_cast<Expr*>(args[k].expr),
                         pointer->getType()->getPointeeType(), VK_LValue, OK_Ordinary, n->call->getEndLoc());
}

// Whether each iteration of every loop enclosing both `n` and `r` gets elements of `region` of its
// own in `element` (call n's) and in r's accesses (none when r is n itself).
bool disjoint_call_iterations(const FunctionIR& ir, const Node* n, const Expr* element, const Node* r,
                              const Var* region, const std::vector<Node*>& all) {
  std::vector<const Expr*> accesses{element};
  if (r != n && !region_subscripts(ir, {r}, region, accesses)) return false;
  return same_elements_in_shared_loops(ir, accesses, n, r, all);
}

using Assumed = std::set<std::pair<const FunctionDecl*, unsigned>>;
bool only_reads(const FunctionDecl* f, unsigned i, Assumed& assumed, const UnitFacts& unit);

// Whether passing memory to parameter j of `g` leaves it unwritten, by g's summary or, for a
// function planned after this question (within a recursion), by only_reads.
bool passes_unwritten(const FunctionDecl* g, unsigned j, Assumed& assumed, const UnitFacts& unit) {
  if (!g || isa<CXXMethodDecl>(g) || j >= g->getNumParams()) return false;
  if (!writes_numbers(g->getParamDecl(j)->getType())) return true;
  const FunctionDecl* definition = g->getDefinition();
  if (!definition || callee_kind(g, unit) != CalleeKind::User) return false;
  if (auto it = unit.call_summaries.find(definition); it != unit.call_summaries.end())
    return j < it->second.writes.size() && !it->second.writes[j];
  if (!assumed.insert({definition, j}).second) return true;
  return only_reads(definition, j, assumed, unit);
}

// Within a recursion a callee has no summary yet: its plan comes after its callers'. Its parameter
// `i` is still known unwritten when the body only reads numbers through it (`p[k]`, `*p`, a
// reference's value) and passes it, or `p + k`, to parameters that leave it unwritten in turn. A
// call back into the recursion is assumed to (a write would show at some function's own uses).
bool only_reads(const FunctionDecl* f, unsigned i, Assumed& assumed, const UnitFacts& unit) {
  const ParmVarDecl* p = f->getParamDecl(i);
  auto names_p = [&](const Expr* e) {
    auto* r = e ? dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
    return r && r->getDecl() == p;
  };
  bool ok = f->hasBody();
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || !ok) return;
    if (auto* read = dyn_cast<ImplicitCastExpr>(s); read && read->getCastKind() == CK_LValueToRValue) {
      const Expr* in = read->getSubExpr()->IgnoreParens();
      if (p->getType()->isReferenceType() && names_p(in)) return;
      if (auto* a = dyn_cast<ArraySubscriptExpr>(in); a && names_p(a->getBase())) return walk(a->getIdx());
      if (auto* u = dyn_cast<UnaryOperator>(in); u && u->getOpcode() == UO_Deref && names_p(u->getSubExpr())) return;
    }
    if (auto* call = dyn_cast<CallExpr>(s)) {
      for (unsigned j = 0; j < call->getNumArgs(); ++j) {
        const Expr* arg = call->getArg(j)->IgnoreParenImpCasts();
        auto* shift = dyn_cast<BinaryOperator>(arg);
        const bool shifted =
            shift && (shift->getOpcode() == BO_Add || shift->getOpcode() == BO_Sub) && names_p(shift->getLHS());
        if (!shifted && !names_p(arg)) {
          walk(call->getArg(j));
          continue;
        }
        if (!passes_unwritten(call->getDirectCallee(), j, assumed, unit)) return void(ok = false);
        if (shifted) walk(shift->getRHS());
      }
      return walk(call->getCallee());
    }
    if (auto* r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == p) return void(ok = false);
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(f->getBody());
  return ok;
}

}  // namespace

bool call_reads_memory(const CallExpr* call, size_t i, const UnitFacts& unit) {
  std::vector<AdParam> params = ad_params(call->getDirectCallee());
  if (i >= params.size() || !memory_param(params[i].type, unit)) return true;
  const CallSummary* summary = summary_of(call, unit);
  if (summary) return summary->reads[i];
  const FunctionDecl* callee = call->getDirectCallee();
  return !(callee && callee_kind(callee, unit) == CalleeKind::Custom && custom_pullback_leaves_unread(callee, i, unit));
}

bool call_writes_memory(const CallExpr* call, size_t i, const UnitFacts& unit) {
  std::vector<AdParam> params = ad_params(call->getDirectCallee());
  if (i >= params.size() || !writes_numbers(params[i].type)) return false;
  // A temporary bound to a reference (`o.value_or(2)`, a `U&&`) is the call's own.
  if (isa<MaterializeTemporaryExpr>(ad_args(call)[i].expr->IgnoreParens())) return false;
  const CallSummary* summary = summary_of(call, unit);
  if (summary) return summary->writes[i];
  const FunctionDecl* callee = call->getDirectCallee();
  Assumed assumed;
  return !(callee && !isa<CXXMethodDecl>(callee) && callee_kind(callee, unit) == CalleeKind::User &&
           passes_unwritten(callee, unsigned(i), assumed, unit));
}

void record_call_summary(const FunctionIR& ir, const TapePlan& plan, const LoopPlans& loops,
                         const std::vector<Node*>& all) {
  CallSummary summary;
  std::vector<AdParam> params = ad_params(ir.fn);
  for (size_t i = 0; i < ir.params.size() && i < params.size(); ++i) {
    bool memory = memory_param(params[i].type, ir.unit);
    summary.reads.push_back(!memory || reverse_reads_region(ir, plan, loops, all, ir.params[i]));
    summary.writes.push_back(writes_numbers(params[i].type) &&
                             (!memory || !region_writes(ir, all, ir.params[i]).empty()));
    summary.restores.push_back(memory && restores_region(ir, plan, all, ir.params[i]));
    summary.element_index.push_back(ir.params[i]->pointer ? element_index(ir, all, ir.params[i]) : -1);
  }
  ir.unit.call_summaries[ir.fn] = std::move(summary);
}

namespace {

// Whether values of type `t` are numbers all the way down (a number, an array or std::vector /
// std::array of them, a struct of such members): copying the value copies all the memory it owns.
bool numbers_only(QualType t) {
  t = t.getCanonicalType().getNonReferenceType();
  if (t->isArithmeticType()) return true;
  if (auto* a = dyn_cast<ConstantArrayType>(t.getTypePtr())) return numbers_only(a->getElementType());
  if (is_container(t)) return true;
  auto* record = t->getAsCXXRecordDecl();
  if (!record || !(copied_by_members(t) || held_in_place(t))) return false;
  for (const FieldDecl* f : record_fields(record))
    if (!numbers_only(f->getType())) return false;
  return true;
}

// Whether call `n` may tape `region` whole before it overwrites it: a variable of numbers (not
// memory behind a pointer, whose extent adjc does not know), outside parallel loops (the tape is
// per thread, the variable may be shared).
bool tapeable_whole(const Var* region, const Node* n) {
  for (const Node* loop : n->loops)
    if (loop->parallel) return false;
  return !region->pointer && numbers_only(region->type);
}

}  // namespace

// An assignment is taped when reverse code that runs after it (in reverse order) reads the old
// value: a read at or before it in program order (not in the other branch of an `if`), or anywhere
// in a loop they share — unless each iteration of the loops they share reads and writes elements
// of its own (rows of a matrix).
const ReadSite* plan_assignment_save(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all,
                                     const IterationLocals& iteration, TapePlan& plan) {
  Var* written = n->target ? n->target : n->memory_root;
  if (!written || plan[written].recompute || written->kind == VarKind::Return) return nullptr;
  for (const ReadSite& r : plan.reads)
    if (r.var == written && ((r.node->order <= n->order && !exclusive_branches(r.node, n)) ||
                             (shares_loop(r.node, n, iteration.of(written)) &&
                              !(!n->target && disjoint_iterations(ir, n, r.node, written, all))))) {
      plan[n].save = true;
      return &r;
    }
  return nullptr;
}

// A call's result is taped like an assignment's target. A call that overwrites what the reverse
// reads tapes the region whole when it is a variable of numbers (NodePlan::taped_regions), and is
// rejected when it is memory behind a pointer; an argument read from memory the call writes is
// rejected. What the call writes, and what calls read in the reverse, are the callees'
// summaries (call_writes_memory, call_reads_memory).
void plan_call_save(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all,
                    const IterationLocals& iteration, TapePlan& plan, Diagnostics& diags) {
  for (const ReadSite& r : plan.reads)
    if (n->result && !plan[n->result].recompute && r.var == n->result &&
        (r.node->order <= n->order || shares_loop(r.node, n, iteration.of(n->result)))) {
      plan[n].save = true;
      break;
    }
  const FunctionDecl* callee = n->call->getDirectCallee();
  std::vector<AdArg> args = ad_args(n->call);
  std::vector<AdParam> params = ad_params(callee);
  const CallSummary* summary = summary_of(n->call, ir.unit);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!call_writes_memory(n->call, i, ir.unit)) continue;
    Var* region = memory_root(ir, args[i].expr);
    if (!region && !ir.hoisted.count(n->call)) continue;  // a plain call writing memory no reverse reads
    if (!region) {
      diags.error(args[i].expr->getBeginLoc(), Diag::call_writes_untracked_argument, {callee->getNameAsString()});
      continue;
    }
    if (is_write_once(region)) continue;  // the user's contract: no call overwrites what it wrote
    // The call's reverse (when it has one) puts back what it wrote before any reverse code that
    // runs after it.
    bool restores = plan[n].active && summary && i < summary->restores.size() && summary->restores[i];
    const FieldDecl* member = member_region(ir, args[i].expr);
    const Expr* element = call_element(ir, n, summary, args, i);
    for (const ReadSite& r : plan.reads)
      // Reverse code that runs after the call's reads the region as the forward left it: code
      // before the call, and in a loop also the call itself (an earlier iteration's reverse reads
      // what a later iteration overwrote), unless the tape restores what it reads first, or each
      // iteration has elements of its own. Reads through other pointer members of a struct read
      // other memory.
      if (!restores && r.var == region && (r.node->order < n->order || shares_loop(r.node, n)) &&
          !restored_before_read(ir, plan, nullptr, r.node, region) &&
          !(element && r.node->order >= n->order && disjoint_call_iterations(ir, n, element, r.node, region, all)) &&
          (r.node == n ? reads_own_write(ir, n, region, member)
                       : !member || accesses_member(ir, r.node, region, member))) {
        if (tapeable_whole(region, n)) plan[n].taped_regions.push_back(region);
        else
          diags.error(n->loc, Diag::call_overwrites_needed_value, {region->source_name(), callee->getNameAsString()});
        break;
      }
    // The reverse evaluates the arguments again for the pullback, before the callee's reverse
    // has restored what the call wrote: an argument read from that memory would be the new value.
    for (size_t j = 0; j < args.size() && j < params.size(); ++j)
      if (params[j].type->isLValueReferenceType() && !params[j].type->getPointeeType().isConstQualified()
              ? place_reads_value_of(ir, args[j].expr, region)  // bound to a reference: a place, not a value
              : reads_value_of(ir, args[j].expr, region)) {
        const AdArg& a = args[j];
        diags.error(a.expr->getBeginLoc(), Diag::argument_reads_overwritten_value,
                    {region->source_name(), callee->getNameAsString()});
        break;
      }
  }
}

// Whether `n` (any node) passes memory of `region` to a call other than a math function, which
// could write it where the tape plan cannot see, or refills it (a local vector's resize). A hoisted call counts at its own Call node, not
// in the expression it was hoisted from.
bool passes_region_to_call(const FunctionIR& ir, const Node* n, const Var* region) {
  bool passed = n->refilled == region;
  auto visit = [&](const Expr* e) {
    if (auto* call = dyn_cast<CallExpr>(e);
        !passed && call && math_function(call) == MathFn::None && (call == n->call || !ir.hoisted.count(call)))
      for (const Expr* a : call->arguments()) passed |= memory_root(ir, a) == region;
    return !passed;
  };
  for (const Expr* e : {n->lhs, n->rhs, n->cond, static_cast<const Expr*>(n->call), n->start, n->end})
    walk_operands(e, visit);
  return passed;
}

namespace {

// Whether m[...], the target of assignment `n`, holds exactly what n wrote once the reverse sweep
// reaches n: every write to the region that can run after n (later in program order, or in a later
// iteration of a loop they share, n itself included, unless each iteration of those loops has
// elements of its own) is taped or undone, so its reverse has restored the region before; and no
// call receives the region. In a parallel loop, no other thread touches the element (the forward
// loop is race-free). Distinct parameters are assumed not to alias, as everywhere in adjc.
bool target_holds_value(const FunctionIR& ir, const TapePlan& plan, const Node* n, const std::vector<Node*>& all) {
  if (n->target) return true;  // a local assigned once (result_in_scalar_target)
  for (const Node* w : all) {
    if (passes_region_to_call(ir, w, n->memory_root)) return false;
    if (w->kind == NodeKind::Assign && w->memory_root == n->memory_root && !plan[w].save &&
        !plan[w].undone_by_inverse &&
        (w->order > n->order || (shares_loop(w, n) && !disjoint_iterations(ir, n, w, n->memory_root, all))))
      return false;
  }
  return true;
}

// The scalar variable `e` names, if any.
const Var* scalar_variable(const FunctionIR& ir, const Expr* e) {
  const Var* v = isa<DeclRefExpr>(strip(e, ir.unit)) ? ir.var(strip(e, ir.unit)) : nullptr;
  return v && v->floating && !v->memory ? v : nullptr;
}

}  // namespace

// Whether the reverse of `n`, an assignment `m[...] = f(x)` with f exp, tanh or sqrt (whose
// derivatives are functions of f's value), may read f(x) from m[...] instead of calling f again.
// It may when the target has the call's type (no rounding between them), holds what n wrote when
// the reverse reaches n (target_holds_value), and, a local region, is otherwise read in the reverse
// (so it is kept).
bool result_in_target(const FunctionIR& ir, const TapePlan& plan, const Node* n, const std::vector<Node*>& all) {
  if (n->kind != NodeKind::Assign || !plan[n].active || n->target || !n->memory_root || n->op != BO_Assign || !n->rhs)
    return false;
  auto* call = dyn_cast<CallExpr>(strip(n->rhs, ir.unit));
  if (!call) return false;
  MathFn m = math_function(call);
  if (m != MathFn::Exp && m != MathFn::Tanh && m != MathFn::Sqrt) return false;
  if (call->getType().getCanonicalType().getUnqualifiedType() !=
      n->lhs->getType().getCanonicalType().getUnqualifiedType())
    return false;
  // A local array reaches the reverse sweep only when kept, which other reads of it decide.
  const Var* region = n->memory_root;
  if (region->kind != VarKind::Param && !region->heap && !plan[region].read_in_reverse) return false;
  return target_holds_value(ir, plan, n, all);
}

// Whether the reverse of `t = f(x)`, t a local number assigned only there and f exp, tanh or sqrt,
// may read f(x) from t instead of calling f again: when t has the call's type and the reverse can
// have t's one value there because other reverse code reads t — recomputed, kept (outside loops),
// or popped per iteration of the loop it is private to (outside parallel loops).
bool result_in_scalar_target(const FunctionIR& ir, const TapePlan& plan, const IterationLocals& iteration,
                             const Node* n) {
  const Var* t = n->kind == NodeKind::Assign ? n->target : nullptr;
  if (!t || !plan[n].active || t->kind != VarKind::Local || !t->floating || t->memory || t->assignments != 1 ||
      t->definition != n || n->op != BO_Assign || !n->rhs)
    return false;
  auto* call = dyn_cast<CallExpr>(strip(n->rhs, ir.unit));
  if (!call) return false;
  MathFn m = math_function(call);
  if (m != MathFn::Exp && m != MathFn::Tanh && m != MathFn::Sqrt) return false;
  if (call->getType().getCanonicalType().getUnqualifiedType() != t->type.getCanonicalType().getUnqualifiedType())
    return false;
  if (plan[t].recompute) return true;
  // A value nothing else reads is not taped for this read: in a row loop (attention's
  // `e = exp(s[k] - m)`) that is a value per element where the call is made once.
  if (!plan[t].read_in_reverse) return false;
  return n->loops.empty() || (iteration.of(t) && !t->parallel);
}

namespace {

// Whether reverse code other than n's own reads the value taped assignment `n` overwrites (the
// reads plan_assignment_save weighs).
bool old_value_read_elsewhere(const FunctionIR& ir, const TapePlan& plan, const Node* n, const std::vector<Node*>& all,
                              const IterationLocals& iteration) {
  const Var* written = n->memory_root;
  for (const ReadSite& r : plan.reads)
    if (r.var == written && r.node != n &&
        ((r.node->order <= n->order && !exclusive_branches(r.node, n)) ||
         (shares_loop(r.node, n, iteration.of(written)) && !disjoint_iterations(ir, n, r.node, written, all))))
      return true;
  return false;
}

// Whether every result read back and every scale undone still finds its target as written.
bool targets_hold_values(const FunctionIR& ir, const TapePlan& plan, const std::vector<Node*>& all) {
  for (const Node* m : all)
    if ((plan[m].result_in_target || plan[m].undone_by_inverse) && !target_holds_value(ir, plan, m, all)) return false;
  return true;
}

// Whether the derivative of result-read-back `n` (`m[k] = f(arg)`) reads m's old value through
// arg: any read of m's memory in an argument that is not linear with constant coefficients.
bool own_derivative_reads_old_value(const FunctionIR& ir, const Node* n) {
  const auto* call = dyn_cast<CallExpr>(strip(n->rhs, ir.unit));
  if (!call) return true;
  for (const Expr* arg : call->arguments())
    if (reads_value_of(ir, arg, n->memory_root) && !linear_with_constant_coefficients(ir, arg)) return true;
  return false;
}

}  // namespace

void untape_results_in_place(const FunctionIR& ir, const std::vector<Node*>& all, const IterationLocals& iteration,
                             TapePlan& plan) {
  for (Node* n : all) {
    if (!plan[n].save || !plan[n].result_in_target || own_derivative_reads_old_value(ir, n) ||
        old_value_read_elsewhere(ir, plan, n, all, iteration))
      continue;
    plan[n].save = false;
    if (!targets_hold_values(ir, plan, all)) plan[n].save = true;
  }
}

// Whether taped assignment `n`, a scale in place `m[...] /= s` or `m[...] *= r` with r a local
// defined once as the reciprocal `c / s` of a nonzero constant c, may instead be undone in the
// reverse by the inverse operation (`m[...] * s`, `m[...] / r`): the factor is a variable the reverse
// reads there anyway (the derivative needs it), and m[...] holds what n wrote when the reverse
// reaches n (target_holds_value). A finite s or r = c / s is never 0, so the old value comes back to
// within a rounding, and nothing is taped per element (a softmax's normalisation `p[v] *= inv_sum`).
bool undone_by_inverse(const FunctionIR& ir, const TapePlan& plan, const Node* n, const std::vector<Node*>& all) {
  if (n->kind != NodeKind::Assign || !plan[n].save || n->target || !n->lhs || !n->memory_root || !n->rhs ||
      !is_floating(n->lhs->getType()))
    return false;
  const Var* factor = scalar_variable(ir, n->rhs);
  if (!factor) return false;
  if (n->op == BO_MulAssign) {
    if (factor->assignments != 1 || !factor->definition || !factor->definition->rhs) return false;
    auto* div = dyn_cast<BinaryOperator>(strip(factor->definition->rhs, ir.unit));
    Expr::EvalResult c;
    if (!div || div->getOpcode() != BO_Div || !div->getLHS()->EvaluateAsRValue(c, ir.fn->getASTContext()) ||
        (c.Val.isInt() ? c.Val.getInt().isZero() : !c.Val.isFloat() || c.Val.getFloat().isZero()))
      return false;
  } else if (n->op != BO_DivAssign) {
    return false;
  }
  return target_holds_value(ir, plan, n, all);
}

}  // namespace adjc
