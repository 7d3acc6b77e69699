// find-fusible-calls: for each call that reads memory the call just before it wrote (the
// intermediate), whether the two kernels' loops fuse — element by element or row by row — or the
// first reason they do not (docs/adjc-internals.md, "Fusion"). `--remarks` prints each decision.
#include <clang/Lex/Lexer.h>

#include "fusion.hpp"
#include "ir_walk.hpp"

namespace adjc {

using namespace clang;

namespace {

const Expr* without_casts(const Expr* e) { return e ? e->IgnoreParenCasts() : nullptr; }

bool same_tree(const FunctionIR& ir, const Expr* a, const Expr* b) {
  llvm::FoldingSetNodeID x, y;
  without_casts(a)->Profile(x, ir.fn->getASTContext(), true);
  without_casts(b)->Profile(y, ir.fn->getASTContext(), true);
  return x == y;
}

// The pointer an argument offsets: `a.residual` of `a.residual + l * NC`.
const Expr* region_base(const Expr* e) {
  e = without_casts(e);
  while (auto* b = dyn_cast<BinaryOperator>(e)) {
    if ((b->getOpcode() != BO_Add && b->getOpcode() != BO_Sub) || !b->getLHS()->getType()->isPointerType()) break;
    e = without_casts(b->getLHS());
  }
  return e;
}

// Whether `v` holds one value throughout the function: a parameter never assigned, or a local
// assigned only by its definition.
bool single_valued(const Var* v) {
  return (v->kind == VarKind::Param && v->assignments == 0) ||
         (v->kind == VarKind::Local && v->assignments == 1 && v->definition);
}

// The array an expression names, whatever the subscripts on its way: the variable and the members
// (`a.layers[l].residual2` and `a.layers[m].residual2` are one array as far as fusion knows);
// empty when it names none.
std::vector<const Decl*> array_key(const Expr* e) {
  std::vector<const Decl*> key;
  for (e = region_base(e); e;) {
    if (auto* m = dyn_cast<MemberExpr>(e)) {
      key.push_back(m->getMemberDecl());
      e = without_casts(m->getBase());
    } else if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) {
      e = without_casts(sub->getBase());
    } else if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      key.push_back(ref->getDecl());
      return key;
    } else {
      break;
    }
  }
  return {};
}

bool same_array(const Expr* a, const Expr* b) {
  std::vector<const Decl*> x = array_key(a);
  return !x.empty() && x == array_key(b);
}

// Whether `e` uses the array of `key`, or an object holding it (`a` of `a.layers[l].x`, passed whole).
bool uses_array(const Expr* e, const std::vector<const Decl*>& key) {
  if (!e) return false;
  if (isa<MemberExpr>(e) || isa<DeclRefExpr>(e)) {
    std::vector<const Decl*> k = array_key(e);
    if (!k.empty() && k.size() <= key.size() && std::equal(k.begin(), k.end(), key.end() - k.size())) return true;
    // The chain itself names another array or object: only its subscripts use other things.
    for (const Expr* x = e; x;) {
      if (auto* m = dyn_cast<MemberExpr>(x)) x = without_casts(m->getBase());
      else if (auto* sub = dyn_cast<ArraySubscriptExpr>(x)) {
        if (uses_array(sub->getIdx(), key)) return true;
        x = without_casts(sub->getBase());
      } else return !isa<DeclRefExpr>(x) && uses_array(x, key);  // a root variable is no use of it whole
    }
    return false;
  }
  for (const Stmt* c : e->children())
    if (uses_array(dyn_cast_or_null<Expr>(c), key)) return true;
  return false;
}

// A local's value, when one definition gives it from single-valued variables (`NC` -> `(long)N * C`).
const Expr* defined_value(const FunctionIR& ir, const Expr* e) {
  const Var* v = ir.var(without_casts(e));
  if (!v || v->kind != VarKind::Local || !single_valued(v)) return without_casts(e);
  std::vector<Var*> inputs;
  variables_read(ir, v->definition->rhs, inputs);
  for (const Var* input : inputs)
    if (!single_valued(input)) return without_casts(e);
  return without_casts(v->definition->rhs);
}

bool same_value(const FunctionIR& ir, const Expr* a, const Expr* b) {
  return same_tree(ir, a, b) || same_tree(ir, defined_value(ir, a), defined_value(ir, b));
}

// Whether `elements` is `rows * width` (either order).
bool product_of(const FunctionIR& ir, const Expr* elements, const Expr* rows, const Expr* width) {
  auto* mul = dyn_cast<BinaryOperator>(defined_value(ir, elements));
  if (!mul || mul->getOpcode() != BO_Mul) return false;
  return (same_value(ir, mul->getLHS(), rows) && same_value(ir, mul->getRHS(), width)) ||
         (same_value(ir, mul->getLHS(), width) && same_value(ir, mul->getRHS(), rows));
}

