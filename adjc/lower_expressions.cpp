// Lowering of assignments and the expressions in them: calls hoisted out into Call nodes, calls
// that run only on some paths (in `?:`, `&&`, `||`) kept on them (lowering.hpp).
#include "lowering.hpp"

namespace adjc {

using namespace clang;

namespace {

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

}  // namespace

// Hoists calls to user functions (and functions with custom pullbacks) out of `e` into Call
// nodes of `block`, innermost first.
void Lowering::hoist_calls(const Expr* e, Node* block, const Stmt* stmt) {
  if (!e) return;
  e = strip(e, ir_.unit);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) hoist_calls(ce, block, stmt);
  auto* call = dyn_cast<CallExpr>(e);
  if (!call || !call->getDirectCallee() || math_function(call) != MathFn::None || ir_.hoisted.count(call)) return;
  // A struct result is memory its members are copied from: always a temporary of its own.
  if (!hoisted_callee(call->getDirectCallee(), ir_.unit) && !is_plain_struct(call->getType(), ir_.unit)) return;
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
  }
  ir_.hoisted.insert(call);
  add(block, n);
}

// Whether `e` holds a call hoist_calls hoists out of it.
bool Lowering::holds_hoisted_call(const Expr* e) {
  if (!e) return false;
  e = strip(e, ir_.unit);
  if (auto* call = dyn_cast<CallExpr>(e); call && call->getDirectCallee() && math_function(call) == MathFn::None &&
                                          hoisted_callee(call->getDirectCallee(), ir_.unit))
    return true;
  for (const Stmt* c : e->children())
    if (holds_hoisted_call(dyn_cast_or_null<Expr>(c))) return true;
  return false;
}

// Hoisting runs a call before the statement that holds it, so a call that runs only on some
// paths — in a branch of `c ? a : b` or in the right operand of `&&`, `||` — must not be
// hoisted out of its condition: each such expression becomes a temporary set by an if/else
// (`t = c` for the operators), the calls hoisted into the branch that evaluates them.
// Returns `e`, or what replaces it; operands of `e` are replaced in place.
Expr* Lowering::lower_branches(Expr* e, Node* block, const Stmt* stmt) {
  if (!e) return e;
  auto* cond = dyn_cast<ConditionalOperator>(e);
  auto* logic = dyn_cast<BinaryOperator>(e);
  if (logic && !logic->isLogicalOp()) logic = nullptr;
  if ((cond && (holds_hoisted_call(cond->getTrueExpr()) || holds_hoisted_call(cond->getFalseExpr()))) ||
      (logic && holds_hoisted_call(logic->getRHS())))
    return lower_branch(e, block, stmt);
  if (isa<BinaryConditionalOperator>(e) && holds_hoisted_call(e)) {
    fail(e->getExprLoc(), "a call inside the GNU conditional 'a ?: b' is not supported; write 'a ? a : b'");
    return e;
  }
  for (Stmt*& c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) c = lower_branches(ce, block, stmt);
  return e;
}

// `c ? a : b` -> `if (c) t = a; else t = b;`, `l && r` -> `t = l; if (t) t = r;`,
// `l || r` -> `t = l; if (t) {} else t = r;`; returns the temporary as an rvalue of e's type.
Expr* Lowering::lower_branch(Expr* e, Node* block, const Stmt* stmt) {
  QualType type = e->getType().getUnqualifiedType();
  if (!type->isArithmeticType()) {
    fail(e->getExprLoc(), "a call inside a conditional expression of type '" + type.getAsString() +
                              "' is not supported; write it as an if/else statement");
    return e;
  }
  SourceLocation at = e->getExprLoc();
  VarDecl* vd = synthesized("_branch", type, at);
  Var* t = make_var("_branch", type, VarKind::Local, vd, at);
  t->block = block;
  Node* n = make(NodeKind::If, stmt);
  n->loc = at;
  n->then_node = make(NodeKind::Block, stmt);
  n->then_node->parent = n;
  if (auto* c = dyn_cast<ConditionalOperator>(e)) {
    check_expression(ir_, diags_, c->getCond());
    n->cond = c->getCond();
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
  rhs = lower_operands(rhs, block, stmt);
  Node* n = make(NodeKind::Assign, stmt);
  n->lhs = lhs;
  n->op = op;
  n->rhs = rhs;
  const Expr* target = lhs->IgnoreParens();
  Var* v = ir_.var(target);
  if (v && !v->memory) {
    if (v->counter) return fail(target->getExprLoc(), "the counter of a for loop is modified in its body");
    if (v->pointer) {
      if (v->kind == VarKind::Param)
        return fail(target->getExprLoc(),
                    "reassigning pointer parameter '" + v->name + "' is not supported; use a local pointer");
      if (rhs && (op == BO_Assign) && (!v->base || !same_base(pointer_base(rhs), v->base, ir_.unit)))
        return fail(target->getExprLoc(), "local pointer '" + v->name + "' must keep pointing into the same array");
    }
    n->target = v;
    v->assignments++;
  } else {
    check_expression(ir_, diags_, lhs);
    n->memory_root = memory_root(ir_, target);
    if (!n->memory_root) return fail(target->getExprLoc(), "assignment to an unsupported lvalue");
    if (n->memory_root->kind == VarKind::Param && !n->memory_root->reference && !n->memory_root->pointer)
      return fail(target->getExprLoc(),
                  "writing to by-value struct parameter '" + n->memory_root->name + "' is not supported");
  }
  QualType t = lhs->getType();
  if (is_value_class(t, ir_.unit) && !(v && v->value))
    return fail(target->getExprLoc(),
                "assigning a value class into memory (a member or an array) is not supported; use a local");
  if (is_floating(t) && op != BO_Assign && op != BO_AddAssign && op != BO_SubAssign && op != BO_MulAssign &&
      op != BO_DivAssign)
    return fail(stmt->getBeginLoc(), "unsupported compound assignment on a floating value");
  if (!is_adjoint_value(t, ir_.unit) && !t->isIntegralOrEnumerationType() && !t->isBooleanType() && !t->isPointerType())
    return fail(stmt->getBeginLoc(), "assignment of type '" + t.getAsString() + "' is not supported");
  add(block, n);
}

// The pointer expression a pointer-valued `e` offsets (a pointer parameter, member, or array).
const Expr* Lowering::pointer_base(const Expr* e) {
  e = strip(e, ir_.unit);
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    Var* v = ir_.var(ref);
    if (v && v->pointer && v->kind != VarKind::Param) return v->base;
    return v ? e : nullptr;
  }
  if (isa<MemberExpr>(e)) return e;
  if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub))
    return pointer_base(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    if (auto* sub = dyn_cast<ArraySubscriptExpr>(strip(u->getSubExpr(), ir_.unit))) {
      // Into a container: `c.data()` or `&c[k]` with a constant k (the pointer's base is printed
      // again where the reverse sweep rebuilds it).
      if (!is_container(sub->getBase()->getType())) return pointer_base(sub->getBase());
      return isa<IntegerLiteral>(strip(sub->getIdx(), ir_.unit)) ? e : nullptr;
    }
  return nullptr;
}

}  // namespace adjc
