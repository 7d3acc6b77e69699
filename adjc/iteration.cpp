// Which elements each iteration of a loop owns (iteration.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "ir_walk.hpp"
#include "iteration.hpp"
#include "tape_plan.hpp"

namespace adjc {

using namespace clang;

namespace {

// Whether `e` calls nothing and reads no memory: its value depends on variables only.
bool pure(const FunctionIR& ir, const Expr* e) {
  if (!e) return true;
  if (isa<CallExpr>(e) || is_memory_read(strip(e, ir.unit))) return false;
  for (const Stmt* c : e->children())
    if (!pure(ir, dyn_cast_or_null<Expr>(c))) return false;
  return true;
}

// What a parallel loop's body does with memory: its assignments other than definitions of local
// pointers (whose right-hand sides are addresses, not accesses), and the regions it mentions
// otherwise (in conditions, bounds and calls, or written without a subscript).
struct LoopMemory {
  std::vector<const Node*> assignments;
  std::set<const Var*> elsewhere;
};

LoopMemory loop_memory(const FunctionIR& ir, const Node* loop) {
  LoopMemory m;
  auto mentioned = [&](const Expr* e) {
    if (Var* root = memory_root(ir, e)) m.elsewhere.insert(root);
    return true;
  };
  for_each_node(loop->body, [&](const Node* n) {
    if (n->kind == NodeKind::Assign) {
      if (!(n->target && n->target->pointer)) m.assignments.push_back(n);
      if (!n->lhs && n->memory_root) m.elsewhere.insert(n->memory_root);
      return;
    }
    for (const Expr* e : {n->cond, n->start, n->end, n->last, static_cast<const Expr*>(n->call)})
      walk_operands(e, mentioned);
  });
  return m;
}

// Whether the loop's assignments write into `region`.
bool writes(const LoopMemory& m, const Var* region) {
  for (const Node* n : m.assignments)
    if (n->lhs && n->memory_root == region) return true;
  return false;
}

// Whether an assignment in `loop` writes into `region`.
bool loop_writes(const FunctionIR& ir, const Node* loop, const Var* region) {
  return writes(loop_memory(ir, loop), region);
}

// `w[E]` with w a pointer parameter itself (not a local pointer into one): w, and E in `index`.
const Var* subscripted_parameter(const FunctionIR& ir, const Expr* e, const Expr*& index) {
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(e, ir.unit));
  auto* base = sub ? dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit)) : nullptr;
  const Var* p = base ? ir.var(base) : nullptr;
  if (!p || p->kind != VarKind::Param || !p->pointer) return nullptr;
  index = sub->getIdx();
  return p;
}

// An element of a pointer parameter's region, as an access names it: `R[E]` (R the parameter), or
// `p[E]` with `p = R + O` a local row pointer defined once in `loop` from an offset O that is the
// same throughout the iteration (the counter and what the loop does not assign).
struct ElementPosition {
  const Var* region = nullptr;
  const Expr* offset = nullptr;  // O; nullptr for `R[E]`
  const Expr* index = nullptr;   // E
};

std::optional<ElementPosition> element_position(const FunctionIR& ir, const Expr* e, const Node* loop,
                                                const std::vector<Node*>& all) {
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(e, ir.unit));
  auto* base = sub ? dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit)) : nullptr;
  const Var* p = base ? ir.var(base) : nullptr;
  if (!p || !p->pointer) return std::nullopt;
  if (p->kind == VarKind::Param) return ElementPosition{p, nullptr, sub->getIdx()};
  if (p->assignments != 1 || !p->definition || !p->definition->definition || !inside(p->definition, loop))
    return std::nullopt;
  auto* add = dyn_cast<BinaryOperator>(strip(p->definition->rhs, ir.unit));
  if (!add || add->getOpcode() != BO_Add) return std::nullopt;
  const Expr* root = add->getLHS()->getType()->isPointerType() ? add->getLHS() : add->getRHS();
  const Expr* offset = root == add->getLHS() ? add->getRHS() : add->getLHS();
  const Var* r = isa<DeclRefExpr>(strip(root, ir.unit)) ? ir.var(strip(root, ir.unit)) : nullptr;
  if (!r || r->kind != VarKind::Param || !r->pointer || !pure(ir, offset)) return std::nullopt;
  std::vector<Var*> vars;
  variables_read(ir, offset, vars);
  for (const Var* v : vars)
    for (const Node* n : all)
      if (v->memory ||
          (v != loop->counter && inside(n, loop) &&
           ((n->kind == NodeKind::Assign && n->target == v) || (n->kind == NodeKind::Loop && n->counter == v))))
        return std::nullopt;
  return ElementPosition{r, offset, sub->getIdx()};
}

