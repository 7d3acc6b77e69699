// Lowering: clang AST -> IR; rejects what adjc cannot differentiate (passes.hpp).
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <functional>

#include "passes.hpp"

namespace adjc {

using namespace clang;

namespace {

bool same_base(const Expr* a, const Expr* b) {
  a = strip(a);
  b = strip(b);
  if (auto* ra = dyn_cast<DeclRefExpr>(a))
    if (auto* rb = dyn_cast<DeclRefExpr>(b)) return ra->getDecl() == rb->getDecl();
  if (auto* ma = dyn_cast<MemberExpr>(a))
    if (auto* mb = dyn_cast<MemberExpr>(b))
      return ma->getMemberDecl() == mb->getMemberDecl() && same_base(ma->getBase(), mb->getBase());
  return false;
}

// Whether `stmt` writes the variable `decl` (assignment, ++/--, address taken).
bool writes_variable(const Stmt* stmt, const VarDecl* decl) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found) return;
    auto target = [&](const Expr* e) {
      auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      return ref && ref->getDecl() == decl;
    };
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && target(b->getLHS())) found = true;
    if (auto* u = dyn_cast<UnaryOperator>(s);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf) && target(u->getSubExpr()))
      found = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(stmt);
  return found;
}

class Lowering {
 public:
  Lowering(FunctionIR& ir, ASTContext& context, Diagnostics& diags, const CustomPullbacks& custom)
      : ir_(ir), context_(context), diags_(diags), custom_(custom) {}

  void run() {
    const FunctionDecl* fn = ir_.fn;
    check_function(ir_, context_, diags_);
    for (const ParmVarDecl* p : fn->parameters()) {
      if (p->getName().empty()) continue;
      names_[p->getName().str()] = 1;
    }
    int index = 0;
    for (const AdParam& p : ad_params(fn)) {
      std::string name = p.decl
                             ? (p.decl->getName().empty() ? "_param" + std::to_string(index) : p.decl->getName().str())
                             : unique_name("self");
      Var* v = make_var(name, p.type, VarKind::Param, p.decl, p.decl ? p.decl->getLocation() : fn->getLocation());
      v->param_index = index++;
      v->param_type = p.type;
      v->differentiable = is_differentiable(p.type);
      if (v->pointer) v->root = v;
      if (!p.decl) ir_.self = v;
      ir_.params.push_back(v);
    }
    QualType rt = fn->getReturnType();
    if (!rt->isVoidType()) {
      ir_.ret = make_var("_ret", rt, VarKind::Return, nullptr, fn->getLocation());
      ir_.returns_value = is_adjoint_value(rt);
    }
    ir_.body = make(NodeKind::Block, fn->getBody());
    lower_compound(cast<CompoundStmt>(fn->getBody()), ir_.body);
    int order = 0;
    for_each_node(ir_.body, [&](Node* n) { n->order = order++; });
  }

 private:
  FunctionIR& ir_;
  ASTContext& context_;
  Diagnostics& diags_;
  const CustomPullbacks& custom_;
  std::map<std::string, int> names_;
  std::vector<Node*> loops_;
  Node* parallel_ = nullptr;
  int next_id_ = 1;

  void fail(SourceLocation where, const std::string& message) {
    diags_.error(where, message);
    ir_.valid = false;
  }

  Node* make(NodeKind kind, const Stmt* stmt) {
    ir_.nodes.push_back(std::make_unique<Node>());
    Node* n = ir_.nodes.back().get();
    n->kind = kind;
    n->stmt = stmt;
    n->loc = stmt ? stmt->getBeginLoc() : SourceLocation();
    n->loops = loops_;
    return n;
  }

  std::string unique_name(const std::string& base) {
    int& uses = names_[base];
    if (uses == 0) {
      uses = 1;
      return base;
    }
    std::string name;
    do name = base + "_" + std::to_string(uses++);
    while (names_.count(name));
    names_[name] = 1;
    return name;
  }

