// find-kernel-loop: whether a function's body is one loop whose iterations are independent and
// touch, per pointer parameter, element i, row i, or elements shared read-only by all iterations
// (classify.hpp, KernelLoop). Recorded in the unit's facts for the callers' find-fusible-calls
// (fusion.cpp), which fuses the loops of consecutive calls of such functions.
#include "fusion.hpp"
#include "ir_walk.hpp"

namespace adjc {

using namespace clang;

namespace {

const Expr* bare(const Expr* e) { return e ? e->IgnoreParenCasts() : nullptr; }

// The variable `e` names, bare of casts.
Var* named_var(const FunctionIR& ir, const Expr* e) {
  auto* ref = dyn_cast_or_null<DeclRefExpr>(bare(e));
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  auto it = vd ? ir.var_of.find(vd) : ir.var_of.end();
  return it == ir.var_of.end() ? nullptr : it->second;
}

// `counter < P` with P a parameter, counting up by one from 0: P's position, else -1.
int counted_to_param(const FunctionIR& ir, const Node* loop) {
  auto* cond = dyn_cast_or_null<BinaryOperator>(bare(loop->cond));
  if (!loop->counter || loop->step != 1 || !loop->jumps.empty() || !cond || cond->getOpcode() != BO_LT ||
      named_var(ir, cond->getLHS()) != loop->counter)
    return -1;
  Expr::EvalResult start;
  if (!loop->start || !loop->start->EvaluateAsInt(start, ir.fn->getASTContext()) || start.Val.getInt() != 0) return -1;
  const Var* bound = named_var(ir, cond->getRHS());
  return bound && bound->kind == VarKind::Param ? bound->param_index : -1;
}

class KernelLoopFinder {
 public:
  KernelLoopFinder(const FunctionIR& ir, const Node* loop, KernelLoop& result) : ir_(ir), loop_(loop), result_(result) {
    // Inner loops over a row: counters running 0..W for a parameter W.
    for_each_node(loop->body, [&](const Node* n) {
      if (n->kind == NodeKind::Loop) inner_width_[n->counter] = counted_to_param(ir, n);
    });
  }

  // Classifies every node of the loop's body; the first thing that is no kernel's is the refusal.
  void run() {
    for_each_node(loop_->body, [&](const Node* n) {
      if (!result_.refusal.empty()) return;
      if (n->kind == NodeKind::Call) refuse("its loop calls '" + n->call->getDirectCallee()->getNameAsString() + "'");
      else if (n->kind == NodeKind::Jump) refuse("its loop's body jumps");
      else if (n->kind == NodeKind::Assign) assignment(n);
      else if (n->kind == NodeKind::If) reads(n->cond);
      else if (n->kind == NodeKind::Loop && inner_width_[n->counter] < 0) refuse("an inner loop does not run 0..W");
    });
  }

 private:
  const FunctionIR& ir_;
  const Node* loop_;
  KernelLoop& result_;
  std::map<const Var*, int> inner_width_;

  void refuse(const std::string& why) {
    if (result_.refusal.empty()) result_.refusal = why;
  }

  void assignment(const Node* n) {
    if (n->target) {
      // Scalars: private to an iteration (declared in the body, or an inner loop's counter).
      bool inner_counter = n->target->counter && n->target != loop_->counter;
      if (!declared_in(n->target, loop_->body) && !inner_counter)
        refuse("its iterations share '" + n->target->source_name() + "'");
      // A local pointer's definition `q = p + i * W` is an address, read by the accesses through q.
      if (!n->target->pointer) reads(n->rhs);
      return;
    }
    auto* sub = dyn_cast<ArraySubscriptExpr>(bare(n->lhs));
    if (!sub) return refuse("it writes memory other than by subscript");
    access(sub, /*write=*/true);
    if (n->op != BO_Assign) access(sub, /*write=*/false);
    reads(sub->getIdx());
    reads(n->rhs);
  }

  void reads(const Expr* e) {
    walk_operands(e, [&](const Expr* x) {
      if (auto* sub = dyn_cast<ArraySubscriptExpr>(x)) access(sub, /*write=*/false);
      else if (auto* u = dyn_cast<UnaryOperator>(x); u && u->getOpcode() == UO_Deref)
        refuse("it dereferences a pointer");
      return true;
    });
  }