// Whether `index` has the same value in nodes a and b, children of one block: it calls nothing and
// reads no memory, and nothing from a to b assigns a variable it reads, calls or jumps.
bool same_value_in(const FunctionIR& ir, const Expr* index, const Node* a, const Node* b) {
  if (a->parent != b->parent || !a->parent || !pure(ir, index)) return false;
  std::vector<Var*> vars;
  variables_read(ir, index, vars);
  const std::vector<Node*>& siblings = a->parent->children;
  auto first = std::find(siblings.begin(), siblings.end(), a), last = std::find(siblings.begin(), siblings.end(), b);
  if (first > last) std::swap(first, last);
  bool unchanged = true;
  for (auto it = first; it <= last && it != siblings.end(); ++it)
    for_each_node(static_cast<const Node*>(*it), [&](const Node* n) {
      const Var* assigned = n->kind == NodeKind::Assign ? n->target : n->kind == NodeKind::Loop ? n->counter : nullptr;
      unchanged &= n->kind != NodeKind::Call && n->kind != NodeKind::Jump &&
                   std::find(vars.begin(), vars.end(), assigned) == vars.end();
    });
  return unchanged;
}

// Whether the element at `position`, read by `n`, is one the same iteration of `loop` writes: an
// assignment beside n, or beside a block around n within the iteration, writes some parameter at
// the same offset and index, and nothing between them changes the index.
bool written_in_iteration(const FunctionIR& ir, const Node* n, const ElementPosition& position, const Node* loop,
                          const std::vector<Node*>& all) {
  for (const Node* x = n; x != loop->body && x->parent; x = x->parent)
    for (const Node* w : x->parent->children) {
      std::optional<ElementPosition> written =
          w->kind == NodeKind::Assign && w->lhs ? element_position(ir, w->lhs, loop, all) : std::nullopt;
      if (written && same_expr(ir, written->offset, position.offset) && same_expr(ir, written->index, position.index) &&
          same_value_in(ir, position.index, x, w))
        return true;
    }
  return false;
}

// Whether every access of `region` in the loop's assignments is an element the same iteration
// writes. The forward loop is race-free, so no other iteration touches an element an iteration
// writes: the region's own writes are each iteration's, and so are reads at the position of an
// element the iteration writes, in this region or another (RoPE's `out[j] = inp[j] * c - inp[j + 1]
// * s` beside `out[j + 1] = ...`; a softmax's `p[v] = std::exp(z[v] - m)` with rows z and p at one
// offset). Reads into a non-differentiable local (a softmax's maximum) have no adjoint.
bool written_elements_only(const FunctionIR& ir, const LoopMemory& m, const Var* region, const Node* loop,
                           const std::vector<Node*>& all) {
  if (region->kind != VarKind::Param || !region->pointer || m.elsewhere.count(region)) return false;
  bool any = false;
  for (const Node* n : m.assignments) {
    if (n->target && n->target->decl && non_differentiable(n->target->decl)) continue;
    std::vector<const Expr*> accesses;
    if (!region_subscripts(ir, {n}, region, accesses)) return false;
    for (const Expr* access : accesses) {
      any = true;
      if (n->lhs && strip(access, ir.unit) == strip(n->lhs, ir.unit)) continue;
      std::optional<ElementPosition> position = element_position(ir, access, loop, all);
      if (!position || position->region != region || !written_in_iteration(ir, n, *position, loop, all)) return false;
    }
  }
  return any;
}

}  // namespace