bool is_pointer(QualType t) { return t->isPointerType(); }
bool writes_through(QualType t) { return t->isPointerType() && !t->getPointeeType().isConstQualified(); }

// One call of the pair: its callee, the callee's loop (null: none), its arguments.
struct KernelCall {
  const Node* node;
  const FunctionDecl* callee;
  const KernelLoop* loop = nullptr;
  std::string name() const { return "'" + callee->getNameAsString() + "'"; }
  const Expr* arg(int i) const { return node->call->getArg(i); }
  QualType param(int i) const { return callee->getParamDecl(i)->getType(); }
  int args() const { return int(std::min<unsigned>(node->call->getNumArgs(), callee->getNumParams())); }
  bool rows() const { return loop->width >= 0; }
};

class PairDecider {
 public:
  PairDecider(const FunctionIR& ir, const std::vector<Node*>& all, KernelCall producer, KernelCall consumer)
      : ir_(ir), all_(all), p_(producer), c_(consumer) {}

  // The intermediates: (producer's argument, consumer's argument) pairs over one region.
  bool find_intermediates() {
    for (int j = 0; j < p_.args(); j++)
      for (int k = 0; k < c_.args(); k++)
        if (writes_through(p_.param(j)) && is_pointer(c_.param(k)) && same_array(p_.arg(j), c_.arg(k)))
          links_.push_back({j, k});
    return !links_.empty();
  }

  FusionDecision decide() {
    FusionDecision d;
    d.producer = p_.node;
    d.consumer = c_.node;
    d.intermediate = text(p_.arg(links_[0].first));
    d.refusal = first_refusal();
    if (!d.refusal.empty()) return d;
    const std::string space = p_.rows() || c_.rows() ? "row by row" : "element by element";
    // Checked last, so that it says the pair is otherwise fusible.
    for (const auto& link : links_)
      if (std::string why = other_users(p_.arg(link.first), d.kept_for); !why.empty() && d.refusal.empty())
        d.refusal = why + " (otherwise the loops would fuse " + space + ")";
    d.links = links_;
    if (d.refusal.empty()) d.space = space;
    else d.kept_for.clear();
    return d;
  }

 private:
  const FunctionIR& ir_;
  const std::vector<Node*>& all_;
  KernelCall p_, c_;
  std::vector<std::pair<int, int>> links_;

  std::string text(const Expr* e) const {
    const ASTContext& context = ir_.fn->getASTContext();
    return Lexer::getSourceText(CharSourceRange::getTokenRange(e->getSourceRange()), context.getSourceManager(),
                                context.getLangOpts())
        .str();
  }
  std::string line(const Node* n) const {
    PresumedLoc p = ir_.fn->getASTContext().getSourceManager().getPresumedLoc(n->loc);
    return p.isValid() ? std::to_string(p.getLine()) : "?";
  }

  std::string first_refusal() const {
    for (const KernelCall* k : {&p_, &c_}) {
      if (std::string why = no_loop(*k); !why.empty()) return why;
    }
    for (auto [j, k] : links_)
      if (std::string why = link_refusal(j, k); !why.empty()) return why;
    if (std::string why = alias_refusal(); !why.empty()) return why;
    return space_refusal();
  }

  std::string no_loop(const KernelCall& k) const {
    if (callee_kind(k.callee, ir_.unit) == CalleeKind::Custom)
      return k.name() + " keeps a custom pullback: adjc sees no loop in it";
    if (!k.loop) return k.name() + " has no derivative work here";
    if (!k.loop->refusal.empty()) return k.name() + " is not one loop of independent iterations: " + k.loop->refusal;
    return "";
  }

  std::string link_refusal(int j, int k) const {
    const std::string name = "'" + text(p_.arg(j)) + "'";
    if (!same_tree(ir_, p_.arg(j), c_.arg(k)))
      return name + " and '" + text(c_.arg(k)) + "' are parts of one array that may overlap";
    if (c_.loop->writes[k] != Reach::None) return c_.name() + " writes " + name + " too";
    if (!same_unit(p_, p_.loop->writes[j], c_, c_.loop->reads[k]))
      return c_.name() + " reads " + name + " beyond what " + p_.name() + " writes of it in the same iteration";
    return "";
  }

  // Element i of an element loop and row i of a row loop are the same unit only if both loops are
  // of one kind; across kinds, an element loop's element is a row loop's row of that width.
  static bool same_unit(const KernelCall& a, Reach ra, const KernelCall& b, Reach rb) {
    if (ra == Reach::Other || rb == Reach::Other || ra == Reach::Shared || rb == Reach::Shared) return false;
    if (a.rows() == b.rows()) return ra == rb;
    return (a.rows() ? ra : rb) == Reach::Row && (a.rows() ? rb : ra) == Reach::Element;
  }

