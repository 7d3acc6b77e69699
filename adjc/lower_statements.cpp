// Lowering of statements: blocks, declarations, expression statements and calls, ifs, and the
// dispatch of every statement kind (lowering.hpp).
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <algorithm>

#include "lowering.hpp"
#include "nesting.hpp"

namespace adjc {

using namespace clang;

// Whether `vd`, an uninitialised local pointer, is only ever assigned, as statements of their own,
// values without side effects, and never read (`double* p; p = arr[1];`): nothing it holds matters,
// so it and its assignments are left out.
bool unread_local_pointer(const VarDecl* vd, const Stmt* body) {
  if (!vd->getType()->isPointerType() || vd->getInit() || !vd->isLocalVarDecl()) return false;
  bool unread = true;
  walk_statements(body, nullptr, [&](const Stmt* s, const Stmt* parent) {
    auto* assign = dyn_cast<BinaryOperator>(s);
    if (assign && assign->getOpcode() == BO_Assign && isa_and_nonnull<CompoundStmt>(parent)) {
      auto* target = dyn_cast<DeclRefExpr>(assign->getLHS()->IgnoreParens());
      if (target && target->getDecl() == vd) {
        unread = unread && !has_side_effects(assign->getRHS());
        return false;
      }
    }
    if (auto* ref = dyn_cast<DeclRefExpr>(s); ref && ref->getDecl() == vd) unread = false;
    return unread;
  });
  return unread;
}

namespace {

// Whether an assignment statement (`p = ...;`) sets an unread_local_pointer.
bool assigns_unread_pointer(const Expr* e, const Stmt* body) {
  auto* assign = dyn_cast<BinaryOperator>(e);
  auto* target = assign && assign->getOpcode() == BO_Assign ? dyn_cast<DeclRefExpr>(assign->getLHS()->IgnoreParens())
                                                            : nullptr;
  auto* vd = target ? dyn_cast<VarDecl>(target->getDecl()) : nullptr;
  return vd && unread_local_pointer(vd, body);
}

}  // namespace

void Lowering::lower_compound(const CompoundStmt* cs, Node* block) {
  for (const Stmt* s : cs->body()) lower_stmt(s, block);
}

Node* Lowering::lower_scope(const Stmt* s) {
  Node* block = make(NodeKind::Block, s);
  if (auto* cs = dyn_cast<CompoundStmt>(s)) lower_compound(cs, block);
  else lower_stmt(s, block);
  return block;
}

void Lowering::lower_decl(const VarDecl* vd, const Stmt* stmt, Node* block) {
  SourceLocation at = vd->getLocation();
  if (unread_local_pointer(vd, ir_.fn->getBody())) return;
  // A `static const` number with a constant initialiser means what a `const` local does; so does a
  // `static` one the function never writes.
  const bool constant = vd->getType()->isArithmeticType() && vd->getInit() &&
                        vd->getInit()->isConstantInitializer(vd->getASTContext(), false) &&
                        (vd->getType().isConstQualified() || (vd->isStaticLocal() && !may_modify(ir_.fn->getBody(), vd)));
  if ((vd->isStaticLocal() || vd->hasGlobalStorage()) && !constant)
    return fail(at, Diag::unsupported_static_local_variable, {vd->getName().str()});
  if (!modelled_class("local variable '" + vd->getName().str() + "'", vd->getType(), at)) return;
  if (aliases_.count(vd)) return;  // its uses name the referent
  // `const T& c = x * y;`: the temporary it names is a local of its own.
  const Expr* bound = vd->getInit();
  if (auto* full = dyn_cast_or_null<ExprWithCleanups>(bound)) bound = full->getSubExpr();
  const bool temporary = vd->getType()->isReferenceType() && bound && isa<MaterializeTemporaryExpr>(bound->IgnoreParens());
  if (vd->getType()->isReferenceType() && !temporary)
    return fail(at, Diag::unsupported_local_reference_declared, {vd->getName().str()});
  // A lambda: its calls are calls of its generated forward; with captures, its copies are locals.
  if (auto* closure = vd->getType()->getAsCXXRecordDecl(); closure && closure->isLambda()) {
    if (closure->capture_size() != 0) return lower_closure(vd, stmt, block);
    return;
  }
  if (derivative_object_function(vd->getType())) return;  // its execute calls name the function
  if (function_pointer_chain(vd->getType())) {
    if (followed_function_pointer(vd)) return;  // its uses name the function
    return fail(at, Diag::function_pointer_variable_not_constant, {vd->getName().str()});
  }
  if (vd->getType()->isVariableArrayType())
    return fail(at, Diag::unsupported_variable_length_array, {vd->getName().str(), vd->getName().str()});
  const Expr* init = vd->getInit();
  // A local array of structs of numbers is one region, like an array of numbers; its default
  // construction leaves the members zero, as every local starts.
  if (QualType element = context_.getBaseElementType(vd->getType());
      vd->getType()->isArrayType() && element->isRecordType() && !is_value_class(element, ir_.unit)) {
    auto* construct = init ? dyn_cast<CXXConstructExpr>(strip(init, ir_.unit)) : nullptr;
    if (!struct_elements("local array of structs '" + vd->getName().str() + "'", element, at)) return;
    if (construct)  // default-constructed: the members' initialisers (`double x = 1;`), or zero
      return lower_array_init(vd, empty_list(vd->getType(), at), stmt, block);
  }
  if (split_.count(vd)) return lower_split_struct(vd, stmt, block);
  if (heap_.count(vd)) return lower_heap_decl(vd, stmt, block);
  if (init && is_empty_value(init, ir_.unit))
    init = nullptr;  // `V x;`, `V x{}`: an empty handle, as every local starts
  if (auto* list = init ? dyn_cast<InitListExpr>(strip(init, ir_.unit)) : nullptr;
      list && vd->getType()->isConstantArrayType())
    return lower_array_init(vd, list, stmt, block);
  if (objects_.count(vd)) return lower_object(vd, stmt, block);
  if (is_container(vd->getType())) return lower_container_local(vd, stmt, block);
  const std::string name = vd->getName().str();
  // Library classes (std::vector, ...) are rejected by make_var, naming the type.
  if (!is_library_class(vd->getType().getCanonicalType(), ir_.unit)) {
    if (vd->getType()->isRecordType() && !is_value_class(vd->getType(), ir_.unit))
      return fail(at, Diag::unsupported_local_struct_type, {name, vd->getType().getAsString()});
    if (init && (isa<InitListExpr>(strip(init, ir_.unit)) || isa<CXXConstructExpr>(strip(init, ir_.unit))))
      return fail(at, Diag::unsupported_initialiser_lists_constructors, {name});
  }
  // A library value without derivative starts as each hoisted local does: default-constructed.
  if (is_inert_library_class(vd->getType(), ir_.unit)) {
    auto* construct = init ? dyn_cast<CXXConstructExpr>(strip(init, ir_.unit)) : nullptr;
    if (init && !(construct && construct->getConstructor()->isDefaultConstructor()))
      return fail(at, Diag::unsupported_initialising_local_library_class,
                  {name, vd->getType().getNonReferenceType().getUnqualifiedType().getAsString(), name});
    init = nullptr;
  }
  Var* v = make_var(name, vd->getType().getNonReferenceType(), VarKind::Local, vd, at);
  v->block = block;
  if (v->memory && init && !vd->getType()->isArithmeticType())
    return fail(at, Diag::unsupported_initialising_arrays_structs_where_declared);
  std::set<const VarDecl*> named;
  if (v->pointer && !init) named_variables(ir_.fn->getBody(), named);
  if (named.count(vd))  // a pointer declared and never used needs no initialiser
    return fail(at, Diag::local_pointer_initialised_where_declared, {v->source_name()});
  if (init) define(vd, init, stmt, block);
}

// Whether structs of type `element` may be the elements of an array, one region (`what`, a local or
// heap array, is reported otherwise): members numbers, structs of numbers or arrays of them, and
// pointers only carried along; the implicit default constructor.
bool Lowering::struct_elements(const std::string& what, QualType element, SourceLocation at) {
  auto* record = element->getAsCXXRecordDecl();
  if (!is_plain_struct(element, ir_.unit) || !record->hasDefaultConstructor() ||
      record->hasUserProvidedDefaultConstructor()) {
    fail(at, Diag::unsupported_struct_array_element_type, {what, element.getUnqualifiedType().getAsString()});
    return false;
  }
  check_carried_pointers(element, what, at);
  return ir_.valid;
}

void Lowering::lower_expr_stmt(const Expr* e, Node* block) {
  const Stmt* stmt = e;
  e = strip(e, ir_.unit);
  if (assigns_unread_pointer(e, ir_.fn->getBody())) return;
  if (auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
    lower_expr_stmt(b->getLHS(), block);
    return lower_expr_stmt(b->getRHS(), block);
  }
  // `(void)x;`, `void(0)`: a use that computes nothing; `(void)f(x)`: the call.
  if (auto* c = dyn_cast<ExplicitCastExpr>(e); c && c->getType()->isVoidType()) {
    const Expr* operand = strip(c->getSubExpr(), ir_.unit);
    if (isa<DeclRefExpr>(operand) || isa<IntegerLiteral>(operand)) return;
    if (isa<CallExpr>(operand) || has_side_effects(operand)) return lower_expr_stmt(operand, block);
  }
  // `c ? f() : g();` of type void (what assert() expands to): an `if`.
  if (auto* c = dyn_cast<ConditionalOperator>(e); c && c->getType()->isVoidType())
    return lower_if(stmt, c->getCond(), c->getTrueExpr(), c->getFalseExpr(), block);
  if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) {
    BinaryOperatorKind op = b->getOpcode();
    auto* ref = dyn_cast<DeclRefExpr>(strip(b->getLHS(), ir_.unit));
    auto* pointer = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    // Into a heap array's pointer; or a realloc find_heap_arrays left, which lower_allocation reports.
    if (const Expr* alloc = allocation(b->getRHS()); alloc && op == BO_Assign && pointer &&
                                                      (heap_.count(pointer) || !isa<CXXNewExpr>(alloc)))
      return lower_allocation(pointer, alloc, stmt, block);
    return lower_assign(stmt, b->getLHS(), op, b->getRHS(), block);
  }
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
    return lower_assign(stmt, u->getSubExpr(), u->isIncrementOp() ? BO_AddAssign : BO_SubAssign, nullptr, block);
  // `x = y` for a value class: its copy or move assignment.
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(e);
      op && op->getOperator() == OO_Equal && is_value_class(op->getType(), ir_.unit)) {
    auto* m = dyn_cast_or_null<CXXMethodDecl>(op->getDirectCallee());
    if (m && (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()))
      return lower_assign(stmt, op->getArg(0), BO_Assign, op->getArg(1), block);
  }
  // `a = b` for a struct: member by member.
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(e); op && op->getOperator() == OO_Equal && op->getNumArgs() == 2 &&
                                                  is_plain_struct(op->getArg(0)->getType(), ir_.unit))
    if (auto* m = dyn_cast_or_null<CXXMethodDecl>(op->getDirectCallee());
        m && (m->isTrivial() || (is_number_pair(op->getArg(0)->getType()) &&
                                 (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()))))
      return lower_struct_assign(stmt, op->getArg(0), op->getArg(1), block);
  if (auto* del = dyn_cast<CXXDeleteExpr>(e)) return lower_delete(del->getArgument(), del->getBeginLoc(), "'delete'");
  if (auto* call = dyn_cast<CallExpr>(e); call && c_memory_function(call) == "free")
    return lower_delete(call->getArg(0)->IgnoreParenImpCasts(), call->getBeginLoc(), "'free'");
  if (const CXXMemberCallExpr* push = push_back_call(e)) return lower_push_back(push, stmt, block);
  if (const CXXMemberCallExpr* refill = refill_call(e)) return lower_refill(refill, stmt, block);
  if (const CXXMemberCallExpr* fill = fill_call(e)) return lower_fill(fill, stmt, block);
  if (const CallExpr* algorithm = pointer_algorithm_call(e)) return lower_pointer_algorithm(algorithm, stmt, block);
  if (auto* call = dyn_cast<CallExpr>(e)) {
    lower_branches(const_cast<CallExpr*>(call), block, stmt);
    materialize_temporaries(const_cast<CallExpr*>(call), block, stmt);
    check_statement_call(ir_, diags_, call);
    for (AdArg a : ad_args(call)) hoist_calls(a.expr, block, stmt);
    const FunctionDecl* callee = call->getDirectCallee();
    if (!callee) return;
    if (math_function(call) == MathFn::None && callee_kind(callee, ir_.unit) != CalleeKind::Plain) {
      Node* n = make(NodeKind::Call, stmt);
      n->call = call;
      ir_.hoisted.insert(call);
      return add(block, n);
    }
    std::vector<AdParam> params = ad_params(callee);
    std::vector<AdArg> args = ad_args(call);
    for (size_t i = 0; i < args.size() && i < params.size(); ++i)
      if (is_written_param(params[i].type) && (memory_root(ir_, args[i].expr) || ir_.var(args[i].expr)))
        return fail(call->getBeginLoc(), Diag::no_derivative_writes_argument,
                    {no_derivative(callee, ir_.unit), std::to_string(i + 1)});
    Node* n = make(NodeKind::Call, stmt);  // a plain call: forward only
    n->call = call;
    return add(block, n);
  }
  // Any other expression evaluated for its side effects (`c ? a++ : b--;`): the side effects, as
  // statements; the value is not used.
  // A value computed and dropped (`x;`, the `a` of `(a, b)`) does nothing.
  if (has_side_effects(e)) lower_branches(const_cast<Expr*>(e), block, stmt);
}