std::set<const Var*> counter_indexed_regions(const FunctionIR& ir, const Node* loop) {
  std::set<const Var*> indexed, other;
  auto expr = [&](const Expr* e) {
    if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) {
      auto* base = dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit));
      auto* index = dyn_cast<DeclRefExpr>(strip(sub->getIdx(), ir.unit));
      Var* v = base ? ir.var(base) : nullptr;
      if (v && v->kind == VarKind::Param && v->pointer && index && ir.var(index) == loop->counter) {
        indexed.insert(v);
        return false;
      }
    }
    if (e->getType()->isPointerType() || e->getType()->isRecordType() || e->getType()->isArrayType() ||
        isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e))
      if (Var* root = memory_root(ir, e)) other.insert(root);
    return true;
  };
  for_each_node(loop->body, [&](const Node* n) {
    for (const Expr* e : {n->lhs, n->rhs, static_cast<const Expr*>(n->call), n->cond, n->start, n->end})
      walk_stripped(e, ir.unit, expr);
    if (n->kind == NodeKind::Assign && n->memory_root && !n->lhs) other.insert(n->memory_root);
  });
  std::set<const Var*> out;
  for (const Var* v : indexed)
    if (!other.count(v)) out.insert(v);
  // Also regions that only assignments access, each iteration elements of its own (rows of
  // `inp[i * C + c]`; definitions of row pointers are addresses, not accesses), or elements its
  // writes elsewhere show to be its own.
  std::vector<Node*> all;
  for_each_node(ir.body, [&](Node* n) { all.push_back(n); });
  const LoopMemory m = loop_memory(ir, loop);
  for (const Var* v : other) {
    std::vector<const Expr*> accesses;
    if (v->kind == VarKind::Param && v->pointer && !m.elsewhere.count(v) &&
        region_subscripts(ir, m.assignments, v, accesses) && !accesses.empty() &&
        (same_iteration_elements(ir, accesses, loop, all) || written_elements_only(ir, m, v, loop, all)))
      out.insert(v);
  }
  return out;
}

std::vector<std::pair<const Var*, const Expr*>> summed_regions(const FunctionIR& ir, const TapePlan& plan,
                                                               const Node* loop) {
  const std::set<const Var*> owned = counter_indexed_regions(ir, loop);
  const LoopMemory m = loop_memory(ir, loop);
  std::vector<Node*> all;
  for_each_node(ir.body, [&](Node* n) { all.push_back(n); });
  const ASTContext& context = ir.fn->getASTContext();
  std::vector<std::pair<const Var*, const Expr*>> out;
  for (const auto& v : ir.vars) {
    std::vector<const Expr*> accesses;
    if (v->kind != VarKind::Param || !v->pointer || owned.count(v.get()) || m.elsewhere.count(v.get()) ||
        writes(m, v.get()) || !region_subscripts(ir, m.assignments, v.get(), accesses) || accesses.empty())
      continue;
    const Expr* extent = nullptr;
    bool summed = true;
    for (const Node* n : m.assignments) {
      accesses.clear();
      region_subscripts(ir, {n}, v.get(), accesses);
      for (const Expr* access : accesses) {
        const Expr* index = nullptr;
        const bool direct = subscripted_parameter(ir, access, index) == v.get();
        auto* ref = direct ? dyn_cast<DeclRefExpr>(index->IgnoreParenCasts()) : nullptr;
        const Var* j = ref ? ir.var(ref) : nullptr;
        const Node* inner = nullptr;
        for (const Node* l : n->loops)
          if (j && l->counter == j) inner = l;
        Expr::EvalResult start;
        if (!inner || !inside(inner, loop) || inner->step <= 0 || !inner->end ||
            !inner->start->EvaluateAsInt(start, context) || start.Val.getInt().isNegative() ||
            (extent && !same_expr(ir, extent, inner->end)) || !invariant_in(ir, inner->end, loop, all)) {
          summed = false;
          continue;
        }
        // The reverse reads the extent before the loop: the inner loop's bound is evaluated there
        // anyway, or it reads only parameters that nothing assigns.
        std::vector<Var*> vars;
        variables_read(ir, inner->end, vars);
        for (const Var* read : vars)
          summed &= plan[inner].bounds_in_reverse ||
                    (read->kind == VarKind::Param && read->assignments == 0 && !read->memory);
        extent = inner->end;
      }
    }
    if (summed) out.push_back({v.get(), extent});
  }
  return out;
}

