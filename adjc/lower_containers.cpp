// Lowering of std::vector and std::array locals, push_back, refills, fill and range-for
// (lowering.hpp); the rest of the container model is containers.cpp.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

// std::vector and std::array locals (docs/adjc.md, "std::vector and std::array"). A std::array
// is a local array; a std::vector (`std::vector<T> v;`, `v(n)`, `v(n, x)`, a copy `v(w)`) is sized
// once where it is declared at the function's level, or refilled where it is declared in a loop; it
// grows by push_back or is refilled (lower_refill), and its adjoint is sized from it when the
// reverse sweep starts.
void Lowering::lower_container_local(const VarDecl* vd, const Stmt* stmt, Node* block) {
  SourceLocation at = vd->getLocation();
  const std::string name = vd->getName().str();
  const Expr* init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
  auto* construct = dyn_cast_or_null<CXXConstructExpr>(init);
  std::vector<const Expr*> args;
  if (construct)
    for (const Expr* a : construct->arguments())
      if (!isa<CXXDefaultArgExpr>(a)) args.push_back(a);
  // The allocator of `v(n, x, alloc)`: a std::allocator, which holds nothing, so a vector built
  // with the default one is the same.
  if (!args.empty() && is_allocator_of(args.back(), vd->getType()) && !args.back()->HasSideEffects(context_))
    args.pop_back();
  // `std::vector<T> v = {a, b, c}`: sized to the list, then each element assigned.
  const InitListExpr* listed = nullptr;
  if (construct && args.size() == 1 && is_vector(vd->getType()))
    if (auto* list = dyn_cast<CXXStdInitializerListExpr>(args[0]->IgnoreImplicit())) {
      listed = dyn_cast<InitListExpr>(list->getSubExpr()->IgnoreImplicit());
      if (!listed) return fail(at, Diag::unsupported_initialising_vector_list, {name});
      args = {int_literal(listed->getNumInits())};
    }
  const bool copy = construct && construct->getConstructor()->isCopyOrMoveConstructor();
  if (copy && !isa<DeclRefExpr, MemberExpr>(args[0]->IgnoreParenImpCasts()))
    return fail(at, Diag::unsupported_vector_copy_source, {name});
  if (!is_vector(vd->getType())) {
    if (copy) {
      make_var(name, vd->getType(), VarKind::Local, vd, at)->block = block;
      return copy_container(new_ref(vd), args[0]->IgnoreParenImpCasts(), stmt, block);
    }
    if (construct && !args.empty()) return fail(at, Diag::unsupported_std_array_initialiser, {name});
    return lower_array_container(vd, init, stmt, block);
  }
  if (parallel_) return fail(at, Diag::unsupported_vector_declared_inside_openmp_parallel, {name, name});
  bool sized = args.size() >= 1 && args[0]->getType()->isIntegerType() && args.size() <= 2;
  if ((init && !construct) || (construct && !copy && !args.empty() && !sized))
    return fail(at, Diag::unsupported_initialising_vector_way, {name});
  Var* v = make_var(name, vd->getType(), VarKind::Local, vd, at);
  v->block = block;
  // In a loop each iteration's declaration makes a new vector: the one variable is refilled
  // (lower_refill), `v.clear()` (then copied into), `v.assign(n, x)`, `v.assign(n, 0)` for `v(n)`.
  if (!loops_.empty()) {
    std::vector<Expr*> refill_args;
    if (!copy && !args.empty())
      refill_args = {const_cast<Expr*>(args[0]),
                     const_cast<Expr*>(args.size() == 2 ? args[1] : zero_of(container_element(vd->getType())))};
    lower_refill(cast<CXXMemberCallExpr>(container_call(context_, ir_.unit, new_ref(vd),
                                                        refill_args.empty() ? "clear" : "assign", refill_args, false)),
                 stmt, block);
    if (listed) return assign_listed(vd, listed, stmt, block);
    if (!copy) return;
  }
  if (copy) return copy_container(new_ref(vd), args[0]->IgnoreParenImpCasts(), stmt, block);
  if (args.empty()) return;
  size_vector(vd, args, stmt, block);
  if (listed) assign_listed(vd, listed, stmt, block);
}

