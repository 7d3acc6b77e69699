// Lowering of control flow: loops (canonical `for`, OpenMP parallel loops), returns (inside loops:
// a flag and breaks) and `switch` (an if/else chain) (lowering.hpp).
#include <algorithm>
#include <functional>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

bool writes_variable(const Stmt* stmt, const VarDecl* decl) {
  bool found = false;
  walk_statements(stmt, [&](const Stmt* s) {
    auto target = [&](const Expr* e) {
      auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      return ref && ref->getDecl() == decl;
    };
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && target(b->getLHS())) found = true;
    if (auto* u = dyn_cast<UnaryOperator>(s);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf) && target(u->getSubExpr()))
      found = true;
    if (auto* call = dyn_cast<CallExpr>(s); call && call->getDirectCallee()) {
      std::vector<AdParam> params = ad_params(call->getDirectCallee());
      std::vector<AdArg> args = ad_args(call);
      for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
        QualType t = params[i].type;
        if (t->isLValueReferenceType() && !t->getPointeeType().isConstQualified() && target(args[i].expr)) found = true;
      }
    }
    return !found;
  });
  return found;
}

void named_variables(const Stmt* s, std::set<const VarDecl*>& out) {
  if (!s) return;
  if (auto* ref = dyn_cast<DeclRefExpr>(s))
    if (auto* vd = dyn_cast<VarDecl>(ref->getDecl())) out.insert(vd);
  for (const Stmt* c : s->children()) named_variables(c, out);
}

// The return value's assignment (`_ret = value`).
void Lowering::lower_return_value(const Stmt* stmt, const Expr* value, Node* block) {
  if (ret_decl_) return lower_struct_assign(stmt, new_ref(ret_decl_), value, block);
  value = lower_operands(value, block, stmt);
  Node* n = make(NodeKind::Assign, stmt);
  n->target = ir_.ret;
  n->rhs = value;
  ir_.ret->assignments++;
  add(block, n);
}

namespace {

// Whether `e` names `vd` (through parentheses and conversions).
bool refers(const VarDecl* vd, const Expr* e) {
  auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return r && r->getDecl() == vd;
}

// The constant step by which `inc` moves `vd` (`i++`, `--i`, `i += k`, `i -= k`, `i = i + k`,
// `i = k + i`, `i = i - k`); 0 for any other increment.
long counter_step(const VarDecl* vd, const Expr* inc) {
  long step = 0;
  if (auto* u = dyn_cast<UnaryOperator>(inc); u && u->isIncrementDecrementOp() && refers(vd, u->getSubExpr()))
    step = u->isIncrementOp() ? 1 : -1;
  if (auto* c = dyn_cast<CompoundAssignOperator>(inc);
      c && (c->getOpcode() == BO_AddAssign || c->getOpcode() == BO_SubAssign) && refers(vd, c->getLHS()))
    if (auto* lit = dyn_cast<IntegerLiteral>(c->getRHS()->IgnoreParenImpCasts()); lit && lit->getValue() != 0)
      step = (c->getOpcode() == BO_AddAssign ? 1 : -1) * long(lit->getValue().getZExtValue());
  if (auto* a = dyn_cast<BinaryOperator>(inc); a && a->getOpcode() == BO_Assign && refers(vd, a->getLHS()))
    if (auto* sum = dyn_cast<BinaryOperator>(a->getRHS()->IgnoreParenImpCasts());
        sum && (sum->getOpcode() == BO_Add || sum->getOpcode() == BO_Sub)) {
      const Expr* other = refers(vd, sum->getLHS())                                 ? sum->getRHS()
                          : sum->getOpcode() == BO_Add && refers(vd, sum->getRHS()) ? sum->getLHS()
                                                                                    : nullptr;
      if (auto* lit = other ? dyn_cast<IntegerLiteral>(other->IgnoreParenImpCasts()) : nullptr;
          lit && lit->getValue() != 0)
        step = (sum->getOpcode() == BO_Add ? 1 : -1) * long(lit->getValue().getZExtValue());
    }
  return step;
}

// The counter of a canonical loop, `for (int i = start; cond; i += step)` with i written neither
// in the body nor the condition, and its step; nullptr for any other loop.
const VarDecl* canonical_counter(const ForStmt* fs, long& step) {
  auto* ds = dyn_cast_or_null<DeclStmt>(fs->getInit());
  auto* vd = ds && ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!vd || !vd->getType()->isIntegerType() || !vd->getInit() || vd->getType().isConstQualified() || !fs->getInc())
    return nullptr;
  step = counter_step(vd, fs->getInc());
  if (step != 0 && !writes_variable(fs->getBody(), vd) && !writes_variable(fs->getCond(), vd) &&
      !has_side_effects(fs->getCond()) && !fs->getConditionVariable())
    return vd;
  return nullptr;
}

