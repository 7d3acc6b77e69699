// Lowering of assignments and the expressions in them: calls hoisted out into Call nodes, side
// effects (assignments, `++`/`--`, comma operators) made statements that run before the use,
// calls and side effects that run only on some paths (in `?:`, `&&`, `||`) kept on them
// (lowering.hpp).
#include "lowering.hpp"

namespace adjc {

using namespace clang;

bool same_base(const Expr* a, const Expr* b, const UnitFacts& unit) {
  a = strip(a, unit);
  b = strip(b, unit);
  if (a == b) return true;
  if (auto* ra = dyn_cast<DeclRefExpr>(a))
    if (auto* rb = dyn_cast<DeclRefExpr>(b)) return ra->getDecl() == rb->getDecl();
  if (auto* ma = dyn_cast<MemberExpr>(a))
    if (auto* mb = dyn_cast<MemberExpr>(b))
      return ma->getMemberDecl() == mb->getMemberDecl() && same_base(ma->getBase(), mb->getBase(), unit);
  return false;
}

// Whether `call`, of a function without derivative returning a number, runs code that writes or
// reads a non-const global of integers (global_counter_uses).
static bool touches_integer_globals(const CallExpr* call, const UnitFacts& unit) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (!callee || !call->getType()->isArithmeticType() || callee_kind(callee, unit) != CalleeKind::Plain) return false;
  GlobalUses uses = global_counter_uses(callee, unit, true);
  return !uses.written.empty() || !uses.read.empty();
}

bool has_side_effects(const Expr* e) {
  if (!e || isa<LambdaExpr>(e)) return false;
  if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->isAssignmentOp() || b->getOpcode() == BO_Comma)) return true;
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp()) return true;
  for (const Stmt* c : e->children())
    if (has_side_effects(dyn_cast_or_null<Expr>(c))) return true;
  return false;
}

// Hoists calls to user functions (and functions with custom pullbacks) out of `e` into Call
// nodes of `block`, innermost first.
void Lowering::hoist_calls(const Expr* e, Node* block, const Stmt* stmt) {
  if (!e) return;
  e = strip(e, ir_.unit);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) hoist_calls(ce, block, stmt);
  auto* call = dyn_cast<CallExpr>(e);
  if (!call || !call->getDirectCallee() || math_function(call) != MathFn::None || ir_.hoisted.count(call)) return;
  if (is_make_pair(call)) return fail(call->getBeginLoc(), Diag::unsupported_make_pair_place);
  // A struct result is memory its members are copied from: always a temporary of its own. So is the
  // result of a function without derivative that writes or reads a non-const global of integers (a
  // counter, global_counter_uses): the reverse reads the temporary instead of calling it again.
  if (!hoisted_callee(call->getDirectCallee(), ir_.unit) && !is_plain_struct(call->getType(), ir_.unit) &&
      !touches_integer_globals(call, ir_.unit))
    return;
  Node* n = make(NodeKind::Call, stmt);
  n->loc = call->getBeginLoc();
  n->call = call;
  if (!call->getType()->isVoidType()) {
    n->result = make_var("_" + base_name(call->getDirectCallee(), ir_.unit), call->getType(), VarKind::CallResult,
                         nullptr, call->getBeginLoc());
    n->result->assignments = 1;
    n->result->definition = n;
    n->result->block = block;
    ir_.call_result[call] = n->result;
    if (is_plain_struct(call->getType(), ir_.unit))
      check_carried_pointers(call->getType(), "the result of '" + base_name(call->getDirectCallee(), ir_.unit) + "'",
                             call->getBeginLoc());
  }
  ir_.hoisted.insert(call);
  add(block, n);
}

// A lambda with captures exists only as generated sweeps: a call of one where calls are not hoisted
// (a condition, a loop's start) is reported.
void Lowering::reject_closure_calls(const Expr* e) {
  if (!e) return;
  if (auto* call = dyn_cast<CallExpr>(e);
      call && call->getDirectCallee() && as_closure_function(call->getDirectCallee(), ir_.unit))
    return fail(call->getBeginLoc(), Diag::unsupported_lambda_captures_called_condition_loop);
  for (const Stmt* c : e->children()) reject_closure_calls(dyn_cast_or_null<Expr>(c));
}