bool same_expr(const FunctionIR& ir, const Expr* a, const Expr* b) {
  if (!a || !b) return a == b;
  llvm::FoldingSetNodeID ia, ib;
  strip(a, ir.unit)->Profile(ia, ir.fn->getASTContext(), true);
  strip(b, ir.unit)->Profile(ib, ir.fn->getASTContext(), true);
  return ia == ib;
}

namespace {

bool same_exprs(const FunctionIR& ir, const std::vector<const Expr*>& a, const std::vector<const Expr*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_expr(ir, a[i], b[i])) return false;
  return true;
}

}  // namespace

// Whether `e` has the same value in every iteration of `loop`: no calls, no memory reads, and no
// variable that the loop assigns.
bool invariant_in(const FunctionIR& ir, const Expr* e, const Node* loop, const std::vector<Node*>& all) {
  if (!pure(ir, e)) return false;
  std::vector<Var*> vars;
  variables_read(ir, e, vars);
  for (Var* v : vars)
    if (v->memory || !invariant_in_loop(ir, v, loop, all)) return false;
  return true;
}

bool invariant_in_loop(const FunctionIR&, const Var* v, const Node* loop, const std::vector<Node*>& all) {
  for (const Node* n : all)
    if (inside(n, loop) &&
        ((n->kind == NodeKind::Assign && n->target == v) || (n->kind == NodeKind::Loop && n->counter == v)))
      return false;
  return v != loop->counter;
}

namespace {

bool is_counter_of(const FunctionIR& ir, const Expr* e, const Node* loop) {
  auto* r = dyn_cast<DeclRefExpr>(strip(e, ir.unit));
  return r && ir.var(r) == loop->counter;
}

}  // namespace

// `P[i]` or `P[X + i]` / `P[i + X]` with i the counter of `loop` and P a pointer variable: P and X.
bool counter_access(const FunctionIR& ir, const Expr* e, const Node* loop, const Expr*& pointer, const Expr*& offset) {
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(e, ir.unit));
  if (!sub) return false;
  auto* base = dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit));
  Var* p = base ? ir.var(base) : nullptr;
  if (!p || !p->pointer) return false;
  const Expr* idx = strip(sub->getIdx(), ir.unit);
  pointer = base;
  offset = nullptr;
  if (is_counter_of(ir, idx, loop)) return true;
  auto* add = dyn_cast<BinaryOperator>(idx);
  if (!add || add->getOpcode() != BO_Add) return false;
  if (is_counter_of(ir, add->getRHS(), loop)) offset = add->getLHS();
  else if (is_counter_of(ir, add->getLHS(), loop)) offset = add->getRHS();
  return offset != nullptr;
}

// The subscripts `...[...]` of `region` in the assignments `nodes`, appended to `out`; false when
// the region is also mentioned otherwise (a pointer passed on, dereferenced, or offset).
bool region_subscripts(const FunctionIR& ir, const std::vector<const Node*>& nodes, const Var* region,
                       std::vector<const Expr*>& out) {
  bool only_subscripts = true;
  std::function<void(const Expr*)> visit = [&](const Expr* e) {
    if (!e) return;
    e = strip(e, ir.unit);
    if (isa<ArraySubscriptExpr>(e) && memory_root(ir, e) == region) {
      out.push_back(e);
      return visit(cast<ArraySubscriptExpr>(e)->getIdx());
    }
    if ((isa<DeclRefExpr>(e) || ir.var(e)) && memory_root(ir, e) == region) only_subscripts = false;
    for (const Stmt* c : e->children()) visit(dyn_cast_or_null<Expr>(c));
  };
  for (const Node* n : nodes) {
    if (n->kind != NodeKind::Assign) return false;
    visit(n->lhs);
    visit(n->rhs);
  }
  return only_subscripts;
}