// A std::array local not copied nor constructed with arguments: a local array;
// `std::array<T, N> a = {x, y}` is assigned element by element (braces around the one member
// array elided or not), the rest zero.
void Lowering::lower_array_container(const VarDecl* vd, const Expr* init, const Stmt* stmt, Node* block) {
  Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, vd->getLocation());
  v->block = block;
  auto* outer = dyn_cast_or_null<InitListExpr>(init);
  if (!outer) return;
  std::vector<const Expr*> given;
  if (outer->getNumInits() == 1)
    if (auto* inner = dyn_cast<InitListExpr>(outer->getInit(0)->IgnoreImplicit()))
      for (const Expr* e : inner->inits()) given.push_back(e);
  uint64_t count = loops_.empty() ? given.size() : array_size(vd->getType());
  if (count - given.size() > 64)
    return fail(outer->getBeginLoc(), Diag::unsupported_partly_initialised_std_array_in_loop);
  for (unsigned i = 0; i < count; ++i) {
    const Expr* e = i < given.size() ? given[i] : nullptr;
    if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(container_element(vd->getType()));
    lower_assign(stmt, container_subscript(context_, new_ref(vd), int_literal(i)), BO_Assign, e, block);
  }
}

// `std::vector<T> v(n)` or `v(n, x)` sized where it is declared. A constant fill value is the
// sizing call's (`v.assign(n, c)`); any other, which carries a derivative, is evaluated first and
// assigned to each element once the vector is sized.
void Lowering::size_vector(const VarDecl* vd, const std::vector<const Expr*>& args, const Stmt* stmt, Node* block) {
  const Expr* fill = args.size() == 2 && reads_variable(args[1])
                         ? fill_value(args[1], container_element(vd->getType()), stmt, block)
                         : nullptr;
  check_expression(ir_, diags_, args[0]);
  std::vector<Expr*> call_args = {const_cast<Expr*>(args[0])};
  if (args.size() == 2 && !fill) call_args.push_back(const_cast<Expr*>(args[1]));
  Node* n = make(NodeKind::Call, stmt);
  n->loc = vd->getLocation();
  n->call = cast<CallExpr>(
      container_call(context_, ir_.unit, new_ref(vd), call_args.size() == 1 ? "resize" : "assign", call_args, true));
  add(block, n);
  if (fill) fill_elements(new_ref(vd), fill, nullptr, stmt, block);
}

// `v[0] = a; v[1] = b; ...` for `std::vector<T> v = {a, b, ...}`, once v is sized.
void Lowering::assign_listed(const VarDecl* vd, const InitListExpr* listed, const Stmt* stmt, Node* block) {
  for (unsigned i = 0; i < listed->getNumInits(); ++i)
    lower_assign(stmt, container_subscript(context_, new_ref(vd), int_literal(i)), BO_Assign, listed->getInit(i),
                 block);
}

// `to` given the elements of the container `from`, of the same type: a std::vector (empty: declared
// at the function's level) sized first by a sizing call, `to.resize(from.size())`, then
// `for (long _i = 0; _i < size; ++_i) to[_i] = from[_i];`, so each element's adjoint flows back to
// `from`'s.
void Lowering::copy_container(const Expr* to, const Expr* from, const Stmt* stmt, Node* block) {
  if (is_vector(to->getType())) {
    Node* n = make(NodeKind::Call, stmt);
    n->loc = to->getExprLoc();
    Expr* size = container_call(context_, ir_.unit, from, "size", {}, false);
    n->call = cast<CallExpr>(container_call(context_, ir_.unit, to, "resize", {size}, true));
    add(block, n);
  }
  Expr* item = nullptr;
  Node* loop = open_element_loop(const_cast<Expr*>(from), nullptr, stmt, stmt, item);
  lower_assign(stmt, container_subscript(context_, to, rvalue(loop->counter->decl)), BO_Assign, item, loop->body);
  close_element_loop(loop, block);
}