// `if (cond) then else otherwise` (otherwise may be null) as an If node of `block`.
void Lowering::lower_if(const Stmt* s, const Expr* cond, const Stmt* then, const Stmt* otherwise, Node* block) {
  reject_closure_calls(cond);
  if (has_side_effects(cond)) cond = lower_branches(const_cast<Expr*>(cond), block, s);
  check_expression(ir_, diags_, cond);
  Node* n = make(NodeKind::If, s);
  n->cond = cond;
  n->then_node = lower_scope(then);
  n->then_node->parent = n;
  if (otherwise) {
    n->else_node = lower_scope(otherwise);
    n->else_node->parent = n;
  }
  add(block, n);
}

bool Lowering::mentions_rejected(const Stmt* s) const {
  if (!s || rejected_.empty()) return false;
  if (auto* ref = dyn_cast<DeclRefExpr>(s); ref && rejected_.count(dyn_cast<VarDecl>(ref->getDecl()))) return true;
  return std::any_of(s->child_begin(), s->child_end(), [&](const Stmt* c) { return mentions_rejected(c); });
}

void Lowering::lower_stmt(const Stmt* s, Node* block) {
  if (!s || isa<NullStmt>(s)) return;
  SourceLocation at = s->getBeginLoc();
  if (auto* cs = dyn_cast<CompoundStmt>(s)) {
    Node* inner = make(NodeKind::Block, s);
    lower_compound(cs, inner);
    return add(block, inner);
  }
  // A statement using a local whose declaration was reported would only repeat that error.
  if (!isa<IfStmt, ForStmt, WhileStmt, DoStmt, SwitchStmt, CXXForRangeStmt>(s) && mentions_rejected(s)) {
    if (auto* ds = dyn_cast<DeclStmt>(s))  // and so would the uses of what it declares
      for (const Decl* d : ds->decls())
        if (auto* vd = dyn_cast<VarDecl>(d)) rejected_.insert(vd);
    return;
  }
  if (auto* ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl* d : ds->decls()) {
      if (auto* vd = dyn_cast<VarDecl>(d)) {
        const int errors = diags_.errors();
        lower_decl(vd, s, block);
        if (diags_.errors() > errors) rejected_.insert(vd);
      }
      // Generated code names everything fully qualified, so local using-declarations and
      // using-directives (`using namespace std;`) need no counterpart there.
      else if (isa<CXXRecordDecl>(d))  // generated functions are outside the body: they could not name it
        fail(d->getLocation(), Diag::unsupported_class_defined_inside_function,
             {cast<CXXRecordDecl>(d)->getNameAsString()});
      else if (!isa<TypedefNameDecl, StaticAssertDecl, UsingDirectiveDecl, UsingDecl>(d))
        fail(d->getLocation(), Diag::unsupported_declaration, {d->getDeclKindName()});
    }
    return;
  }
  if (auto* e = dyn_cast<Expr>(s)) return lower_expr_stmt(e, block);
  if (auto* is = dyn_cast<IfStmt>(s)) {
    if (is->isConsteval()) return fail(at, Diag::unsupported_if_consteval);
    // `if (T t = e; cond)`, `if (T t = e)`: the declarations run first (every local is hoisted).
    lower_stmt(is->getInit(), block);
    lower_stmt(is->getConditionVariableDeclStmt(), block);
    return lower_if(s, is->getCond(), is->getThen(), is->getElse(), block);
  }
  if (auto* fs = dyn_cast<ForStmt>(s); fs && ir_.unit.parallel_fused_loops.count(fs)) {
    if (parallel_) return fail(at, Diag::unsupported_nested_openmp_parallel_loops);
    const ParallelClauses none;
    return lower_for(fs, block, &none);
  }
  if (auto* fs = dyn_cast<ForStmt>(s)) return lower_for(fs, block);
  if (auto* rs = dyn_cast<CXXForRangeStmt>(s)) {
    QualType range = rs->getRangeInit()->getType();
    if (is_container(range) || range->isConstantArrayType() || braced_range(rs)) return lower_range_for(rs, block);
    return fail(rs->getRangeInit()->getBeginLoc(), Diag::unsupported_range_over, {range.getAsString()});
  }
  if (auto* ws = dyn_cast<WhileStmt>(s)) {
    return lower_loop(s, LoopForm::While, ws->getCond(), ws->getBody(), nullptr, block,
                      ws->getConditionVariableDeclStmt());
  }
  if (auto* ds = dyn_cast<DoStmt>(s))
    return lower_loop(s, LoopForm::Do, ds->getCond(), ds->getBody(), nullptr, block);
  if (isa<BreakStmt>(s) || isa<ContinueStmt>(s)) {
    if (loops_.empty()) return fail(at, Diag::break_continue_outside_loop);
    Node* n = make(NodeKind::Jump, s);
    n->jump = isa<BreakStmt>(s) ? JumpKind::Break : JumpKind::Continue;
    n->target_loop = loops_.back();
    if (n->target_loop->parallel) return fail(at, Diag::break_continue_openmp_parallel_loop);
    n->id = next_id_++;
    loops_.back()->jumps.push_back(n);
    return add(block, n);
  }
  if (auto* rs = dyn_cast<ReturnStmt>(s)) {
    if (const Expr* value = rs->getRetValue(); value && !returns_self(ir_.fn)) lower_return_value(s, value, block);
    if (!loops_.empty()) return lower_return_in_loop(s, block);
    Node* n = make(NodeKind::Jump, s);
    n->jump = JumpKind::Return;
    n->id = next_id_++;
    ir_.returns.push_back(n);
    return add(block, n);
  }
  // `parallel for simd` too: the generated loops are plain loops the compiler may vectorise.
  if (isa<OMPParallelForDirective, OMPParallelForSimdDirective>(s))
    return lower_parallel_for(cast<OMPLoopDirective>(s), block);
  if (isa<OMPExecutableDirective>(s)) return fail(at, Diag::unsupported_openmp_directive);
  if (auto* sw = dyn_cast<SwitchStmt>(s)) return lower_switch(sw, block);
  if (isa<SwitchCase>(s)) return fail(at, Diag::unsupported_case_label_inside_if_loop);
  if (isa<GotoStmt>(s) || isa<LabelStmt>(s)) return fail(at, Diag::unsupported_goto);
  fail(at, unsupported_construct(s));
}

Node* Lowering::lower_statements(const std::vector<const Stmt*>& stmts, const Stmt* owner) {
  Node* b = make(NodeKind::Block, owner);
  for (const Stmt* st : stmts) lower_stmt(st, b);
  return b;
}

}  // namespace adjc