// The loop's condition as `counter op bound`, the counter on the left (`n > i` is `i < n`), the
// bound free of it; nullptr (`op` unchanged) when it is not of that form.
const Expr* counter_bound(const ForStmt* fs, const VarDecl* counter, BinaryOperatorKind& op) {
  auto* cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!counter || !cond || !cond->isComparisonOp()) return nullptr;
  bool left = refers(counter, cond->getLHS());
  if (!left && !refers(counter, cond->getRHS())) return nullptr;
  op = left ? cond->getOpcode() : BinaryOperator::reverseComparisonOp(cond->getOpcode());
  const Expr* bound = left ? cond->getRHS() : cond->getLHS();
  std::set<const VarDecl*> named;
  named_variables(bound, named);
  return named.count(counter) ? nullptr : bound;
}

}  // namespace

void Lowering::lower_for(const ForStmt* fs, Node* block, const ParallelClauses* parallel) {
  SourceLocation at = fs->getBeginLoc();
  long step = 0;
  const VarDecl* counter = canonical_counter(fs, step);
  BinaryOperatorKind op = BO_Comma;
  const Expr* bound = counter_bound(fs, counter, op);
  if (parallel) {
    // The trip count must be known before the loop, so that the threads can split it.
    bool counted = bound && ((step > 0 && (op == BO_LT || op == BO_LE)) || (step < 0 && (op == BO_GT || op == BO_GE)) ||
                             (op == BO_NE && (step == 1 || step == -1)));
    if (!counted) return fail(at, Diag::unsupported_parallel_loop_form);
  }
  if (!counter) {
    lower_stmt(fs->getInit(), block);
    return lower_loop(fs, LoopForm::For, fs->getCond(), fs->getBody(), fs->getInc(), block,
                      fs->getConditionVariableDeclStmt());
  }
  Expr* start = const_cast<Expr*>(counter->getInit());
  if (has_side_effects(start)) start = lower_branches(start, block, fs);  // `for (int i = k++; ...)`
  check_expression(ir_, diags_, start);
  reject_closure_calls(start);
  Node* n = make(NodeKind::Loop, fs);
  n->form = LoopForm::For;
  n->parallel = parallel;
  n->id = next_id_++;
  Node* saved_parallel = parallel_;
  if (parallel) {
    parallel_ = n;
    ir_.parallel_loops.push_back(n);
    open_parallel(n, *parallel);
    n->bound = bound;
    n->inclusive = op == BO_LE || op == BO_GE;
  }
  Var* v = make_var(counter->getName().str(), counter->getType(), VarKind::Local, counter, counter->getLocation());
  v->counter = true;
  n->counter = v;
  n->start = start;
  n->step = step;
  n->cond = fs->getCond();
  if (step > 0 && (op == BO_LT || op == BO_LE)) (op == BO_LT ? n->end : n->last) = bound;
  check_expression(ir_, diags_, n->cond);
  reject_closure_calls(n->cond);
  loops_.push_back(n);
  n->body = lower_scope(fs->getBody());
  n->body->parent = n;
  loops_.pop_back();
  if (parallel) close_parallel(n);
  parallel_ = saved_parallel;
  add(block, n);
  leave_after_return(n, block);
}