// Whether `e` reads a variable (or memory).
bool Lowering::reads_variable(const Expr* e) {
  if (!e) return false;
  if (auto* ref = dyn_cast<DeclRefExpr>(e); ref && isa<VarDecl>(ref->getDecl())) return true;
  for (const Stmt* c : e->children())
    if (reads_variable(dyn_cast_or_null<Expr>(c))) return true;
  return false;
}

// `v.push_back(x)` on a local std::vector: `_pushed = x; _k = v.size(); v.resize(_k + 1);
// v[_k] = _pushed;` (x evaluated before the size changes), so the new element is an assignment
// like any other and its index a local the tape plan keeps.
void Lowering::lower_push_back(const CXXMemberCallExpr* call, const Stmt* stmt, Node* block) {
  const Expr* object = call->getImplicitObjectArgument();
  Var* v = ir_.var(object);
  if (!v || v->kind != VarKind::Local) return fail(call->getExprLoc(), Diag::unsupported_push_back_vector_not_local);
  SourceLocation at = call->getExprLoc();
  QualType element = container_element(object->getType());
  auto* pushed = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at,
                                 &context_.Idents.get("_pushed"), element,
                                 context_.getTrivialTypeSourceInfo(element, at), SC_None);
  pushed->setImplicit();
  Var* p = make_var("_pushed", element, VarKind::Local, pushed, at);
  p->block = block;
  size_t first = block->children.size();
  lower_assign(stmt, new_ref(pushed), BO_Assign, call->getArg(0), block);
  if (block->children.size() > first && block->children.back()->kind == NodeKind::Assign) {
    block->children.back()->definition = true;
    p->definition = block->children.back();
  }
  QualType size_type = context_.LongTy;
  auto* vd = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at, &context_.Idents.get("_k"),
                             size_type, context_.getTrivialTypeSourceInfo(size_type, at), SC_None);
  vd->setImplicit();
  Var* k = make_var("_k", size_type, VarKind::Local, vd, at);
  k->block = block;
  size_t before = block->children.size();
  lower_assign(stmt, new_ref(vd), BO_Assign, container_call(context_, ir_.unit, object, "size", {}, false), block);
  if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
    block->children.back()->definition = true;
    k->definition = block->children.back();
  }
  Expr* next = BinaryOperator::Create(context_, const_cast<Expr*>(rvalue(vd)), const_cast<Expr*>(int_literal(1, size_type)),
                                      BO_Add, size_type, VK_PRValue, OK_Ordinary, at, FPOptionsOverride());
  Node* n = make(NodeKind::Call, stmt);
  n->loc = at;
  n->call = cast<CallExpr>(container_call(context_, ir_.unit, object, "resize", {next}, true));
  add(block, n);
  lower_assign(stmt, container_subscript(context_, object, rvalue(vd)), BO_Assign, rvalue(pushed), block);
}