  Var* make_var(const std::string& name, QualType type, VarKind kind, const VarDecl* decl, SourceLocation loc) {
    ir_.vars.push_back(std::make_unique<Var>());
    Var* v = ir_.vars.back().get();
    v->index = int(ir_.vars.size()) - 1;
    v->name = kind == VarKind::Param ? name : unique_name(name);
    v->kind = kind;
    v->decl = decl;
    v->parallel = parallel_;
    QualType t = type.getCanonicalType();
    if (is_value_class(t)) {
      // A handle: by value or const reference, it is a value with an adjoint of its own type.
      if (t->isReferenceType() && !t->getPointeeType().isConstQualified())
        fail(loc, "value class '" + name + "' passed by non-const reference; pass it by value or const reference");
      v->type = type.getNonReferenceType();
      v->value = true;
      if (decl) ir_.var_of[decl] = v;
      return v;
    }
    if (t->isReferenceType()) {
      v->reference = true;
      v->memory = true;
      type = type->getPointeeType();
      t = type.getCanonicalType();
    }
    v->type = type;
    if (t->isPointerType()) {
      if (t->getPointeeType()->isPointerType()) fail(loc, "pointers to pointers are not supported ('" + name + "')");
      if (is_value_class(t->getPointeeType()))
        fail(loc, "pointers to value classes are not supported ('" + name + "'); use the value");
      v->pointer = true;
    } else if (t->isArrayType() || t->isRecordType()) {
      v->memory = true;
    } else if (t->isRealFloatingType()) {
      v->floating = !v->reference;
    } else if (!t->isIntegralOrEnumerationType() && !t->isBooleanType()) {
      fail(loc, "variables of type '" + type.getAsString() + "' are not supported ('" + name + "')");
    }
    if (decl) ir_.var_of[decl] = v;
    return v;
  }

  // Hoists calls to user functions (and functions with custom pullbacks) out of `e` into Call
  // nodes of `block`, innermost first.
  void hoist_calls(const Expr* e, Node* block, const Stmt* stmt) {
    if (!e) return;
    e = strip(e);
    for (const Stmt* c : e->children())
      if (auto* ce = dyn_cast_or_null<Expr>(c)) hoist_calls(ce, block, stmt);
    auto* call = dyn_cast<CallExpr>(e);
    if (!call || !call->getDirectCallee() || math_function(call) != MathFn::None) return;
    if (!hoisted_callee(call->getDirectCallee(), custom_)) return;
    Node* n = make(NodeKind::Call, stmt);
    n->loc = call->getBeginLoc();
    n->call = call;
    if (!call->getType()->isVoidType()) {
      n->result = make_var("_" + base_name(call->getDirectCallee()), call->getType(), VarKind::CallResult, nullptr,
                           call->getBeginLoc());
      n->result->assignments = 1;
      n->result->definition = n;
      n->result->block = block;
      ir_.call_result[call] = n->result;
    }
    ir_.hoisted.insert(call);
    add(block, n);
  }

  void add(Node* block, Node* n) {
    n->parent = block;
    block->children.push_back(n);
  }

  void lower_compound(const CompoundStmt* cs, Node* block) {
    for (const Stmt* s : cs->body()) lower_stmt(s, block);
  }

  Node* lower_scope(const Stmt* s) {
    Node* block = make(NodeKind::Block, s);
    if (auto* cs = dyn_cast<CompoundStmt>(s)) lower_compound(cs, block);
    else lower_stmt(s, block);
    return block;
  }