namespace {

// How an access of a region maps iterations of a loop with counter c to elements, when each
// iteration gets elements of its own: `P[X + c]` (one element; P and X the same in every
// iteration), or a mixed-radix index (mixed_radix_elements): the digits above c and all the
// radices; when c is below its radix, no digits and only the radices from c's down (remainders).
// A row of length S, `R[c * S + j]` or `p[j]` with `p = R + c * S` defined in the loop (j counting
// an inner loop `for (j = k; j < S; j++)` from a constant k >= 0), is the number with digits c
// and j: no digits above c and the one radix S, however the access spells it, so a row pointer's
// `p[j]` and `R[c * S + j]` are the same elements.
struct IterationElements {
  const Var* pointer = nullptr;  // P (one element per iteration), nullptr for a mixed-radix index
  const Expr* offset = nullptr;  // X
  std::vector<const Expr*> higher_digits, radices;
  bool remainders = false;
};

// `c * S` or `S * c` with c the counter of `loop`: S.
const Expr* row_start(const FunctionIR& ir, const Expr* e, const Node* loop) {
  auto* mul = dyn_cast<BinaryOperator>(strip(e, ir.unit));
  if (!mul || mul->getOpcode() != BO_Mul) return nullptr;
  if (is_counter_of(ir, mul->getLHS(), loop)) return mul->getRHS();
  if (is_counter_of(ir, mul->getRHS(), loop)) return mul->getLHS();
  return nullptr;
}

// Whether `e` is the counter of a loop inside `loop` that runs from a constant >= 0 while below
// `row_length`.
bool indexes_row(const FunctionIR& ir, const Expr* e, const Node* loop, const Expr* row_length,
                 const std::vector<Node*>& all) {
  auto* r = dyn_cast<DeclRefExpr>(strip(e, ir.unit));
  Var* j = r ? ir.var(r) : nullptr;
  if (!j || !j->counter) return false;
  for (const Node* inner : all) {
    if (inner->kind != NodeKind::Loop || inner->counter != j || !inside(inner, loop)) continue;
    Expr::EvalResult start;
    return inner->end && same_expr(ir, inner->end, row_length) &&
           inner->start->EvaluateAsInt(start, ir.fn->getASTContext()) && !start.Val.getInt().isNegative();
  }
  return false;
}

// An index written in Horner form, `((d0 * n1 + d1) * n2 + d2) ...`: digits d0, d1, ... (nullptr
// for a missing `+ d`, i.e. 0) and radices n1, n2, .... Casts are looked through: an index is an
// integer either way.
void horner(const Expr* e, std::vector<const Expr*>& digits, std::vector<const Expr*>& radices) {
  e = e->IgnoreParenCasts();
  auto compound = [](const Expr* x) { return isa<BinaryOperator>(x->IgnoreParenCasts()); };
  auto* b = dyn_cast<BinaryOperator>(e);
  if (b && b->getOpcode() == BO_Add)
    for (auto [higher, digit] : {std::pair{b->getLHS(), b->getRHS()}, std::pair{b->getRHS(), b->getLHS()}})
      if (auto* m = dyn_cast<BinaryOperator>(higher->IgnoreParenCasts()); m && m->getOpcode() == BO_Mul) {
        horner(m, digits, radices);
        digits.back() = digit;
        return;
      }
  if (b && b->getOpcode() == BO_Mul) {
    // The higher part is the compound side (or the left one): `(b * NH + h) * T`, `b * NH`.
    bool left_higher = compound(b->getLHS()) || !compound(b->getRHS());
    horner(left_higher ? b->getLHS() : b->getRHS(), digits, radices);
    radices.push_back(left_higher ? b->getRHS() : b->getLHS());
    digits.push_back(nullptr);
    return;
  }
  digits.push_back(e);
}

// The loop counting `e` up, when e is a loop counter.
const Node* counting_loop(const FunctionIR& ir, const Expr* e, const std::vector<Node*>& all) {
  auto* r = e ? dyn_cast<DeclRefExpr>(e->IgnoreParenCasts()) : nullptr;
  Var* v = r ? ir.var(r) : nullptr;
  if (!v || !v->counter) return nullptr;
  for (const Node* loop : all)
    if (loop->kind == NodeKind::Loop && loop->counter == v) return loop->step > 0 ? loop : nullptr;
  return nullptr;
}

// Whether `e` is provably >= 0: a constant >= 0, a counter counting up from such a value, or a sum
// or product of them (a causal mask's padding `for (t2 = t + 1; t2 < T; t2++)`). `depth` bounds the
// search through counters' starts.
bool non_negative(const FunctionIR& ir, const Expr* e, const std::vector<Node*>& all, int depth = 8) {
  if (!e || depth == 0) return false;
  e = e->IgnoreParenCasts();
  Expr::EvalResult value;
  if (e->EvaluateAsInt(value, ir.fn->getASTContext())) return !value.Val.getInt().isNegative();
  if (const Node* loop = counting_loop(ir, e, all)) return non_negative(ir, loop->start, all, depth - 1);
  auto* b = dyn_cast<BinaryOperator>(e);
  return b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Mul) && non_negative(ir, b->getLHS(), all, depth - 1) &&
         non_negative(ir, b->getRHS(), all, depth - 1);
}