// `v.resize(n)`, `v.resize(n, c)`, `v.assign(n, c)`, `v.clear()` on a local std::vector, c a
// constant: the call as it is, taped whole before it (the elements it drops or overwrites may be
// what the reverse reads), and in the reverse the vector restored and the adjoints of the elements
// it filled or dropped cleared (Node::refilled). A fill value x that is not a constant carries a
// derivative: x is evaluated first, the call is `v.resize(n)` (`v.assign(n, 0)`), and the elements
// it fills, from the old size (from 0), are assigned x (fill_elements).
void Lowering::lower_refill(const CXXMemberCallExpr* call, const Stmt* stmt, Node* block) {
  const Expr* object = call->getImplicitObjectArgument();
  std::string name = call->getMethodDecl()->getNameAsString();
  Var* v = ir_.var(object);
  if (!v || v->kind != VarKind::Local)
    return fail(call->getExprLoc(), Diag::unsupported_vector_resize_not_local, {name});
  if (parallel_) return fail(call->getExprLoc(), Diag::unsupported_vector_resize_in_parallel, {name});
  const CallExpr* refill = call;
  const Expr* fill = nullptr;
  const Expr* from = nullptr;
  if (call->getNumArgs() == 2 && reads_variable(call->getArg(1))) {
    QualType element = container_element(object->getType());
    fill = fill_value(call->getArg(1), element, stmt, block);
    Expr* count = const_cast<Expr*>(call->getArg(0));
    if (name == "resize") {
      const VarDecl* old_size = new_local("_k", context_.LongTy, call->getExprLoc(), block);
      define(old_size, container_call(context_, ir_.unit, object, "size", {}, false), stmt, block);
      from = rvalue(old_size);
      refill = cast<CallExpr>(container_call(context_, ir_.unit, object, "resize", {count}, false));
    } else {
      refill = cast<CallExpr>(
          container_call(context_, ir_.unit, object, "assign", {count, const_cast<Expr*>(zero_of(element))}, false));
    }
  }
  for (const Expr* a : refill->arguments()) check_expression(ir_, diags_, a);
  Node* n = make(NodeKind::Call, stmt);
  n->loc = call->getExprLoc();
  n->call = refill;
  n->refilled = v;
  add(block, n);
  if (fill) fill_elements(object, fill, from, stmt, block);
}

// `a.fill(x)` on a std::array: every element assigned x (fill_elements).
void Lowering::lower_fill(const CXXMemberCallExpr* call, const Stmt* stmt, Node* block) {
  if (parallel_) return fail(call->getExprLoc(), Diag::unsupported_array_fill_inside_openmp_parallel);
  const Expr* object = call->getImplicitObjectArgument();
  fill_elements(object, fill_value(call->getArg(0), container_element(object->getType()), stmt, block), nullptr, stmt,
                block);
}

// The value a fill assigns, evaluated once before any element changes: a local `_fill`, whose
// adjoint collects the elements'.
const Expr* Lowering::fill_value(const Expr* value, QualType element, const Stmt* stmt, Node* block) {
  const VarDecl* vd = new_local("_fill", element, value->getExprLoc(), block);
  define(vd, value, stmt, block);
  return rvalue(vd);
}

// `for (long _i = from; _i < size; ++_i) c[_i] = value;` (from 0 when null).
void Lowering::fill_elements(const Expr* object, const Expr* value, const Expr* from, const Stmt* stmt, Node* block) {
  Expr* item = nullptr;
  Node* loop = open_element_loop(const_cast<Expr*>(object), from, stmt, stmt, item);
  lower_assign(stmt, item, BO_Assign, value, loop->body);
  close_element_loop(loop, block);
}

// `std::fill(first, last, x)`, `std::fill_n(first, n, x)`, `std::copy(first, last, out)`,
// `std::copy_n(first, n, out)` and `memset(first, 0, n * sizeof(T))` on pointers to numbers, as
// statements: the loop they are, `for (long _i = 0; _i < count; ++_i) first[_i] = x;` (`out[_i] =
// first[_i]`), so that the elements they write are assignments the tape plan sees. Null for other
// calls (a memset of anything else stays a library call writing untyped memory, which is reported).
const CallExpr* Lowering::pointer_algorithm_call(const Expr* e) {
  auto* call = dyn_cast<CallExpr>(e);
  auto* callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || !callee->getIdentifier() || call->getNumArgs() != 3) return nullptr;
  const std::string name = callee->getName().str();
  const bool memset = c_memory_function(call) == "memset";
  if (!memset && (!callee->isInStdNamespace() || (name != "fill" && name != "fill_n" && name != "copy" &&
                                                  name != "copy_n")))
    return nullptr;
  auto number_pointer = [](const Expr* a) {
    QualType t = a->IgnoreImpCasts()->getType();
    if (t->isArrayType()) return t->getArrayElementTypeNoTypeQual()->isArithmeticType();
    return t->isPointerType() && t->getPointeeType()->isArithmeticType();
  };
  // memset also zeroes structs whose members are all numbers, as the assignment of `{}` does.
  auto numbers_struct = [&](const Expr* a) {
    QualType t = a->IgnoreImpCasts()->getType();
    t = t->isPointerType() ? t->getPointeeType() : t->isArrayType() ? QualType(t->getArrayElementTypeNoTypeQual(), 0)
                                                                    : QualType();
    auto* record = t.isNull() ? nullptr : t->getAsCXXRecordDecl();
    return record && is_plain_struct(t, ir_.unit) && record->getNumBases() == 0 &&
           std::all_of(record->field_begin(), record->field_end(),
                       [](const FieldDecl* f) { return f->getType()->isArithmeticType(); });
  };
  const bool copy = name[0] == 'c';
  if (memset && numbers_struct(call->getArg(0))) return call;
  if (!number_pointer(call->getArg(0)) || (copy && !number_pointer(call->getArg(2)))) return nullptr;
  return call;
}