void Lowering::lower_loop(const Stmt* s, LoopForm form, const Expr* cond, const Stmt* body, const Expr* inc, Node* block,
                          const DeclStmt* cond_decl) {
  if (parallel_) return fail(s->getBeginLoc(), Diag::parallel_loop_inner_loop_not_for);
  Node* n = make(NodeKind::Loop, s);
  n->form = form;
  n->id = next_id_++;
  reject_closure_calls(cond);
  // A condition with side effects (`while (--n > 0)`) becomes statements that run each time it is
  // evaluated: first in the body, which leaves the loop when the condition is false (`while (true)
  // { n -= 1; if (!(n > 0)) break; ... }`); for `do ... while`, after the body, where `continue`
  // goes too (`do { ...; n -= 1; } while (n > 0)`). A condition declaring a variable (`while (T v =
  // e)`) is one: the declaration runs each time.
  const bool effects = cond_decl || has_side_effects(cond);
  if (!effects) {
    n->cond = cond;
    check_expression(ir_, diags_, cond);
  }
  loops_.push_back(n);
  if (effects && form != LoopForm::Do) {
    n->body = make(NodeKind::Block, body);
    lower_stmt(cond_decl, n->body);
    Expr* test = lower_branches(const_cast<Expr*>(cond), n->body, s);
    check_expression(ir_, diags_, test);
    SourceLocation at = cond->getExprLoc();
    Node* exit = make(NodeKind::If, s);
    exit->loc = at;
    exit->cond = UnaryOperator::Create(context_, new (context_) ParenExpr(at, at, test), UO_LNot, context_.BoolTy,
                                       VK_PRValue, OK_Ordinary, at, false, FPOptionsOverride());
    exit->then_node = make(NodeKind::Block, s);
    exit->then_node->parent = exit;
    add(exit->then_node, jump(s, JumpKind::Break, n));
    add(n->body, exit);
    if (auto* cs = dyn_cast<CompoundStmt>(body)) lower_compound(cs, n->body);
    else lower_stmt(body, n->body);
  } else {
    n->body = lower_scope(body);
  }
  n->body->parent = n;
  if (inc) {
    n->inc = make(NodeKind::Block, inc);
    n->inc->parent = n;
    lower_expr_stmt(inc, n->inc);
  }
  if (effects && form == LoopForm::Do) {
    n->inc = make(NodeKind::Block, cond);
    n->inc->parent = n;
    n->cond = lower_branches(const_cast<Expr*>(cond), n->inc, s);
    check_expression(ir_, diags_, n->cond);
  }
  loops_.pop_back();
  add(block, n);
  leave_after_return(n, block);
}

// `return` inside loops: sets `_returned` and breaks out of the innermost loop; after each
// loop it leaves, `if (_returned)` breaks out of the next one, and after the outermost returns.
// Only constructs the sweeps already handle (an integer local, breaks, branches).
void Lowering::lower_return_in_loop(const Stmt* s, Node* block) {
  Node* loop = loops_.back();
  lower_assign(s, new_ref(returned_flag()), BO_Assign, int_literal(1), block);
  add(block, jump(s, JumpKind::Break, loop));
  returns_from_.insert(loop);
}

// After loop `n` (added to `block`): leaves the enclosing loop, or the function, when a return
// inside `n` ran.
void Lowering::leave_after_return(Node* n, Node* block) {
  if (!returns_from_.count(n)) return;
  Node* branch = make(NodeKind::If, n->stmt);
  branch->cond = new_ref(returned_flag());
  branch->then_node = make(NodeKind::Block, n->stmt);
  branch->then_node->parent = branch;
  if (loops_.empty()) {
    Node* r = jump(n->stmt, JumpKind::Return, nullptr);
    ir_.returns.push_back(r);
    add(branch->then_node, r);
  } else {
    add(branch->then_node, jump(n->stmt, JumpKind::Break, loops_.back()));
    returns_from_.insert(loops_.back());
  }
  add(block, branch);
}

Node* Lowering::jump(const Stmt* s, JumpKind kind, Node* loop) {
  Node* n = make(NodeKind::Jump, s);
  n->jump = kind;
  n->target_loop = loop;
  n->id = next_id_++;
  if (loop) loop->jumps.push_back(n);
  return n;
}

// The integer local `_returned`, declared (zero) at function scope.
const VarDecl* Lowering::returned_flag() {
  if (returned_) return returned_;
  auto* fn = const_cast<FunctionDecl*>(ir_.fn);
  returned_ = VarDecl::Create(context_, fn, fn->getLocation(), fn->getLocation(), &context_.Idents.get("_returned"),
                              context_.IntTy, context_.getTrivialTypeSourceInfo(context_.IntTy), SC_None);
  Var* v = make_var("_returned", context_.IntTy, VarKind::Local, returned_, fn->getLocation());
  v->block = ir_.body;
  return returned_;
}