// Whether `digit` is provably in [0, radix): the counter of a loop from a value >= 0 while below
// `radix`, or while at most such a counter (a causal mask's `t2 <= t` with `t < T`).
bool below(const FunctionIR& ir, const Expr* digit, const Expr* radix, const std::vector<Node*>& all) {
  const Node* loop = counting_loop(ir, digit, all);
  if (!loop || !non_negative(ir, loop->start, all)) return false;
  return (loop->end && same_expr(ir, loop->end, radix)) || (loop->last && below(ir, loop->last, radix, all));
}

// `k`, the counter of a loop inside `loop` (not loop itself) counting by one from O while below
// `O + K`, with O in Horner form `(...) * K` and the same K: k is that number with its lowest digit
// replaced by one in [0, K) (the element loop a row fusion runs per row, `for (long k = (long)r * W;
// k < (long)r * W + W; k++)`, covers the row `R + r * W` as `p[c]` and `R[r * W + c]` do). The
// digits and radices, the lowest digit k itself.
bool counted_range_digits(const FunctionIR& ir, const Expr* k, const Node* loop, const std::vector<Node*>& all,
                          std::vector<const Expr*>& digits, std::vector<const Expr*>& radices) {
  const Node* range = counting_loop(ir, k, all);
  auto* end = range && range != loop && inside(range, loop) && range->step == 1 && range->end
                  ? dyn_cast<BinaryOperator>(range->end->IgnoreParenCasts())
                  : nullptr;
  if (!end || end->getOpcode() != BO_Add) return false;
  const Expr* length = same_expr(ir, end->getLHS(), range->start)   ? end->getRHS()
                       : same_expr(ir, end->getRHS(), range->start) ? end->getLHS()
                                                                    : nullptr;
  std::vector<const Expr*> start_digits, start_radices;
  horner(range->start, start_digits, start_radices);
  if (!length || start_radices.empty() || start_digits.back() || !same_expr(ir, start_radices.back(), length))
    return false;
  start_digits.back() = k;
  digits = start_digits;
  radices = start_radices;
  return true;
}