void Lowering::lower_pointer_algorithm(const CallExpr* call, const Stmt* stmt, Node* block) {
  SourceLocation at = call->getExprLoc();
  const std::string name = call->getDirectCallee()->getName().str();
  const std::string spelled = name == "memset" ? "'memset'" : "std::" + name;
  for (const Expr* a : call->arguments())
    if (a->HasSideEffects(context_)) return fail(a->getExprLoc(), Diag::unsupported_argument_side_effects, {spelled});
  auto strip_decay = [](const Expr* a) { return const_cast<Expr*>(a->IgnoreImpCasts()); };
  Expr* first = const_cast<Expr*>(call->getArg(0)->IgnoreParens());
  if (auto* untyped = dyn_cast<ImplicitCastExpr>(first); untyped && untyped->getType()->isVoidPointerType())
    first = untyped->getSubExpr();  // memset's destination, as the pointer to numbers it is
  // The element type of a pointer or of an array.
  auto element_type = [](const Expr* pointer) {
    QualType t = pointer->getType();
    return t->isPointerType() ? t->getPointeeType() : QualType(t->getArrayElementTypeNoTypeQual(), 0);
  };
  auto parenthesised = [&](const Expr* e) { return new (context_) ParenExpr(at, at, const_cast<Expr*>(e)); };
  if (name == "memset") {
    QualType element = element_type(first).getUnqualifiedType();
    Expr::EvalResult byte;
    if (!call->getArg(1)->EvaluateAsInt(byte, context_) || byte.Val.getInt() != 0)
      return fail(call->getArg(1)->getExprLoc(), Diag::unsupported_memset_nonzero);
    const Expr* count = element_count(call->getArg(2), element);
    if (!count)
      return fail(call->getArg(2)->getExprLoc(), Diag::unsupported_memset_elements_byte_count,
                  {element.getAsString(), element.getAsString()});
    const Expr* zero = element->isRecordType() ? empty_list(element, at) : fill_value(int_literal(0), element, stmt, block);
    return assign_elements(first, nullptr, zero, count, stmt, block);
  }
  // The element count: `last - first`, or n.
  Expr* count = name.size() > 4 ? strip_decay(call->getArg(1))
                                : BinaryOperator::Create(context_, parenthesised(call->getArg(1)->IgnoreParens()),
                                                         parenthesised(first), BO_Sub, context_.getPointerDiffType(),
                                                         VK_PRValue, OK_Ordinary, at, FPOptionsOverride());
  const bool copy = name[0] == 'c';
  Expr* out = copy ? const_cast<Expr*>(call->getArg(2)->IgnoreParens()) : first;
  const Expr* value = copy ? nullptr : fill_value(call->getArg(2), element_type(out).getUnqualifiedType(), stmt, block);
  assign_elements(out, copy ? first : nullptr, value, count, stmt, block);
}