// `switch` as an if/else chain on `cond == value`: each case (labels sharing statements are one
// case) must end in break, return or continue, or be the last; `default` is the final else.
void Lowering::lower_switch(const SwitchStmt* sw, Node* block) {
  SourceLocation at = sw->getBeginLoc();
  // `switch (T k = e; k)`, `switch (T k = e)`: the declarations run first (every local is hoisted).
  lower_stmt(sw->getInit(), block);
  lower_stmt(sw->getConditionVariableDeclStmt(), block);
  bool has_call = false;
  walk_statements(sw->getCond(), [&](const Stmt* e) {
    has_call |= isa<CallExpr>(e) && !isa<CXXOperatorCallExpr>(e);
    return true;
  });
  if (has_call) return fail(sw->getCond()->getBeginLoc(), Diag::unsupported_switch_condition_calls_function);
  Expr* value = const_cast<Expr*>(sw->getCond());
  if (has_side_effects(value)) value = lower_branches(value, block, sw);  // `switch (k = n % 3)`
  check_expression(ir_, diags_, value);
  std::vector<CaseGroup> cases;
  std::vector<bool> falls;
  if (!switch_cases(sw, cases) || !case_fallthroughs(cases, falls)) return;
  const Expr* cond = new (context_) ParenExpr(at, at, value);
  if (std::find(falls.begin(), falls.end(), true) == falls.end()) {
    if (Node* chain = case_chain(sw, cond, cases, [&](size_t i) { return lower_statements(cases[i].body, sw); }))
      add(block, chain);
    return;
  }
  lower_fallthrough_cases(sw, cond, cases, falls, block);
}

// The switch's statements grouped by the labels that enter them; false (reported) for what adjc
// does not lower: case ranges, declarations or labels nested before the first label.
bool Lowering::switch_cases(const SwitchStmt* sw, std::vector<CaseGroup>& cases) {
  // `switch (k) { case 0: ... }`, or a single labelled statement: `switch (k) case 1: r *= x;`.
  std::vector<const Stmt*> statements;
  if (auto* body = dyn_cast<CompoundStmt>(sw->getBody())) statements.assign(body->body_begin(), body->body_end());
  else statements.push_back(sw->getBody());
  // A block holding case labels (`case 0: r = x; { case 1: r += x; }`) is its statements, in line:
  // every local is hoisted, so the block's scope does not matter.
  auto holds_labels = [](const Stmt* s) {
    auto* b = dyn_cast<CompoundStmt>(s);
    return b && std::any_of(b->body_begin(), b->body_end(), [](const Stmt* c) { return isa<SwitchCase>(c); });
  };
  std::vector<const Stmt*> pending(statements.rbegin(), statements.rend());  // the next statement last
  while (!pending.empty()) {
    const Stmt* c = pending.back();
    pending.pop_back();
    const Stmt* sub = c;
    bool labelled = false;
    while (isa<clang::SwitchCase>(sub)) {
      if (!labelled && (cases.empty() || !cases.back().body.empty())) cases.push_back({});
      labelled = true;
      cases.back().loc = sub->getBeginLoc();
      if (auto* cs = dyn_cast<CaseStmt>(sub)) {
        if (cs->caseStmtIsGNURange()) return fail(cs->getBeginLoc(), Diag::unsupported_case_ranges), false;
        cases.back().values.push_back(cs->getLHS());
        sub = cs->getSubStmt();
      } else {
        cases.back().is_default = true;
        sub = cast<DefaultStmt>(sub)->getSubStmt();
      }
    }
    if (holds_labels(sub)) {
      auto* b = cast<CompoundStmt>(sub);
      pending.insert(pending.end(), b->body_rbegin(), b->body_rend());
      continue;
    }
    if (!cases.empty()) {
      cases.back().body.push_back(sub);
      continue;
    }
    // Before the first label: never runs, unless a label inside it is jumped to.
    bool reachable = false;
    walk_statements(sub, [&](const Stmt* st) {
      reachable |= isa<SwitchCase>(st) || isa<LabelStmt>(st);
      return !reachable;
    });
    if (isa<DeclStmt>(sub) || reachable)
      return fail(c->getBeginLoc(), Diag::unsupported_declarations_case_labels_nested_statements), false;
  }
  return true;
}

// Whether each case falls through (no `break`, `return` or `continue` at its end) into the next;
// the cases' bodies lose their final `break`. False (reported) for a `break` out of the switch
// from inside another statement.
bool Lowering::case_fallthroughs(std::vector<CaseGroup>& cases, std::vector<bool>& falls) {
  falls.assign(cases.size(), false);
  for (size_t i = 0; i < cases.size(); ++i) {
    CaseGroup& k = cases[i];
    // `case 1: { ...; break; }`: the block's statements are the case's.
    while (!k.body.empty() && isa<CompoundStmt>(k.body.back()) && !cast<CompoundStmt>(k.body.back())->body_empty()) {
      auto* inner = cast<CompoundStmt>(k.body.back());
      k.body.pop_back();
      k.body.insert(k.body.end(), inner->body_begin(), inner->body_end());
    }
    while (!k.body.empty() && (isa<NullStmt>(k.body.back()) || isa<AttributedStmt>(k.body.back())) &&
           !isa<BreakStmt>(k.body.back()->stripLabelLikeStatements()))  // `[[fallthrough]];`
      k.body.pop_back();
    const Stmt* last = k.body.empty() ? nullptr : k.body.back();
    bool ends = last && (isa<BreakStmt>(last) || isa<ReturnStmt>(last) || isa<ContinueStmt>(last));
    falls[i] = !ends && i + 1 < cases.size();
    if (last && isa<BreakStmt>(last)) k.body.pop_back();
    for (const Stmt* st : k.body)
      if (const Stmt* b = switch_break(st))
        return fail(b->getBeginLoc(), Diag::unsupported_break_out_switch_inside_statement), false;
  }
  return true;
}