// A row of any affine form: `R[I]`, or `p[j]` with `p = R + O` defined in the loop (I = O + j),
// where I is a mixed-radix number `(... (d0 * n1 + d1) ...) * nk + dk` whose digit dm is c, the
// counter of `loop`: the radices are the same in every iteration, and every digit below c is in
// [0, its radix) (below). Then an element determines c, so no two iterations share one, for every
// access with the same digits above c and radices: when the digits above are the same in every
// iteration, iteration c owns [H·K, H·K + K) (H the number up to c, K the product of the lower
// radices); when c too is below its radix, the element's digits from c down are its remainders,
// whatever the digits above are, so accesses agree when those radices agree, even with other digits
// or radices above (a packed row's `((row * 3 + part) * NH + h) * hs + i`, whose q, k and v parts of
// head h all belong to iteration h). Attention's `preatt + ((b * NH + h) * T + t) * T`, read and
// written at t2 < T or t2 <= t, is thus private to each b, t and h, in any order of their loops.
std::optional<IterationElements> mixed_radix_elements(const FunctionIR& ir, const Expr* access, const Node* loop,
                                                      const std::vector<Node*>& all) {
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(access, ir.unit));
  auto* base = sub ? dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit)) : nullptr;
  Var* p = base ? ir.var(base) : nullptr;
  if (!p || !p->pointer) return std::nullopt;
  std::vector<const Expr*> digits, radices;
  bool lowest_in_range = false;  // the lowest digit is a counted range's (counted_range_digits)
  if (p->kind == VarKind::Param) {
    horner(sub->getIdx(), digits, radices);
    if (digits.size() == 1) lowest_in_range = counted_range_digits(ir, digits[0], loop, all, digits, radices);
  } else if (p->assignments == 1 && p->definition && p->definition->definition && inside(p->definition, loop)) {
    auto* add = dyn_cast<BinaryOperator>(strip(p->definition->rhs, ir.unit));
    if (!add || add->getOpcode() != BO_Add) return std::nullopt;
    const Expr* root = add->getLHS()->getType()->isPointerType() ? add->getLHS() : add->getRHS();
    Var* r = dyn_cast<DeclRefExpr>(strip(root, ir.unit)) ? ir.var(strip(root, ir.unit)) : nullptr;
    if (!r || r->kind != VarKind::Param || !r->pointer) return std::nullopt;
    horner(root == add->getLHS() ? add->getRHS() : add->getLHS(), digits, radices);
    std::vector<const Expr*> index_digits, index_radices;
    horner(sub->getIdx(), index_digits, index_radices);
    if (digits.back() || index_digits.size() != 1) return std::nullopt;  // `R + X * n`, then p[j]
    digits.back() = index_digits[0];
  } else {
    return std::nullopt;
  }
  size_t m = 0;
  while (m < digits.size() && !(digits[m] && is_counter_of(ir, digits[m]->IgnoreParenCasts(), loop))) ++m;
  if (m == digits.size()) return std::nullopt;
  // c below its radix: the digits from c down determine c whatever the higher ones are (attention's
  // h, inside the loop over t, above t); otherwise they must be the same in every iteration.
  const bool remainders = m > 0 && below(ir, digits[m], radices[m - 1], all);
  if (!remainders)
    for (size_t i = 0; i < m; ++i)
      if (digits[i] && !invariant_in(ir, digits[i], loop, all)) return std::nullopt;
  const size_t lowest_radix = remainders ? m - 1 : 0;
  for (size_t i = lowest_radix; i < radices.size(); ++i)
    if (!invariant_in(ir, radices[i], loop, all)) return std::nullopt;
  for (size_t i = m + 1; i < digits.size(); ++i)
    if (!(lowest_in_range && i + 1 == digits.size()) && !below(ir, digits[i], radices[i - 1], all)) return std::nullopt;
  IterationElements out;
  out.remainders = remainders;
  if (!remainders) out.higher_digits.assign(digits.begin(), digits.begin() + m);
  out.radices.assign(radices.begin() + lowest_radix, radices.end());
  return out;
}