// `for (long _i = 0; _i < (long)(count); ++_i) out[_i] = from ? from[_i] : value;`, out and from
// pointers or arrays of numbers (or of structs, assigned member by member).
void Lowering::assign_elements(Expr* out, Expr* from, const Expr* value, const Expr* count, const Stmt* stmt,
                               Node* block) {
  SourceLocation at = stmt->getBeginLoc();
  QualType long_type = context_.LongTy;
  auto parenthesised = [&](const Expr* e) { return new (context_) ParenExpr(at, at, const_cast<Expr*>(e)); };
  Expr* end = CStyleCastExpr::Create(context_, long_type, VK_PRValue, CK_IntegralCast, parenthesised(count), nullptr,
                                     FPOptionsOverride(), context_.getTrivialTypeSourceInfo(long_type, at), at, at);
  auto element_of = [&](Expr* pointer, VarDecl* counter) {
    QualType t = pointer->getType();
    QualType element = t->isPointerType() ? t->getPointeeType() : QualType(t->getArrayElementTypeNoTypeQual(), 0);
    return new (context_) ArraySubscriptExpr(parenthesised(pointer), const_cast<Expr*>(rvalue(counter)), element,
                                             VK_LValue, OK_Ordinary, at);
  };
  VarDecl* counter = loop_counter(nullptr, at);
  Node* loop = open_counted_loop(counter, end, stmt, stmt);
  assign_member(element_of(out, counter), from ? element_of(from, counter) : value, stmt, loop->body);
  close_element_loop(loop, block);
}

// `for (double v : {a, b, c})`: the braced list a std::initializer_list holds; nullptr otherwise.
const InitListExpr* Lowering::braced_range(const CXXForRangeStmt* rs) {
  auto* list = dyn_cast<CXXStdInitializerListExpr>(rs->getRangeInit()->IgnoreImplicit());
  return list ? dyn_cast<InitListExpr>(list->getSubExpr()->IgnoreImplicit()) : nullptr;
}

// The counted loop `for (long _i = from; _i < end; ++_i)` (from 0 when null) over the elements of
// `range`, an array or a std::array (end: its size) or a std::vector (end: `(long)v.size()`), opened: it is the
// innermost of loops_ and its body (of `body`) an empty block to lower into; `item` is `range[_i]`.
// close_element_loop adds it to its block.
Node* Lowering::open_element_loop(Expr* range, const Expr* from, const Stmt* stmt, const Stmt* body, Expr*& item) {
  SourceLocation at = stmt->getBeginLoc();
  QualType long_type = context_.LongTy;
  VarDecl* counter = loop_counter(from, at);
  Expr* end = nullptr;
  if (auto* array = context_.getAsConstantArrayType(range->getType())) {
    end = const_cast<Expr*>(int_literal(int(array->getSize().getZExtValue()), long_type));
    Expr* first = ImplicitCastExpr::Create(context_, context_.getArrayDecayedType(range->getType()),
                                           CK_ArrayToPointerDecay, range, nullptr, VK_PRValue, FPOptionsOverride());
    item = new (context_) ArraySubscriptExpr(first, const_cast<Expr*>(rvalue(counter)), array->getElementType(),
                                             VK_LValue, OK_Ordinary, at);
  } else if (!is_vector(range->getType())) {  // a std::array: N, a constant the reverse evaluates again
    end = const_cast<Expr*>(int_literal(int(array_size(range->getType())), long_type));
    item = const_cast<Expr*>(container_subscript(context_, range, rvalue(counter)));
  } else {
    Expr* size = container_call(context_, ir_.unit, range, "size", {}, false);
    end = CStyleCastExpr::Create(context_, long_type, VK_PRValue, CK_IntegralCast, size, nullptr, FPOptionsOverride(),
                                 context_.getTrivialTypeSourceInfo(long_type, at), at, at);
    item = const_cast<Expr*>(container_subscript(context_, range, rvalue(counter)));
  }
  return open_counted_loop(counter, end, stmt, body);
}

