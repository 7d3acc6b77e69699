// Iterations owning segments of every row of a packed array (iteration.hpp, disjoint_row_segments).
#include <algorithm>
#include <map>
#include <optional>

#include "iteration.hpp"

namespace adjc {

using namespace clang;

namespace {

// A polynomial over variables with integer coefficients: each monomial (its variables, by index,
// repeated for powers) with its coefficient. Indices are integers, so casts do not matter.
using Monomial = std::vector<const Var*>;
using Polynomial = std::map<Monomial, long long>;

Polynomial constant(long long c) { return c ? Polynomial{{{}, c}} : Polynomial{}; }

Polynomial add(Polynomial a, const Polynomial& b, long long sign = 1) {
  for (const auto& [m, c] : b)
    if ((a[m] += sign * c) == 0) a.erase(m);
  return a;
}

Polynomial multiply(const Polynomial& a, const Polynomial& b) {
  Polynomial out;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end(), [](const Var* x, const Var* y) { return x->index < y->index; });
      if ((out[m] += ca * cb) == 0) out.erase(m);
    }
  return out;
}

// The value of local number v when its definition is its only assignment, else null.
const Expr* single_definition(const Var* v) {
  if (v->kind != VarKind::Local || v->counter || v->memory || v->pointer || v->assignments != 1 || !v->definition ||
      !v->definition->definition)
    return nullptr;
  return v->definition->rhs;
}

// Whether `e` reads only parameters nothing assigns and locals defined once from such values: its
// value is the same wherever it is read, so a local it defines can be replaced by it.
bool fixed_value(const FunctionIR& ir, const Expr* e, int depth = 8) {
  std::vector<Var*> vars;
  variables_read(ir, e, vars);
  for (const Var* v : vars) {
    const Expr* definition = depth > 0 ? single_definition(v) : nullptr;
    if (v->memory ||
        (v->kind == VarKind::Param ? v->assignments != 0 : !definition || !fixed_value(ir, definition, depth - 1)))
      return false;
  }
  return true;
}

// `e` as a polynomial in variables (integer constants, +, -, *; anything else fails). A local whose
// one definition has a fixed value (fixed_value) is replaced by it, so `stride` defined as
// `(G + 2) * NKV * hs` is the sum of those monomials; other variables are themselves.
std::optional<Polynomial> polynomial(const FunctionIR& ir, const Expr* e, int depth = 8) {
  e = e->IgnoreParenCasts();
  Expr::EvalResult value;
  if (e->EvaluateAsInt(value, ir.fn->getASTContext()) && value.Val.getInt().getSignificantBits() < 48)
    return constant(value.Val.getInt().getExtValue());
  if (isa<DeclRefExpr>(e)) {
    const Var* v = ir.var(e);
    if (!v || v->memory || v->pointer) return std::nullopt;
    if (const Expr* definition = depth > 0 ? single_definition(v) : nullptr; definition && fixed_value(ir, definition))
      if (std::optional<Polynomial> p = polynomial(ir, definition, depth - 1)) return p;
    return Polynomial{{{v}, 1}};
  }
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Minus) {
    std::optional<Polynomial> p = polynomial(ir, u->getSubExpr(), depth);
    return p ? std::optional(add({}, *p, -1)) : std::nullopt;
  }
  auto* b = dyn_cast<BinaryOperator>(e);
  if (!b || (b->getOpcode() != BO_Add && b->getOpcode() != BO_Sub && b->getOpcode() != BO_Mul)) return std::nullopt;
  std::optional<Polynomial> l = polynomial(ir, b->getLHS(), depth), r = polynomial(ir, b->getRHS(), depth);
  if (!l || !r) return std::nullopt;
  if (b->getOpcode() == BO_Mul) return multiply(*l, *r);
  return add(*l, *r, b->getOpcode() == BO_Add ? 1 : -1);
}

// Whether p >= 0 wherever the accesses concerned run: every coefficient positive, every variable
// one of `positive` (bounds of loops running there from a value >= 0, hence >= 1).
bool non_negative(const Polynomial& p, const std::set<const Var*>& positive) {
  for (const auto& [m, c] : p)
    if (c < 0 || std::any_of(m.begin(), m.end(), [&](const Var* v) { return !positive.count(v); })) return false;
  return true;
}

// How an access gives iteration c of a loop elements of its own in rows of S elements: the
// element is X·S + B + c·K + r, X any row, B the segment's start, r in [0, K) (mixed-radix
// digits of loops from values >= 0 below their bounds). `positive`: the variables that are loop
// bounds >= 1 wherever the access runs (running_bounds).
struct RowSegment {
  Polynomial row, start, width, count;  // S, B, K, and c's bound N
  std::set<const Var*> positive;
};