// Whether `e` holds a call hoist_calls hoists out of it.
bool Lowering::holds_hoisted_call(const Expr* e) {
  if (!e) return false;
  e = strip(e, ir_.unit);
  if (auto* call = dyn_cast<CallExpr>(e); call && call->getDirectCallee() && math_function(call) == MathFn::None &&
                                          (hoisted_callee(call->getDirectCallee(), ir_.unit) ||
                                           touches_integer_globals(call, ir_.unit)))
    return true;
  for (const Stmt* c : e->children())
    if (holds_hoisted_call(dyn_cast_or_null<Expr>(c))) return true;
  return false;
}

// Hoisting runs a call before the statement that holds it, and a side effect becomes a statement
// before it, so one that runs only on some paths — in a branch of `c ? a : b` or in the right
// operand of `&&`, `||` — must not be moved out of its condition: each such expression becomes a
// temporary set by an if/else (`t = c` for the operators), the calls and side effects lowered into
// the branch that evaluates them. Side effects elsewhere become statements (lower_side_effect).
// Returns `e`, or what replaces it; operands of `e` are replaced in place.
Expr* Lowering::lower_branches(Expr* e, Node* block, const Stmt* stmt) {
  if (!e) return e;
  auto* cond = dyn_cast<ConditionalOperator>(e);
  auto* logic = dyn_cast<BinaryOperator>(e);
  if (logic && !logic->isLogicalOp()) logic = nullptr;
  auto conditional = [&](const Expr* x) { return holds_hoisted_call(x) || has_side_effects(x); };
  if ((cond && (conditional(cond->getTrueExpr()) || conditional(cond->getFalseExpr()))) ||
      (logic && conditional(logic->getRHS())))
    return lower_branch(e, block, stmt);
  if (isa<BinaryConditionalOperator>(e) && conditional(e)) {
    fail(e->getExprLoc(), Diag::unsupported_side_effect_in_gnu_conditional);
    return e;
  }
  if (Expr* replaced = lower_side_effect(e, block, stmt)) return replaced;
  for (Stmt*& c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) c = lower_branches(ce, block, stmt);
  return e;
}

// A side effect inside an expression as statements of `block` before the statement that holds it,
// in C++'s order (an assignment's value before its target): `a = b = x` -> `b = x; a = b;`,
// `y = x[i++]` -> `_old = i; i += 1; y = x[_old];`, `(s += x, s)` -> `s += x; s`. Returns what
// replaces `e` (the assigned lvalue, the old value), or nullptr when `e` is no side effect.
Expr* Lowering::lower_side_effect(Expr* e, Node* block, const Stmt* stmt) {
  if (auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
    if (has_side_effects(b->getLHS()) || isa<CallExpr>(strip(b->getLHS(), ir_.unit))) lower_expr_stmt(b->getLHS(), block);
    return lower_branches(b->getRHS(), block, stmt);
  }
  if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) {
    lower_assign(stmt, b->getLHS(), b->getOpcode(), b->getRHS(), block);
    return b->getLHS();
  }
  auto* u = dyn_cast<UnaryOperator>(e);
  if (!u || !u->isIncrementDecrementOp()) return nullptr;
  Expr* target = u->getSubExpr();
  BinaryOperatorKind op = u->isIncrementOp() ? BO_AddAssign : BO_SubAssign;
  if (u->isPrefix()) {
    lower_assign(stmt, target, op, nullptr, block);
    return target;
  }
  for (Stmt*& c : target->children())  // `v[i++]++`: the target's own side effects first
    if (auto* ce = dyn_cast_or_null<Expr>(c)) c = lower_branches(ce, block, stmt);
  QualType type = target->getType().getUnqualifiedType();
  const VarDecl* old = new_local("_old", type, e->getExprLoc(), block);
  define(old, ImplicitCastExpr::Create(context_, type, CK_LValueToRValue, target, nullptr, VK_PRValue,
                                       FPOptionsOverride()),
         stmt, block);
  lower_assign(stmt, target, op, nullptr, block);
  return const_cast<Expr*>(rvalue(old));
}