// The counter `long _i = from` (0 when null) of a loop adjc writes.
VarDecl* Lowering::loop_counter(const Expr* from, SourceLocation at) {
  QualType long_type = context_.LongTy;
  auto* counter = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at, &context_.Idents.get("_i"),
                                  long_type, context_.getTrivialTypeSourceInfo(long_type, at), SC_None);
  counter->setImplicit();
  counter->setInit(const_cast<Expr*>(from ? from : int_literal(0, long_type)));
  return counter;
}

// `for (long _i = ...; _i < end; ++_i)`, opened (see open_element_loop).
Node* Lowering::open_counted_loop(VarDecl* counter, Expr* end, const Stmt* stmt, const Stmt* body) {
  SourceLocation at = stmt->getBeginLoc();
  QualType long_type = context_.LongTy;
  Node* n = make(NodeKind::Loop, stmt);
  n->form = LoopForm::For;
  n->id = next_id_++;
  Var* v = make_var("_i", long_type, VarKind::Local, counter, at);
  v->counter = true;
  n->counter = v;
  n->start = counter->getInit();
  n->step = 1;
  n->end = end;
  n->cond = BinaryOperator::Create(context_, const_cast<Expr*>(rvalue(counter)), end, BO_LT, context_.BoolTy,
                                   VK_PRValue, OK_Ordinary, at, FPOptionsOverride());
  check_expression(ir_, diags_, n->cond);
  loops_.push_back(n);
  n->body = make(NodeKind::Block, body);
  return n;
}

void Lowering::close_element_loop(Node* loop, Node* block) {
  loop->body->parent = loop;
  loops_.pop_back();
  add(block, loop);
  leave_after_return(loop, block);
}

// `for (T x : c)` over a std::vector, std::array, an array or a braced list (first copied into a
// local array): the counted loop `for (long _i = 0; _i < (long)v.size(); ++_i) { T x = v[_i]; ... }`
// (`_i < N` for an array or std::array of N). A reference `T& x` (or `const T& x`) is an alias: its uses in the
// body name `c[_i]`.
void Lowering::lower_range_for(const CXXForRangeStmt* rs, Node* block) {
  SourceLocation at = rs->getBeginLoc();
  const VarDecl* element = rs->getLoopVariable();
  QualType t = element->getType();
  if (parallel_) return fail(at, Diag::parallel_loop_inner_loop_not_for);
  Expr* range = const_cast<Expr*>(rs->getRangeInit());
  if (const InitListExpr* list = braced_range(rs)) {  // a braced list: its values in a local array first
    auto* type = context_.getAsConstantArrayType(list->getType());
    if (!type) return fail(list->getBeginLoc(), Diag::unsupported_braced_list_range);
    QualType values_type = context_.getConstantArrayType(type->getElementType().getUnqualifiedType(), type->getSize(),
                                                         nullptr, ArraySizeModifier::Normal, 0);
    const VarDecl* values = new_local("_range", values_type, at, block);
    lower_array_elements(const_cast<Expr*>(new_ref(values)), list, rs, block);
    range = const_cast<Expr*>(new_ref(values));
  }
  auto* rows = context_.getAsConstantArrayType(range->getType());
  if (!t->isReferenceType() && rows && rows->getElementType()->isArrayType())
    return fail(element->getLocation(), Diag::unsupported_range_for_rows_by_value,
                {range->getType().getAsString(), element->getName().str(), element->getName().str()});
  Expr* item = nullptr;  // c[_i]
  Node* n = open_element_loop(range, nullptr, rs, rs->getBody(), item);
  Stmt* body = const_cast<Stmt*>(rs->getBody());
  if (t->isReferenceType()) {
    replace_uses(body, element, [&](const DeclRefExpr*) { return item; });
  } else {
    Var* x = make_var(element->getName().str(), t.getUnqualifiedType(), VarKind::Local, element,
                      element->getLocation());
    x->block = n->body;
    define(element, item, rs, n->body);
  }
  if (auto* cs = dyn_cast<CompoundStmt>(body)) lower_compound(cs, n->body);
  else lower_stmt(body, n->body);
  close_element_loop(n, block);
}

}  // namespace adjc