  // The other statements using the array `arg` points into. The fused loop still stores the
  // intermediate, the same values the producer stored, so statements after the pair that only read
  // it see what they saw (`kept_for` is the line of the first); any other use refuses the fusion.
  std::string other_users(const Expr* arg, std::string& kept_for) const {
    const std::vector<const Decl*> key = array_key(arg);
    const std::string name = "'" + text(arg) + "'";
    for (const Node* n : all_) {
      if (n == p_.node || n == c_.node || !uses_in(n, key)) continue;
      if (n->order < c_.node->order) return name + " is also used at line " + line(n) + ", before the calls";
      if (may_write(n, key)) return name + " is also used at line " + line(n) + ", which may write it";
      if (kept_for.empty()) kept_for = line(n);
    }
    return "";
  }

  static bool uses_in(const Node* n, const std::vector<const Decl*>& key) {
    for (const Expr* e : {n->lhs, n->rhs, n->cond, static_cast<const Expr*>(n->call)})
      if (uses_array(e, key)) return true;
    return false;
  }

  // Whether statement `n`, which uses the array of `key`, may write it: unless it only reads it as
  // the value of an assignment or condition, or passes the array itself (not an object holding it)
  // to a pointer-to-const parameter.
  static bool may_write(const Node* n, const std::vector<const Decl*>& key) {
    if (n->kind == NodeKind::Assign) return uses_array(n->lhs, key) || holds_call(n->rhs);
    if (n->kind != NodeKind::Call) return holds_call(n->cond);
    const FunctionDecl* callee = n->call->getDirectCallee();
    for (unsigned k = 0; k < n->call->getNumArgs(); k++) {
      const Expr* a = n->call->getArg(k);
      if (!uses_array(a, key)) continue;
      if (!callee || k >= callee->getNumParams() || array_key(a) != key) return true;
      QualType t = callee->getParamDecl(k)->getType();
      if (!t->isPointerType() || !t->getPointeeType().isConstQualified()) return true;
    }
    return false;
  }

  // A call left in an expression (one adjc did not hoist) may write anything.
  static bool holds_call(const Expr* e) {
    if (!e) return false;
    if (isa<CallExpr>(e)) return true;
    for (const Stmt* c : e->children())
      if (holds_call(dyn_cast_or_null<Expr>(c))) return true;
    return false;
  }

  // The consumer writing what the producer reads or writes elsewhere in the region.
  std::string alias_refusal() const {
    for (int k = 0; k < c_.args(); k++) {
      if (!writes_through(c_.param(k))) continue;
      for (int j = 0; j < p_.args(); j++)
        if (is_pointer(p_.param(j)) && same_array(p_.arg(j), c_.arg(k)))
          return c_.name() + " writes '" + text(c_.arg(k)) + "', which " + p_.name() + " reads or writes as '" +
                 text(p_.arg(j)) + "' (they may alias)";
    }
    return "";
  }

  std::string space(const KernelCall& k) const {
    return k.rows() ? "'" + text(k.arg(k.loop->trip)) + "' rows of '" + text(k.arg(k.loop->width)) + "'"
                    : "'" + text(k.arg(k.loop->trip)) + "' elements";
  }

  std::string space_refusal() const {
    const Expr* pn = p_.arg(p_.loop->trip);
    const Expr* cn = c_.arg(c_.loop->trip);
    bool same = false;
    if (p_.rows() && c_.rows())
      same = same_value(ir_, pn, cn) && same_value(ir_, p_.arg(p_.loop->width), c_.arg(c_.loop->width));
    else if (p_.rows()) same = product_of(ir_, cn, pn, p_.arg(p_.loop->width));
    else if (c_.rows()) same = product_of(ir_, pn, cn, c_.arg(c_.loop->width));
    else same = same_value(ir_, pn, cn);
    return same ? "" : "their loops run over different spaces (" + space(p_) + ", " + space(c_) + ")";
  }
};

std::optional<KernelCall> kernel_call(const FunctionIR& ir, const Node* n) {
  const FunctionDecl* callee = n && n->kind == NodeKind::Call && n->call ? n->call->getDirectCallee() : nullptr;
  if (!callee || isa<CXXMethodDecl>(callee)) return std::nullopt;
  KernelCall k{n, callee};
  if (const FunctionDecl* def = callee->getDefinition())
    if (auto it = ir.unit.kernel_loops.find(def); it != ir.unit.kernel_loops.end()) k.loop = &it->second;
  return k;
}

}  // namespace

std::vector<FusionDecision> find_fusible_calls(const FunctionIR& ir, const std::vector<Node*>& all) {
  std::vector<FusionDecision> decisions;
  for (const Node* block : all) {
    if (block->kind != NodeKind::Block) continue;
    for (size_t i = 1; i < block->children.size(); i++) {
      std::optional<KernelCall> producer = kernel_call(ir, block->children[i - 1]);
      std::optional<KernelCall> consumer = kernel_call(ir, block->children[i]);
      if (!producer || !consumer) continue;
      PairDecider pair(ir, all, *producer, *consumer);
      if (pair.find_intermediates()) decisions.push_back(pair.decide());
    }
  }
  return decisions;
}

}  // namespace adjc