// `c ? a : b` -> `if (c) t = a; else t = b;`, `l && r` -> `t = l; if (t) t = r;`,
// `l || r` -> `t = l; if (t) {} else t = r;`; returns the temporary as an rvalue of e's type.
Expr* Lowering::lower_branch(Expr* e, Node* block, const Stmt* stmt) {
  QualType type = e->getType().getUnqualifiedType();
  if (!type->isArithmeticType()) {
    fail(e->getExprLoc(), Diag::unsupported_side_effect_in_conditional, {type.getAsString()});
    return e;
  }
  SourceLocation at = e->getExprLoc();
  const VarDecl* vd = new_local("_branch", type, at, block);
  Node* n = make(NodeKind::If, stmt);
  n->loc = at;
  n->then_node = make(NodeKind::Block, stmt);
  n->then_node->parent = n;
  if (auto* c = dyn_cast<ConditionalOperator>(e)) {
    n->cond = lower_branches(c->getCond(), block, stmt);
    check_expression(ir_, diags_, n->cond);
    n->else_node = make(NodeKind::Block, stmt);
    n->else_node->parent = n;
    lower_assign(stmt, new_ref(vd), BO_Assign, c->getTrueExpr(), n->then_node);
    lower_assign(stmt, new_ref(vd), BO_Assign, c->getFalseExpr(), n->else_node);
  } else {
    auto* b = cast<BinaryOperator>(e);
    lower_assign(stmt, new_ref(vd), BO_Assign, b->getLHS(), block);
    n->cond = new_ref(vd);
    Node* evaluates = n->then_node;
    if (b->getOpcode() == BO_LOr) {
      n->else_node = make(NodeKind::Block, stmt);
      n->else_node->parent = n;
      evaluates = n->else_node;
    }
    lower_assign(stmt, new_ref(vd), BO_Assign, b->getRHS(), evaluates);
  }
  add(block, n);
  return ImplicitCastExpr::Create(context_, type, CK_LValueToRValue, const_cast<Expr*>(new_ref(vd)), nullptr,
                                  VK_PRValue, FPOptionsOverride());
}

// The operands of a statement lowered before it: calls on some paths kept there, struct
// temporaries made locals, the expression checked, calls hoisted. Returns `e` or what replaces it.
const Expr* Lowering::lower_operands(const Expr* e, Node* block, const Stmt* stmt) {
  Expr* lowered = lower_branches(const_cast<Expr*>(e), block, stmt);
  materialize_temporaries(lowered, block, stmt);
  check_expression(ir_, diags_, lowered);
  hoist_calls(lowered, block, stmt);
  return lowered;
}

// `lhs op rhs` as an Assign node (rhs nullptr for ++/--).
void Lowering::lower_assign(const Stmt* stmt, const Expr* lhs, BinaryOperatorKind op, const Expr* rhs, Node* block) {
  rhs = lower_branches(const_cast<Expr*>(rhs), block, stmt);
  if (auto* c = dyn_cast<ConditionalOperator>(lhs->IgnoreParens()))
    return lower_conditional_assign(stmt, const_cast<ConditionalOperator*>(c), op, rhs, block);
  if (has_side_effects(lhs))  // `v[i++] = x`: after the value's side effects (C++17)
    for (Stmt*& c : const_cast<Expr*>(lhs)->children())
      if (auto* ce = dyn_cast_or_null<Expr>(c)) c = lower_branches(ce, block, stmt);
  materialize_temporaries(const_cast<Expr*>(rhs), block, stmt);
  check_expression(ir_, diags_, rhs);
  hoist_calls(rhs, block, stmt);
  Node* n = make(NodeKind::Assign, stmt);
  n->lhs = lhs;
  n->op = op;
  n->rhs = rhs;
  const Expr* target = lhs->IgnoreParens();
  Var* v = ir_.var(target);
  if (v && v->heap && null_pointer(rhs))
    return fail(target->getExprLoc(), Diag::unsupported_setting_heap_array_pointer_nullptr, {v->source_name()});
  if (v && v->heap)
    return fail(target->getExprLoc(), Diag::heap_pointer_assigned_again, {v->source_name(), v->source_name()});
  if (v && !v->memory) {
    if (v->counter) return fail(target->getExprLoc(), Diag::loop_counter_modified);
    // Pointer parameters moved by the body are local copies (copy_addressed_params). A pointer null
    // where declared takes its region from the first assignment of its declaring block.
    if (v->pointer && rhs && op == BO_Assign && (v->base || !null_pointer(rhs))) {
      if (!v->base && block == v->block && !point_at(v, rhs))
        return fail(target->getExprLoc(), Diag::local_pointer_target_unknown, {written_name(v, target)});
      if (!v->base || !same_base(pointer_base(rhs), v->base, ir_.unit))
        return fail(target->getExprLoc(), Diag::local_pointer_retargeted, {written_name(v, target)});
    }
    n->target = v;
    v->assignments++;
  } else if (counter_global(target)) {
    // A counter (check_global_counters): the forward runs it as written, the reverse has nothing
    // for it; no target, no memory root.
    if (!ir_.valid) return;
  } else {
    check_expression(ir_, diags_, lhs);
    n->memory_root = memory_root(ir_, target);
    if (!n->memory_root) return fail(target->getExprLoc(), Diag::unsupported_assignment_target);
    if (n->memory_root->kind == VarKind::Param && !n->memory_root->reference && !n->memory_root->pointer)
      return fail(target->getExprLoc(), Diag::unsupported_writing_value_struct_parameter,
                  {n->memory_root->source_name()});
  }
  QualType t = lhs->getType();
  if (is_value_class(t, ir_.unit) && !(v && v->value))
    return fail(target->getExprLoc(), Diag::unsupported_assigning_value_class_into_memory);
  if (is_floating(t) && op != BO_Assign && op != BO_AddAssign && op != BO_SubAssign && op != BO_MulAssign &&
      op != BO_DivAssign)
    return fail(stmt->getBeginLoc(), Diag::unsupported_compound_assignment_floating_value);
  if (!is_adjoint_value(t, ir_.unit) && !t->isIntegralOrEnumerationType() && !t->isBooleanType() && !t->isPointerType())
    return fail(stmt->getBeginLoc(), Diag::unsupported_assignment_type, {t.getAsString()});
  add(block, n);
}