// An if/else chain of the case tests (`(value) == a || (value) == b`); `body(i)` is what case i
// runs, the default's the last else.
Node* Lowering::case_chain(const SwitchStmt* sw, const Expr* cond, const std::vector<CaseGroup>& cases,
                           const std::function<Node*(size_t)>& body) {
  auto matches = [&](const CaseGroup& k) {
    Expr* test = nullptr;
    for (const Expr* v : k.values) {
      Expr* eq = BinaryOperator::Create(context_, const_cast<Expr*>(cond), const_cast<Expr*>(v), BO_EQ,
                                        context_.BoolTy, VK_PRValue, OK_Ordinary, k.loc, FPOptionsOverride());
      test = test ? BinaryOperator::Create(context_, test, eq, BO_LOr, context_.BoolTy, VK_PRValue, OK_Ordinary, k.loc,
                                           FPOptionsOverride())
                  : eq;
    }
    return test;
  };
  Node* chain = nullptr;
  for (size_t i = cases.size(); i-- > 0;) {
    if (cases[i].is_default) continue;
    Node* n = make(NodeKind::If, sw);
    n->loc = cases[i].loc;
    n->cond = matches(cases[i]);
    n->then_node = body(i);
    n->then_node->parent = n;
    if (chain) {
      n->else_node = make(NodeKind::Block, sw);
      add(n->else_node, chain);
      n->else_node->parent = n;
    }
    chain = n;
  }
  for (size_t i = 0; i < cases.size(); ++i)
    if (cases[i].is_default) {
      Node* d = body(i);
      if (!chain) return d;
      Node* last = chain;
      while (last->else_node) last = last->else_node->children.front();
      last->else_node = d;
      d->parent = last;
    }
  return chain;
}

// With fallthrough: the chain only picks the case entered (`_case`, -1 for none); then case i runs
// when the switch entered it or a case before it that falls through into it.
void Lowering::lower_fallthrough_cases(const SwitchStmt* sw, const Expr* cond, const std::vector<CaseGroup>& cases,
                                       const std::vector<bool>& falls, Node* block) {
  const VarDecl* entered = new_local("_case", context_.IntTy, sw->getBeginLoc(), block);
  lower_assign(sw, new_ref(entered), BO_Assign, int_literal(-1), block);
  Node* pick = case_chain(sw, cond, cases, [&](size_t i) {
    Node* b = make(NodeKind::Block, sw);
    lower_assign(sw, new_ref(entered), BO_Assign, int_literal(int(i)), b);
    return b;
  });
  if (pick) add(block, pick);
  size_t first = 0;  // the first case of the run of fallthroughs that reaches case i
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i > 0 && !falls[i - 1]) first = i;
    auto compare = [&](BinaryOperatorKind op, size_t bound) {
      return BinaryOperator::Create(context_, const_cast<Expr*>(rvalue(entered)),
                                    const_cast<Expr*>(int_literal(int(bound))), op, context_.BoolTy, VK_PRValue,
                                    OK_Ordinary, cases[i].loc, FPOptionsOverride());
    };
    Node* n = make(NodeKind::If, sw);
    n->loc = cases[i].loc;
    n->cond = BinaryOperator::Create(context_, compare(BO_GE, first), compare(BO_LE, i), BO_LAnd, context_.BoolTy,
                                     VK_PRValue, OK_Ordinary, cases[i].loc, FPOptionsOverride());
    n->then_node = lower_statements(cases[i].body, sw);
    n->then_node->parent = n;
    add(block, n);
  }
}

// A `break` in `s` that leaves the enclosing switch (not inside a loop or switch of its own).
const Stmt* Lowering::switch_break(const Stmt* s) {
  if (!s) return nullptr;
  if (isa<BreakStmt>(s)) return s;
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s)) return nullptr;
  for (const Stmt* c : s->children())
    if (const Stmt* b = switch_break(c)) return b;
  return nullptr;
}

}  // namespace adjc