  // `lhs op rhs` as an Assign node (rhs nullptr for ++/--).
  void lower_assign(const Stmt* stmt, const Expr* lhs, BinaryOperatorKind op, const Expr* rhs, Node* block) {
    check_expression(ir_, custom_, diags_, rhs);
    hoist_calls(rhs, block, stmt);
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
        if (rhs && (op == BO_Assign) && (!v->base || !same_base(pointer_base(rhs), v->base)))
          return fail(target->getExprLoc(), "local pointer '" + v->name + "' must keep pointing into the same array");
      }
      n->target = v;
      v->assignments++;
    } else {
      check_expression(ir_, custom_, diags_, lhs);
      n->memory_root = memory_root(ir_, target);
      if (!n->memory_root) return fail(target->getExprLoc(), "assignment to an unsupported lvalue");
      if (n->memory_root->kind == VarKind::Param && !n->memory_root->reference && !n->memory_root->pointer)
        return fail(target->getExprLoc(),
                    "writing to by-value struct parameter '" + n->memory_root->name + "' is not supported");
    }
    QualType t = lhs->getType();
    if (is_value_class(t) && !(v && v->value))
      return fail(target->getExprLoc(),
                  "assigning a value class into memory (a member or an array) is not supported; use a local");
    if (is_floating(t) && op != BO_Assign && op != BO_AddAssign && op != BO_SubAssign && op != BO_MulAssign &&
        op != BO_DivAssign)
      return fail(stmt->getBeginLoc(), "unsupported compound assignment on a floating value");
    if (!is_adjoint_value(t) && !t->isIntegralOrEnumerationType() && !t->isBooleanType() && !t->isPointerType())
      return fail(stmt->getBeginLoc(), "assignment of type '" + t.getAsString() + "' is not supported");
    add(block, n);
  }

  // The pointer expression a pointer-valued `e` offsets (a pointer parameter, member, or array).
  const Expr* pointer_base(const Expr* e) {
    e = strip(e);
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      Var* v = ir_.var(ref);
      if (v && v->pointer && v->kind != VarKind::Param) return v->base;
      return v ? e : nullptr;
    }
    if (isa<MemberExpr>(e)) return e;
    if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub))
      return pointer_base(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
      if (auto* sub = dyn_cast<ArraySubscriptExpr>(strip(u->getSubExpr()))) return pointer_base(sub->getBase());
    return nullptr;
  }

  void lower_decl(const VarDecl* vd, const Stmt* stmt, Node* block) {
    SourceLocation at = vd->getLocation();
    if (vd->isStaticLocal() || vd->hasGlobalStorage()) return fail(at, "static local variables are not supported");
    if (vd->getType()->isReferenceType()) return fail(at, "local references are not supported; use a pointer");
    const Expr* init = vd->getInit();
    if (init && is_empty_value(init)) init = nullptr;  // `V x;`, `V x{}`: an empty handle, as every local starts
    if (init && (isa<InitListExpr>(strip(init)) || isa<CXXConstructExpr>(strip(init))))
      return fail(at, "initialiser lists and constructors are not supported; assign the members");
    Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, at);
    v->block = block;
    if (v->memory && init) return fail(at, "initialising arrays or structs where they are declared is not supported");
    if (v->pointer) {
      if (!init) return fail(at, "local pointer '" + v->name + "' must be initialised where it is declared");
      v->base = pointer_base(init);
      v->root = memory_root(ir_, init);
      if (!v->base || !v->root)
        return fail(at, "local pointer '" + v->name + "' must point into a parameter or local array");
    }
    if (!init) return;
    size_t before = block->children.size();
    lower_assign(stmt, new_ref(vd), BO_Assign, init, block);
    if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
      block->children.back()->definition = true;
      block->children.back()->loc = at;
      v->definition = block->children.back();
    }
  }

  // A DeclRefExpr naming `vd` (the left side of a declaration's initialisation).
  const Expr* new_ref(const VarDecl* vd) {
    return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd), false,
                               vd->getLocation(), vd->getType().getNonReferenceType(), VK_LValue);
  }

  void lower_expr_stmt(const Expr* e, Node* block) {
    const Stmt* stmt = e;
    e = strip(e);
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) {
      BinaryOperatorKind op = b->getOpcode();
      return lower_assign(stmt, b->getLHS(), op, b->getRHS(), block);
    }
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
      return lower_assign(stmt, u->getSubExpr(), u->isIncrementOp() ? BO_AddAssign : BO_SubAssign, nullptr, block);
    // `x = y` for a value class: its copy or move assignment.
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(e);
        op && op->getOperator() == OO_Equal && is_value_class(op->getType())) {
      auto* m = dyn_cast_or_null<CXXMethodDecl>(op->getDirectCallee());
      if (m && (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()))
        return lower_assign(stmt, op->getArg(0), BO_Assign, op->getArg(1), block);
    }
    if (auto* call = dyn_cast<CallExpr>(e)) {
      check_expression(ir_, custom_, diags_, call);
      for (AdArg a : ad_args(call)) hoist_calls(a.expr, block, stmt);
      const FunctionDecl* callee = call->getDirectCallee();
      if (!callee) return;
      if (math_function(call) == MathFn::None && callee_kind(callee, custom_) != CalleeKind::Plain) {
        Node* n = make(NodeKind::Call, stmt);
        n->call = call;
        ir_.hoisted.insert(call);
        return add(block, n);
      }
      std::vector<AdParam> params = ad_params(callee);
      std::vector<AdArg> args = ad_args(call);
      for (size_t i = 0; i < args.size() && i < params.size(); ++i)
        if (is_written_param(params[i].type) && memory_root(ir_, args[i].expr))
          return fail(call->getBeginLoc(),
                      "call to '" + callee->getNameAsString() +
                          "' which has no body and no custom pullback writes memory adjc cannot differentiate");
      Node* n = make(NodeKind::Call, stmt);  // a plain call: forward only
      n->call = call;
      return add(block, n);
    }
    fail(e->getExprLoc(), std::string("unsupported statement (") + e->getStmtClassName() + ")");
  }

  void lower_stmt(const Stmt* s, Node* block) {
    if (!s || isa<NullStmt>(s)) return;
    SourceLocation at = s->getBeginLoc();
    if (auto* cs = dyn_cast<CompoundStmt>(s)) {
      Node* inner = make(NodeKind::Block, s);
      lower_compound(cs, inner);
      return add(block, inner);
    }
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls()) {
        if (auto* vd = dyn_cast<VarDecl>(d)) lower_decl(vd, s, block);
        else if (!isa<TypedefNameDecl>(d) && !isa<StaticAssertDecl>(d))
          fail(d->getLocation(), "unsupported declaration");
      }
      return;
    }
    if (auto* e = dyn_cast<Expr>(s)) return lower_expr_stmt(e, block);
    if (auto* is = dyn_cast<IfStmt>(s)) {
      if (is->getInit() || is->getConditionVariable() || is->isConsteval())
        return fail(at, "if statements with initialisers or condition variables are not supported");
      check_expression(ir_, custom_, diags_, is->getCond());
      Node* n = make(NodeKind::If, s);
      n->cond = is->getCond();
      n->then_node = lower_scope(is->getThen());
      n->then_node->parent = n;
      if (is->getElse()) {
        n->else_node = lower_scope(is->getElse());
        n->else_node->parent = n;
      }
      return add(block, n);
    }
    if (auto* fs = dyn_cast<ForStmt>(s)) return lower_for(fs, block, false);
    if (auto* ws = dyn_cast<WhileStmt>(s)) {
      if (ws->getConditionVariable()) return fail(at, "while conditions declaring variables are not supported");
      return lower_loop(s, LoopForm::While, ws->getCond(), ws->getBody(), nullptr, block);
    }
    if (auto* ds = dyn_cast<DoStmt>(s))
      return lower_loop(s, LoopForm::Do, ds->getCond(), ds->getBody(), nullptr, block);
    if (isa<BreakStmt>(s) || isa<ContinueStmt>(s)) {
      if (loops_.empty()) return fail(at, "break/continue outside a loop");
      Node* n = make(NodeKind::Jump, s);
      n->jump = isa<BreakStmt>(s) ? JumpKind::Break : JumpKind::Continue;
      n->target_loop = loops_.back();
      if (n->target_loop->parallel) return fail(at, "break/continue in an OpenMP parallel loop");
      n->id = next_id_++;
      loops_.back()->jumps.push_back(n);
      return add(block, n);
    }
    if (auto* rs = dyn_cast<ReturnStmt>(s)) {
      if (!loops_.empty()) return fail(at, "return inside a loop is not supported; break out of the loop first");
      if (const Expr* value = rs->getRetValue()) {
        lower_return_value(s, value, block);
      }
      Node* n = make(NodeKind::Jump, s);
      n->jump = JumpKind::Return;
      n->id = next_id_++;
      ir_.returns.push_back(n);
      return add(block, n);
    }
    // `parallel for simd` too: the generated loops are plain loops the compiler may vectorise.
    if (isa<OMPParallelForDirective, OMPParallelForSimdDirective>(s)) {
      auto* omp = cast<OMPLoopDirective>(s);
      for (const OMPClause* c : omp->clauses()) {
        auto* sched = dyn_cast<OMPScheduleClause>(c);
        if (!sched || sched->getScheduleKind() != OMPC_SCHEDULE_static)
          return fail(c->getBeginLoc(), "only '#pragma omp parallel for' (optionally schedule(static)) is supported");
      }
      if (parallel_) return fail(at, "nested OpenMP parallel loops are not supported");
      auto* fs = dyn_cast<ForStmt>(omp->getInnermostCapturedStmt()->getCapturedStmt());
      if (!fs) return fail(at, "unsupported OpenMP loop");
      return lower_for(fs, block, true);
    }
    if (isa<OMPExecutableDirective>(s)) return fail(at, "only '#pragma omp parallel for' loops are supported");
    if (isa<SwitchStmt>(s)) return fail(at, "switch statements are not supported; use if/else");
    if (isa<GotoStmt>(s) || isa<LabelStmt>(s)) return fail(at, "goto is not supported");
    fail(at, std::string("unsupported statement (") + s->getStmtClassName() + ")");
  }

  // The return value's assignment (`_ret = value`).
  void lower_return_value(const Stmt* stmt, const Expr* value, Node* block) {
    check_expression(ir_, custom_, diags_, value);
    hoist_calls(value, block, stmt);
    Node* n = make(NodeKind::Assign, stmt);
    n->target = ir_.ret;
    n->rhs = value;
    ir_.ret->assignments++;
    add(block, n);
  }

  void lower_for(const ForStmt* fs, Node* block, bool parallel) {
    SourceLocation at = fs->getBeginLoc();
    if (fs->getConditionVariable()) return fail(at, "for conditions declaring variables are not supported");
    // Canonical: for (int i = start; cond; i++ / ++i / i-- / --i / i += k / i -= k), i not written in the body.
    const VarDecl* counter = nullptr;
    long step = 0;
    if (auto* ds = dyn_cast_or_null<DeclStmt>(fs->getInit()); ds && ds->isSingleDecl())
      if (auto* vd = dyn_cast<VarDecl>(ds->getSingleDecl());
          vd && vd->getType()->isIntegerType() && vd->getInit() && !vd->getType().isConstQualified())
        if (const Expr* inc = fs->getInc()) {
          auto refers = [&](const Expr* e) {
            auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
            return r && r->getDecl() == vd;
          };
          if (auto* u = dyn_cast<UnaryOperator>(inc); u && u->isIncrementDecrementOp() && refers(u->getSubExpr()))
            step = u->isIncrementOp() ? 1 : -1;
          if (auto* c = dyn_cast<CompoundAssignOperator>(inc);
              c && (c->getOpcode() == BO_AddAssign || c->getOpcode() == BO_SubAssign) && refers(c->getLHS()))
            if (auto* lit = dyn_cast<IntegerLiteral>(c->getRHS()->IgnoreParenImpCasts()); lit && lit->getValue() != 0)
              step = (c->getOpcode() == BO_AddAssign ? 1 : -1) * long(lit->getValue().getZExtValue());
          if (step != 0 && !writes_variable(fs->getBody(), vd) && !writes_variable(fs->getCond(), vd)) counter = vd;
        }
    if (parallel) {
      auto* cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
      auto* lhs = cond ? dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) : nullptr;
      if (!counter || step != 1 || !cond || cond->getOpcode() != BO_LT || !lhs || lhs->getDecl() != counter)
        return fail(at, "OpenMP parallel loops must have the form 'for (int i = start; i < end; i++)'");
    }
    if (!counter) {
      lower_stmt(fs->getInit(), block);
      return lower_loop(fs, LoopForm::For, fs->getCond(), fs->getBody(), fs->getInc(), block);
    }
    check_expression(ir_, custom_, diags_, counter->getInit());
    Node* n = make(NodeKind::Loop, fs);
    n->form = LoopForm::For;
    n->parallel = parallel;
    n->id = next_id_++;
    Node* saved_parallel = parallel_;
    if (parallel) {
      parallel_ = n;
      ir_.parallel_loops.push_back(n);
    }
    Var* v = make_var(counter->getName().str(), counter->getType(), VarKind::Local, counter, counter->getLocation());
    v->counter = true;
    n->counter = v;
    n->start = counter->getInit();
    n->step = step;
    n->cond = fs->getCond();
    if (auto* cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
        cond && (cond->getOpcode() == BO_LT || cond->getOpcode() == BO_LE) && step > 0)
      if (auto* lhs = dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()); lhs && lhs->getDecl() == counter)
        (cond->getOpcode() == BO_LT ? n->end : n->last) = cond->getRHS();
    check_expression(ir_, custom_, diags_, n->cond);
    loops_.push_back(n);
    n->body = lower_scope(fs->getBody());
    n->body->parent = n;
    loops_.pop_back();
    parallel_ = saved_parallel;
    add(block, n);
  }

  void lower_loop(const Stmt* s, LoopForm form, const Expr* cond, const Stmt* body, const Expr* inc, Node* block) {
    if (parallel_) return fail(s->getBeginLoc(), "loops inside an OpenMP parallel loop must be canonical for loops");
    Node* n = make(NodeKind::Loop, s);
    n->form = form;
    n->cond = cond;
    n->id = next_id_++;
    check_expression(ir_, custom_, diags_, cond);
    loops_.push_back(n);
    n->body = lower_scope(body);
    n->body->parent = n;
    if (inc) {
      n->inc = make(NodeKind::Block, inc);
      n->inc->parent = n;
      lower_expr_stmt(inc, n->inc);
    }
    loops_.pop_back();
    add(block, n);
  }
};

}  // namespace

std::unique_ptr<FunctionIR> lower(const FunctionDecl* fn, ASTContext& context, Diagnostics& diags,
                                  const CustomPullbacks& custom) {
  auto ir = std::make_unique<FunctionIR>();
  ir->fn = fn;
  Lowering(*ir, context, diags, custom).run();
  return ir;
}

}  // namespace adjc