// The summands of `e` with their signs, looking through parentheses and casts.
void summands(const Expr* e, std::vector<std::pair<const Expr*, int>>& out, int sign = 1) {
  e = e->IgnoreParenCasts();
  if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)) {
    summands(b->getLHS(), out, sign);
    summands(b->getRHS(), out, b->getOpcode() == BO_Add ? sign : -sign);
    return;
  }
  out.push_back({e, sign});
}

// The loop inside `loop` (or `loop` itself) that counts v up from a value >= 0, and the digit's
// radix: its bound, or that of the counter it runs up to (`t2 <= t`, t < T).
const Node* digit_loop(const FunctionIR& ir, const Var* v, const Node* loop, const std::vector<Node*>& all,
                       const Expr*& radix) {
  for (const Node* n : all) {
    if (n->kind != NodeKind::Loop || n->counter != v || n->step <= 0 || (n != loop && !inside(n, loop)) ||
        !provably_non_negative(ir, n->start, all))
      continue;
    radix = n->end;
    if (!radix && n->last)
      if (auto* r = dyn_cast<DeclRefExpr>(n->last->IgnoreParenCasts()); r && ir.var(r) && ir.var(r)->counter) {
        const Expr* outer = nullptr;
        if (digit_loop(ir, ir.var(r), loop, all, outer)) radix = outer;
      }
    return radix ? n : nullptr;
  }
  return nullptr;
}

bool contains(const Stmt* root, const Stmt* e) {
  if (!root) return false;
  if (root == e) return true;
  for (const Stmt* c : root->children())
    if (contains(c, e)) return true;
  return false;
}

// The bounds of the loops around `access` (a node's) counting up from a value >= 0, variables that
// keep their value: each >= 1 wherever the access runs.
std::set<const Var*> running_bounds(const FunctionIR& ir, const Expr* access, const std::vector<Node*>& all) {
  std::set<const Var*> out;
  for (const Node* n : all) {
    if (n->kind != NodeKind::Assign || !(contains(n->lhs, access) || contains(n->rhs, access))) continue;
    for (const Node* l : n->loops)
      if (l->step > 0 && l->end && provably_non_negative(ir, l->start, all))
        if (auto* r = dyn_cast<DeclRefExpr>(l->end->IgnoreParenCasts()); r && ir.var(r))
          if (const Var* bound = ir.var(r); bound->assignments == 0 || single_definition(bound)) out.insert(bound);
    break;
  }
  return out;
}

// The in-row part B + c·K + r of an access (its polynomial `in_row`), into `segment`.
bool segment_of(const FunctionIR& ir, const Polynomial& in_row, const Node* loop, const std::vector<Node*>& all,
                RowSegment& segment) {
  std::map<const Var*, Polynomial> weights;  // digit -> the polynomial it is multiplied by
  for (const auto& [m, c] : in_row) {
    const Var* digit = nullptr;
    Monomial rest;
    for (const Var* v : m) {
      if (v == loop->counter || (v->counter && !invariant_in_loop(ir, v, loop, all))) {
        if (digit) return false;  // two digits, or a digit squared
        digit = v;
      } else {
        if (!invariant_in_loop(ir, v, loop, all)) return false;
        rest.push_back(v);
      }
    }
    if (!digit) segment.start = add(segment.start, {{m, c}});
    else weights[digit] = add(weights[digit], {{rest, c}});
  }
  // The digits below c, lowest first: each one's weight is the product of the radices below it.
  Polynomial width = constant(1);
  for (bool found = true; found;) {
    found = false;
    for (auto it = weights.begin(); it != weights.end(); ++it) {
      const Expr* radix = nullptr;
      std::optional<Polynomial> n;
      if (it->first == loop->counter || it->second != width || !digit_loop(ir, it->first, loop, all, radix) ||
          !(n = polynomial(ir, radix)))
        continue;
      width = multiply(width, *n);
      weights.erase(it);
      found = true;
      break;
    }
  }
  const Expr* bound = nullptr;
  std::optional<Polynomial> count;
  if (weights.size() != 1 || weights.begin()->first != loop->counter || weights.begin()->second != width ||
      !digit_loop(ir, loop->counter, loop, all, bound) || !(count = polynomial(ir, bound)))
    return false;
  segment.width = width;
  segment.count = *count;
  return true;
}