std::optional<IterationElements> element_or_row(const FunctionIR& ir, const Expr* access, const Node* loop,
                                                const std::vector<Node*>& all) {
  const Expr *pointer, *offset;
  if (counter_access(ir, access, loop, pointer, offset)) {
    if (!invariant_in(ir, pointer, loop, all) || (offset && !invariant_in(ir, offset, loop, all))) return std::nullopt;
    return IterationElements{ir.var(pointer), offset, {}, {}};
  }
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(access, ir.unit));
  auto* base = sub ? dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit)) : nullptr;
  Var* p = base ? ir.var(base) : nullptr;
  if (!p || !p->pointer) return std::nullopt;
  const Expr* length = nullptr;
  const Expr* index = sub->getIdx();
  if (p->kind == VarKind::Param) {  // R[c * S + j]
    auto* add = dyn_cast<BinaryOperator>(strip(index, ir.unit));
    if (!add || add->getOpcode() != BO_Add) return std::nullopt;
    if ((length = row_start(ir, add->getLHS(), loop))) index = add->getRHS();
    else if ((length = row_start(ir, add->getRHS(), loop))) index = add->getLHS();
  } else if (p->assignments == 1 && p->definition && inside(p->definition, loop)) {  // p = R + c * S; p[j]
    auto* add = dyn_cast<BinaryOperator>(strip(p->definition->rhs, ir.unit));
    if (add && add->getOpcode() == BO_Add && add->getLHS()->getType()->isPointerType() &&
        isa<DeclRefExpr>(strip(add->getLHS(), ir.unit)) &&
        ir.var(strip(add->getLHS(), ir.unit))->kind == VarKind::Param)
      length = row_start(ir, add->getRHS(), loop);
  }
  if (!length || !invariant_in(ir, length, loop, all) || !indexes_row(ir, index, loop, length, all))
    return std::nullopt;
  return IterationElements{nullptr, nullptr, {}, {length}};
}

std::optional<IterationElements> iteration_elements(const FunctionIR& ir, const Expr* access, const Node* loop,
                                                    const std::vector<Node*>& all) {
  if (!loop->counter) return std::nullopt;
  if (auto simple = element_or_row(ir, access, loop, all)) return simple;
  return mixed_radix_elements(ir, access, loop, all);
}

// Whether every one of `accesses` gives each iteration of `loop` elements of its own, all the same
// way (one P and X, or one mixed-radix form).
bool one_form(const FunctionIR& ir, const std::vector<const Expr*>& accesses, const Node* loop,
              const std::vector<Node*>& all) {
  std::optional<IterationElements> first;
  for (const Expr* e : accesses) {
    std::optional<IterationElements> each = iteration_elements(ir, e, loop, all);
    if (!each) return false;
    if (!first) first = each;
    else if (each->pointer != first->pointer || !same_expr(ir, each->offset, first->offset) ||
             !same_exprs(ir, each->higher_digits, first->higher_digits) ||
             !same_exprs(ir, each->radices, first->radices) || each->remainders != first->remainders)
      return false;
  }
  return true;
}

}  // namespace

bool provably_non_negative(const FunctionIR& ir, const Expr* e, const std::vector<Node*>& all) {
  return non_negative(ir, e, all);
}

// Whether every one of `accesses` gives each iteration of `loop` elements of its own: all the same
// way (one P and X, or one mixed-radix form), or as disjoint segments of rows.
bool same_iteration_elements(const FunctionIR& ir, const std::vector<const Expr*>& accesses, const Node* loop,
                             const std::vector<Node*>& all) {
  return one_form(ir, accesses, loop, all) || disjoint_row_segments(ir, accesses, loop, all);
}

bool same_elements_in_shared_loops(const FunctionIR& ir, const std::vector<const Expr*>& accesses, const Node* a,
                                   const Node* b, const std::vector<Node*>& all) {
  for (size_t depth = 0; depth < a->loops.size() && depth < b->loops.size() && a->loops[depth] == b->loops[depth];
       ++depth)
    if (!same_iteration_elements(ir, accesses, a->loops[depth], all)) return false;
  return true;
}

bool disjoint_iterations(const FunctionIR& ir, const Node* a, const Node* b, const Var* region,
                         const std::vector<Node*>& all) {
  std::vector<const Expr*> accesses;
  if (!region_subscripts(ir, {a, b}, region, accesses) || accesses.empty()) return false;
  for (size_t depth = 0; depth < a->loops.size() && depth < b->loops.size() && a->loops[depth] == b->loops[depth];
       ++depth) {
    const Node* loop = a->loops[depth];
    // The forward of a parallel loop is race-free: no iteration touches an element of shared
    // memory (a parameter's) that another writes. Memory of the loop's own, like a local array in
    // its body, is each thread's and reused by its iterations.
    if (loop->parallel && region->kind == VarKind::Param && loop_writes(ir, loop, region)) continue;
    if (!same_iteration_elements(ir, accesses, loop, all)) return false;
  }
  return true;
}

}  // namespace adjc