  // Records how `p[idx]` reaches into its parameter's memory.
  void access(const ArraySubscriptExpr* sub, bool write) {
    Var* base = named_var(ir_, sub->getBase());
    if (!base || !base->pointer || !base->root || base->root->kind != VarKind::Param)
      return refuse("it reads or writes memory that is no pointer parameter's");
    Reach reach = base == base->root ? index_reach(sub->getIdx()) : offset_reach(base, sub->getIdx());
    if (reach == Reach::Shared && write) reach = Reach::Other;
    std::vector<Reach>& reaches = write ? result_.writes : result_.reads;
    Reach& r = reaches[base->root->param_index];
    r = r == Reach::None || r == reach ? reach : Reach::Other;
    if (r == Reach::Other) refuse("iteration i reaches beyond element or row i of '" + base->root->source_name() + "'");
  }

  bool is_counter(const Expr* e) const { return named_var(ir_, e) == loop_->counter; }

  // `i * W` (or `W * i`) with W a parameter, recorded as the row width.
  bool row_offset(const Expr* e) {
    auto* mul = dyn_cast_or_null<BinaryOperator>(bare(e));
    if (!mul || mul->getOpcode() != BO_Mul) return false;
    for (auto [i, w] : {std::pair{mul->getLHS(), mul->getRHS()}, std::pair{mul->getRHS(), mul->getLHS()}}) {
      const Var* width = named_var(ir_, w);
      if (is_counter(i) && width && width->kind == VarKind::Param) return same_width(width->param_index);
    }
    return false;
  }

  bool same_width(int param) {
    if (result_.width < 0) result_.width = param;
    return result_.width == param;
  }

  // An inner counter running over the row: 0..W.
  bool column(const Expr* e) {
    auto it = inner_width_.find(named_var(ir_, e));
    return it != inner_width_.end() && it->second >= 0 && same_width(it->second);
  }

  Reach index_reach(const Expr* idx) {
    if (is_counter(idx)) return Reach::Element;
    if (auto* add = dyn_cast<BinaryOperator>(bare(idx)); add && add->getOpcode() == BO_Add)
      if ((row_offset(add->getLHS()) && column(add->getRHS())) || (row_offset(add->getRHS()) && column(add->getLHS())))
        return Reach::Row;
    bool uses_counter = false;
    walk_operands(idx, [&](const Expr* x) { return !(uses_counter |= is_counter(x)); });
    return uses_counter ? Reach::Other : Reach::Shared;
  }

  // Through a local pointer defined once as `p + i * W`: `q[c]` is row i.
  Reach offset_reach(const Var* local, const Expr* idx) {
    const Node* def = local->definition;
    auto* add = def && local->assignments == 1 ? dyn_cast_or_null<BinaryOperator>(bare(def->rhs)) : nullptr;
    if (!add || add->getOpcode() != BO_Add || named_var(ir_, add->getLHS()) != local->root) return Reach::Other;
    return row_offset(add->getRHS()) && column(idx) ? Reach::Row : Reach::Other;
  }
};

}  // namespace

KernelLoop find_kernel_loop(const FunctionIR& ir) {
  KernelLoop result;
  result.reads.assign(ir.params.size(), Reach::None);
  result.writes.assign(ir.params.size(), Reach::None);
  const Node* loop = nullptr;
  for (const Node* n : ir.body->children) {
    bool scalar_definition =
        n->kind == NodeKind::Assign && n->definition && n->target && !n->target->memory && !n->target->pointer;
    if (n->kind == NodeKind::Loop && !loop) loop = n;
    else if (!scalar_definition && n->kind != NodeKind::Jump)
      loop = nullptr, result.refusal = "its body is not one loop";
    if (!result.refusal.empty()) return result;
  }
  if (ir.self) result.refusal = "it is a member function";
  else if (!loop) result.refusal = "its body is not one loop";
  else if ((result.trip = counted_to_param(ir, loop)) < 0)
    result.refusal = "its loop does not run 0..n for a parameter n";
  else KernelLoopFinder(ir, loop, result).run();
  return result;
}

}  // namespace adjc