// The row segment of `access`: `R[E]`, or `p[j]` with `p = R + O` defined once in the loop, where
// the index (E, or O + j) is a sum with one term `X * S` (X changing in the loop, without c; S the
// same throughout) and the rest B + c·K + r.
std::optional<RowSegment> row_segment(const FunctionIR& ir, const Expr* access, const Node* loop,
                                      const std::vector<Node*>& all) {
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(access, ir.unit));
  auto* base = sub ? dyn_cast<DeclRefExpr>(strip(sub->getBase(), ir.unit)) : nullptr;
  const Var* p = base ? ir.var(base) : nullptr;
  if (!p || !p->pointer || !loop->counter) return std::nullopt;
  std::vector<std::pair<const Expr*, int>> terms;
  summands(sub->getIdx(), terms);
  if (p->kind != VarKind::Param) {  // p = R + O1 + O2 ...: R, then O1, O2, ... are summands
    if (p->assignments != 1 || !p->definition || !p->definition->definition || !inside(p->definition, loop))
      return std::nullopt;
    const size_t index_terms = terms.size();
    summands(p->definition->rhs, terms);
    auto root = std::find_if(terms.begin() + index_terms, terms.end(),
                             [](const auto& t) { return t.first->getType()->isPointerType(); });
    const Var* r = root != terms.end() && root->second > 0 && isa<DeclRefExpr>(strip(root->first, ir.unit))
                       ? ir.var(strip(root->first, ir.unit))
                       : nullptr;
    if (!r || r->kind != VarKind::Param || !r->pointer) return std::nullopt;
    terms.erase(root);
    if (std::any_of(terms.begin(), terms.end(), [](const auto& t) { return t.first->getType()->isPointerType(); }))
      return std::nullopt;
  }
  auto mentions_counter = [&](const Expr* e) {
    std::vector<Var*> vars;
    variables_read(ir, e, vars);
    return std::find(vars.begin(), vars.end(), loop->counter) != vars.end();
  };
  for (size_t row_term = 0; row_term < terms.size(); ++row_term) {
    auto* mul = dyn_cast<BinaryOperator>(terms[row_term].first);
    if (!mul || mul->getOpcode() != BO_Mul || terms[row_term].second < 0) continue;
    for (auto [x, s] : {std::pair{mul->getLHS(), mul->getRHS()}, std::pair{mul->getRHS(), mul->getLHS()}}) {
      if (!invariant_in(ir, s, loop, all) || invariant_in(ir, x, loop, all) || mentions_counter(x)) continue;
      RowSegment segment;
      std::optional<Polynomial> row = polynomial(ir, s), in_row = constant(0);
      for (size_t i = 0; i < terms.size() && in_row; ++i)
        if (i != row_term) {
          std::optional<Polynomial> term = polynomial(ir, terms[i].first);
          in_row = term ? std::optional(add(*in_row, *term, terms[i].second)) : std::nullopt;
        }
      if (!row || !in_row || !segment_of(ir, *in_row, loop, all, segment)) continue;
      segment.row = *row;
      segment.positive = running_bounds(ir, access, all);
      return segment;
    }
  }
  return std::nullopt;
}

}  // namespace

bool disjoint_row_segments(const FunctionIR& ir, const std::vector<const Expr*>& accesses, const Node* loop,
                           const std::vector<Node*>& all) {
  std::vector<RowSegment> segments;
  for (const Expr* access : accesses) {
    std::optional<RowSegment> s = row_segment(ir, access, loop, all);
    if (!s || (!segments.empty() && s->row != segments[0].row)) return false;
    // Within the row: 0 <= B and B + N·K <= S.
    if (!non_negative(s->start, s->positive) ||
        !non_negative(add(s->row, add(s->start, multiply(s->count, s->width)), -1), s->positive))
      return false;
    segments.push_back(*s);
  }
  // Two segments are the same one, or one ends before the other starts.
  for (size_t a = 0; a < segments.size(); ++a)
    for (size_t b = a + 1; b < segments.size(); ++b) {
      const RowSegment &x = segments[a], &y = segments[b];
      if (x.start == y.start && x.width == y.width) continue;
      std::set<const Var*> positive = x.positive;
      positive.insert(y.positive.begin(), y.positive.end());
      auto ends_before = [&](const RowSegment& first, const RowSegment& second) {
        return non_negative(add(second.start, add(first.start, multiply(first.count, first.width)), -1), positive);
      };
      if (!ends_before(x, y) && !ends_before(y, x)) return false;
    }
  return !segments.empty();
}

}  // namespace adjc