// `(c ? a : b) op= rhs` -> `if (c) a op= rhs; else b op= rhs;`, rhs through a local when it calls
// a function (hoisted once) or the condition has side effects (the value comes first).
void Lowering::lower_conditional_assign(const Stmt* stmt, ConditionalOperator* target, BinaryOperatorKind op,
                                        const Expr* rhs, Node* block) {
  if (rhs && (holds_hoisted_call(rhs) || has_side_effects(target->getCond()))) {
    QualType type = rhs->getType().getUnqualifiedType();
    const VarDecl* value = new_local("_value", type, rhs->getExprLoc(), block);
    define(value, rhs, stmt, block);
    rhs = rvalue(value);
  }
  Stmt*& cond = *target->child_begin();
  cond = lower_branches(cast<Expr>(cond), block, stmt);
  check_expression(ir_, diags_, cast<Expr>(cond));
  Node* n = make(NodeKind::If, stmt);
  n->loc = target->getExprLoc();
  n->cond = cast<Expr>(cond);
  n->then_node = make(NodeKind::Block, stmt);
  n->then_node->parent = n;
  n->else_node = make(NodeKind::Block, stmt);
  n->else_node->parent = n;
  lower_assign(stmt, target->getTrueExpr(), op, rhs, n->then_node);
  lower_assign(stmt, target->getFalseExpr(), op, rhs, n->else_node);
  add(block, n);
}

// `v`, a local pointer or a split struct's pointer member, takes the region `value` points into
// (false if unknown). A null `value` gives it none: it must not be read through until an
// assignment of its declaring block gives it one (lower_assign).
bool Lowering::point_at(Var* v, const Expr* value) {
  if (null_pointer(value)) return true;
  v->base = pointer_base(value);
  v->root = memory_root(ir_, value);
  return v->base && v->root;
}

bool Lowering::null_pointer(const Expr* e) {
  return e && e->isNullPointerConstant(context_, Expr::NPC_ValueDependentIsNotNull);
}

// The pointer expression a pointer-valued `e` offsets (a pointer parameter, member, or array).
const Expr* Lowering::pointer_base(const Expr* e) {
  e = strip(e, ir_.unit);
  // A local pointer (a split struct's pointer member `s.p` too) has the base it was given.
  if (isa<DeclRefExpr>(e) || isa<MemberExpr>(e)) {
    Var* v = ir_.var(e);
    if (v && v->pointer && v->kind != VarKind::Param) return v->base;
    return v || isa<MemberExpr>(e) ? e : nullptr;
  }
  if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub))
    return pointer_base(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
    // `&a` of a one-element region (a floating local or parameter whose address is taken) or of a
    // local object.
    if (Var* v = ir_.var(strip(u->getSubExpr(), ir_.unit));
        v && v->memory && (is_floating(v->type) || (v->kind == VarKind::Local && is_plain_struct(v->type, ir_.unit))))
      return e;
    if (auto* sub = dyn_cast<ArraySubscriptExpr>(strip(u->getSubExpr(), ir_.unit))) {
      // Into a container: `c.data()` or `&c[k]` with a constant k (the pointer's base is printed
      // again where the reverse sweep rebuilds it).
      if (!is_container(sub->getBase()->getType())) return pointer_base(sub->getBase());
      return isa<IntegerLiteral>(strip(sub->getIdx(), ir_.unit)) ? e : nullptr;
    }
  }
  return nullptr;
}

}  // namespace adjc
