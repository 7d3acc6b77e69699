// Lowering of local structs and arrays: structs used through their members split into one
// variable per member, function objects kept whole, braced initialisation, a capturing lambda's
// copies (lowering.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>
#include <functional>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

// Local structs whose every use is a member `s.x` of a scalar, pointer or array member: each
// member becomes a variable of its own (`s_x`), so a struct of pointers into parameters is a set
// of local pointers, and each member is a region of its own. The other local structs (used as a
// whole: passed, copied, assigned, returned, or their member functions called) are objects: one
// struct in memory each.
void Lowering::find_split_structs(const Stmt* body) {
  std::set<const VarDecl*> whole, structs, declared;
  std::vector<std::pair<const VarDecl*, const VarDecl*>> copies;  // `S b = a;`: split both or neither
  auto local = [](const Expr* e) -> const VarDecl* {
    auto* ref = e ? dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
    auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    return vd && vd->isLocalVarDecl() ? vd : nullptr;
  };
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (auto* m = dyn_cast<MemberExpr>(s); m && !m->isArrow() && isa<FieldDecl>(m->getMemberDecl()))
      if (isa<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts())) return;
    // The object of a member call (`p.f(x)`, `p(x)`): the struct stays one object in memory.
    const Expr* object = nullptr;
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(s)) object = mc->getImplicitObjectArgument();
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && isa_and_nonnull<CXXMethodDecl>(op->getDirectCallee()))
      object = op->getArg(0);
    // A value class's member functions (`z.real()`) are calls on a value: it is no object in memory;
    // nor are a container's or a library value's (`o.value_or(1)`).
    if (const VarDecl* vd = local(object); vd && !is_value_class(vd->getType(), ir_.unit) &&
                                           !is_container(vd->getType()) && !is_library_class(vd->getType(), ir_.unit)) {
      objects_.insert(vd);
      for (const Stmt* c : s->children())
        if (c != object && !(isa<MemberExpr>(c) && cast<MemberExpr>(c)->getBase() == object)) walk(c);
      return;
    }
    // A local number, or a number member of a local struct, whose address is taken or that a call
    // writes through a reference: a one-element region.
    auto addressed = [&](const Expr* e) {
      if (const VarDecl* vd = local(e); vd && vd->getType()->isArithmeticType()) addressed_.insert(vd);
      auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
      auto* field = m && !m->isArrow() ? dyn_cast<FieldDecl>(m->getMemberDecl()) : nullptr;
      if (const VarDecl* vd = field ? local(m->getBase()) : nullptr; vd && field->getType()->isArithmeticType())
        addressed_members_.insert({vd, field});
    };
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_AddrOf) addressed(u->getSubExpr());
    if (auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXOperatorCallExpr>(s) && call->getDirectCallee())
      for (unsigned i = 0; i < call->getNumArgs() && i < call->getDirectCallee()->getNumParams(); ++i) {
        QualType t = call->getDirectCallee()->getParamDecl(i)->getType();
        if (t->isLValueReferenceType() && !t->getPointeeType().isConstQualified()) addressed(call->getArg(i));
      }
    if (auto* ref = dyn_cast<DeclRefExpr>(s))
      if (auto* vd = dyn_cast<VarDecl>(ref->getDecl())) whole.insert(vd);
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls())
        if (auto* vd = dyn_cast<VarDecl>(d); vd && !aliases_.count(vd)) {  // an alias names its referent
          if (vd->isLocalVarDecl() && splittable(vd->getType())) structs.insert(vd);
          for (auto [pointer, f] : own_addressed_members(vd->getInit())) addressed_members_.insert({vd, f});
          if (vd->isLocalVarDecl() && !vd->getType()->isReferenceType()) declared.insert(vd);
          // `S b = a;`: a trivial copy, which strip looks through.
          const Expr* init = vd->getInit() ? strip(vd->getInit(), ir_.unit) : nullptr;
          auto* ref = init && vd->getType()->isRecordType() ? dyn_cast<DeclRefExpr>(init) : nullptr;
          if (auto* from = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr) copies.push_back({vd, from});
          else walk(vd->getInit());
        }
      return;
    }
    for_each_child(s, walk);
  };
  walk(body);
  split_ = structs;
  for (const VarDecl* vd : whole) split_.erase(vd);
  for (const VarDecl* vd : objects_) split_.erase(vd);
  for (const VarDecl* vd : whole)
    if (!structs.count(vd)) objects_.erase(vd);  // handles, containers, library classes: not objects
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [to, from] : copies)
      if (split_.count(to) != split_.count(from)) {
        split_.erase(to);
        split_.erase(from);
        changed = true;
      }
  }
  for (const VarDecl* vd : structs)
    if (!split_.count(vd)) objects_.insert(vd);
  // Structs of structs (`Body b{{x, y}, {u, v}, m}`): one object each, their members reached by
  // member chains (`b.pos.x`) as in any struct in memory.
  for (const VarDecl* vd : declared)
    if (!structs.count(vd) && nested_plain_struct(vd->getType())) objects_.insert(vd);
}

bool Lowering::nested_plain_struct(QualType t) {
  if (!is_plain_struct(t, ir_.unit)) return false;
  for (const FieldDecl* f : record_fields(t->getAsRecordDecl()))
    if (context_.getBaseElementType(f->getType())->isRecordType()) return true;
  return false;
}

bool Lowering::splittable(QualType t) {
  auto* record = t->getAsRecordDecl();
  if (!record || is_value_class(t, ir_.unit) || is_container(t) || is_library_class(t, ir_.unit) || record->isUnion() ||
      t->isReferenceType())
    return false;
  if (auto* cxx = dyn_cast<CXXRecordDecl>(record);
      cxx && (cxx->isLambda() || cxx->isPolymorphic() || (!unmodelled_bases(cxx).empty() && !is_number_pair(t))))
    return false;
  for (const FieldDecl* f : record_fields(record)) {
    QualType ft = f->getType().getCanonicalType();
    if (f->isBitField() || ft->isReferenceType()) return false;
    if (auto* array = dyn_cast<ConstantArrayType>(ft)) ft = array->getElementType().getCanonicalType();
    if (!ft->isArithmeticType() && !ft->isPointerType() && !is_vector(ft)) return false;
  }
  return true;
}

// A literal zero of arithmetic type `t` (nullptr for other types): what a member or element
// without an initialiser in a braced list starts with.
const Expr* Lowering::zero_of(QualType t) {
  t = t.getCanonicalType();
  if (t->isRealFloatingType())
    return FloatingLiteral::Create(context_, llvm::APFloat::getZero(context_.getFloatTypeSemantics(t)), true, t,
                                   SourceLocation());
  if (t->isIntegerType() && !t->isBooleanType() && !t->isEnumeralType())
    return IntegerLiteral::Create(context_, llvm::APInt(context_.getIntWidth(t), 0), t, SourceLocation());
  return nullptr;
}

// `{}` of type `t` at `at`: what an aggregate's base or an array's row not given in a braced list starts as.
InitListExpr* Lowering::empty_list(QualType t, SourceLocation at) {
  auto* list = new (context_) InitListExpr(context_, at, {}, at);
  list->setType(t);
  return list;
}

// A member `s.x` of local `vd` as an expression.
Expr* Lowering::member_ref(const VarDecl* vd, const FieldDecl* f) {
  return MemberExpr::CreateImplicit(context_, const_cast<Expr*>(new_ref(vd)), false, const_cast<FieldDecl*>(f),
                                    f->getType(), VK_LValue, OK_Ordinary);
}

void Lowering::lower_split_struct(const VarDecl* vd, const Stmt* stmt, Node* block) {
  SourceLocation at = vd->getLocation();
  std::vector<const Expr*> inits;
  if (!member_inits(vd->getType(), vd->getInit(), stmt, block, inits)) {
    if (!ir_.valid) return;
    return fail(at, Diag::unsupported_initialising_struct_way, {vd->getName().str()});
  }
  if (!point_into(new_ref(vd), inits, at)) return;
  const RecordDecl* record = vd->getType()->getAsRecordDecl();
  size_t i = 0;
  for (const FieldDecl* f : record_fields(record)) {
    const Expr* init = inits[i++];
    Var* v = make_var(vd->getName().str() + "_" + f->getName().str(), f->getType(), VarKind::Local, nullptr, at);
    v->block = block;
    add_member_var(vd, f, v);
    if (v->pointer) {
      if (!init) return fail(at, Diag::pointer_member_not_initialised, {f->getName().str(), vd->getName().str()});
      if (!point_at(v, init))
        return fail(init->getBeginLoc(), Diag::pointer_member_target_unknown,
                    {f->getName().str(), vd->getName().str()});
    }
    // A std::vector member starts empty: in a loop, each iteration's struct has a new one, so the one
    // variable is refilled (`s_v.clear()`, lower_refill).
    if (is_vector(f->getType())) {
      if (init && !empty_vector(init))
        return fail(at, Diag::unsupported_initialising_vector_member_local_struct,
                    {f->getName().str(), vd->getName().str()});
      if (!loops_.empty())
        lower_refill(cast<CXXMemberCallExpr>(container_call(context_, ir_.unit, member_ref(vd, f), "clear", {}, false)),
                     stmt, block);
      continue;
    }
    if (!init) continue;
    if (v->memory && f->getType()->isArrayType()) {
      if (auto* list = dyn_cast<InitListExpr>(strip(init, ir_.unit))) {
        lower_array_elements(member_ref(vd, f), list, stmt, block);
        continue;
      }
      // A copy (`S t = s;`, `S t = a[i];`): the array member element by element.
      auto* type = dyn_cast<ConstantArrayType>(f->getType().getCanonicalType());
      if (!isa<MemberExpr>(init) || !type || type->getElementType()->isArrayType())
        return fail(at, Diag::unsupported_initialiser_array_member_local_struct,
                    {f->getName().str(), vd->getName().str()});
      for (uint64_t k = 0; k < type->getSize().getZExtValue(); ++k) {
        Expr* index = IntegerLiteral::Create(context_, llvm::APInt(32, k), context_.IntTy, SourceLocation());
        auto element = [&](const Expr* array) {
          return new (context_) ArraySubscriptExpr(const_cast<Expr*>(array), index, type->getElementType(), VK_LValue,
                                                   OK_Ordinary, at);
        };
        lower_assign(stmt, element(member_ref(vd, f)), BO_Assign, element(init), block);
      }
      continue;
    }
    size_t before = block->children.size();
    lower_assign(stmt, member_ref(vd, f), BO_Assign, init, block);
    if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
      block->children.back()->definition = true;
      block->children.back()->loc = at;
      v->definition = block->children.back();
    }
  }
}

// A local struct used as a whole or whose member functions are called (a function object): one
// object in memory, its members initialised as a split struct's are, its adjoint a struct of the
// same type (whose pointer members stay null: check_carried_pointers).
void Lowering::lower_object(const VarDecl* vd, const Stmt* stmt, Node* block) {
  SourceLocation at = vd->getLocation();
  const std::string name = vd->getName().str();
  auto* record = vd->getType()->getAsCXXRecordDecl();
  Var* v = make_var(name, vd->getType(), VarKind::Local, vd, at);
  v->block = block;
  // A struct whose copy constructor does more than copy members: check_function reports its copies.
  if (!held_in_place(vd->getType()) && !own_copy_operation(vd->getType()).empty())
    return fail(at, own_copy_message(vd->getType(), "local object '" + name + "'"));
  if (!record || !(splittable(vd->getType()) || nested_plain_struct(vd->getType())) ||
      !(copied_by_members(vd->getType()) || held_in_place(vd->getType())))
    return fail(at, Diag::unsupported_local_object_type, {name});
  check_carried_pointers(vd->getType(), "local object '" + name + "'", at);
  if (!ir_.valid) return;
  std::vector<const Expr*> inits;
  if (!member_inits(vd->getType(), vd->getInit(), stmt, block, inits)) {
    if (!ir_.valid) return;
    return fail(at, Diag::unsupported_initialising_object_way, {name});
  }
  if (!point_into(new_ref(vd), inits, at)) return;
  size_t i = 0;
  for (const FieldDecl* f : record_fields(record)) assign_member(member_ref(vd, f), inits[i++], stmt, block);
}

// The adjoint of a struct in memory that is no parameter (a local object, a call's result, an
// element of a local array) has null pointer members, and the reverse sweep's copy of a pointer to
// a local is not the forward's: such pointer members may only be carried along (assigned, copied
// member to member), never read (dereferenced, compared, passed on) by the function or a function
// it calls. Reported at the first read, found once per function for every pointer member (by
// declaration: reads through other structs of the type count too). A split struct's pointer member
// (`s.p`) is a local pointer with a region of its own: reading it reads no struct in memory, but
// assigning it another struct's pointer member reads that one.
void Lowering::check_carried_pointers(QualType t, const std::string& what, SourceLocation at) {
  std::vector<const FieldDecl*> pointers;
  pointer_members(t, pointers);
  if (pointers.empty()) return;
  if (!pointer_reads_) {
    pointer_reads_.emplace();
    std::set<const FunctionDecl*> seen;
    std::function<void(const Stmt*)> walk;
    // A pointer member assigned, or copied into one, is carried: only its base is read.
    auto carried = [&](const Expr* e) {
      auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
      if (!m || !m->getType()->isPointerType()) return false;
      walk(m->getBase());
      return true;
    };
    // A member of a split struct built here (not copied from a struct in memory, whose pointer
    // members it would carry).
    auto split_member = [&](const Expr* e) {
      auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
      auto* ref = m && !m->isArrow() ? dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts()) : nullptr;
      auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (!vd || !split_.count(vd)) return false;
      const Expr* init = vd->getInit() ? strip(vd->getInit(), ir_.unit) : nullptr;
      if (auto* cast = dyn_cast_or_null<CXXFunctionalCastExpr>(init)) init = strip(cast->getSubExpr(), ir_.unit);
      return !init || isa<InitListExpr, CXXParenListInitExpr, CXXConstructExpr, DeclRefExpr>(init);
    };
    walk = [&](const Stmt* s) {
      if (!s) return;
      if (auto* b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == BO_Assign && carried(b->getLHS())) {
        if (split_member(b->getLHS()) || !carried(b->getRHS())) walk(b->getRHS());
        return;
      }
      if (auto* m = dyn_cast<MemberExpr>(s))
        if (auto* f = dyn_cast<FieldDecl>(m->getMemberDecl()); f && f->getType()->isPointerType() && !split_member(m))
          pointer_reads_->emplace(f, m);
      const FunctionDecl* callee = nullptr;
      if (auto* call = dyn_cast<CallExpr>(s)) callee = call->getDirectCallee();
      if (auto* construct = dyn_cast<CXXConstructExpr>(s)) callee = construct->getConstructor();
      if (auto* lambda = dyn_cast<LambdaExpr>(s)) walk(lambda->getBody());
      const FunctionDecl* definition = nullptr;
      // Copies and assignments the compiler defines carry pointer members along.
      if (callee && !is_library(callee) && !callee->isDefaulted() && callee->hasBody(definition) &&
          seen.insert(definition).second) {
        if (auto* ctor = dyn_cast<CXXConstructorDecl>(definition))
          for (const CXXCtorInitializer* ci : ctor->inits())
            if (!ci->getMember() || !ci->getMember()->getType()->isPointerType() || !carried(ci->getInit()))
              walk(ci->getInit());
        walk(definition->getBody());
      }
      for (const Stmt* c : s->children()) walk(c);
    };
    seen.insert(ir_.fn);
    walk(ir_.fn->getBody());
  }
  for (const FieldDecl* f : pointers)
    if (auto it = pointer_reads_->find(f); it != pointer_reads_->end()) {
      const SourceLocation read = it->second->getExprLoc();
      pointer_reads_->erase(it);  // reported once, for the first object of the type
      return fail(read, Diag::pointer_member_read_of_carried_struct,
                  {f->getName().str(), what, std::to_string(context_.getSourceManager().getPresumedLineNumber(at))});
    }
}

// `lhs = value` for a struct (an assignment, a struct result): member by member.
void Lowering::lower_struct_assign(const Stmt* stmt, const Expr* lhs, const Expr* value, Node* block) {
  QualType type = lhs->getType();
  std::vector<const Expr*> inits;
  if (!member_inits(type, value, stmt, block, inits))
    return fail(value->getExprLoc(), Diag::unsupported_value_struct_type, {type.getUnqualifiedType().getAsString()});
  if (!point_into(lhs, inits, value->getExprLoc())) return;
  // `r = V{r.y, r.x}`: assigned member by member, the second would read the first's new value, so
  // the value is built in a local struct first.
  const std::vector<const FieldDecl*> fields = record_fields(type->getAsRecordDecl());
  // Only a value built from member values (braces, a constructor) reads other members: a struct
  // copied member by member reads each member before writing it, and a call's result is its own.
  const Expr* built_from = strip(value, ir_.unit);
  if (auto* cast = dyn_cast<CXXFunctionalCastExpr>(built_from)) built_from = strip(cast->getSubExpr(), ir_.unit);
  auto* construct = dyn_cast<CXXConstructExpr>(built_from);
  if ((isa<InitListExpr, CXXParenListInitExpr>(built_from) ||
       (construct && !construct->getConstructor()->isCopyOrMoveConstructor())) &&
      std::count_if(inits.begin(), inits.end(), [](const Expr* e) { return e != nullptr; }) > 1 &&
      std::any_of(inits.begin(), inits.end(), [&](const Expr* e) { return e && may_read_target(lhs, e); })) {
    VarDecl* built = synthesized("_value", type.getUnqualifiedType(), value->getExprLoc());
    built->setInit(const_cast<Expr*>(value));
    split_.insert(built);
    lower_split_struct(built, stmt, block);
    return lower_struct_assign(stmt, lhs, new_ref(built), block);
  }
  size_t i = 0;
  for (const FieldDecl* f : fields) {
    Expr* target = MemberExpr::CreateImplicit(context_, const_cast<Expr*>(lhs), false, const_cast<FieldDecl*>(f),
                                              f->getType(), VK_LValue, OK_Ordinary);
    const Expr* init = inits[i++];
    assign_member(target, init ? init : zero_of(f->getType()), stmt, block);
  }
}

// Whether `e` may read memory that assigning `lhs` writes: lhs is reached through a pointer or
// reference, or e names the variable lhs is part of (`r` of `r.x`, `a` of `a[i].x`) or reads
// through any pointer or reference (which may point into it: `pr->y` after `V* pr = &r`).
bool Lowering::may_read_target(const Expr* lhs, const Expr* e) {
  const VarDecl* root = nullptr;
  for (const Expr* x = lhs->IgnoreParenImpCasts(); x;) {
    if (auto* m = dyn_cast<MemberExpr>(x); m && !m->isArrow()) x = m->getBase()->IgnoreParenImpCasts();
    else if (auto* a = dyn_cast<ArraySubscriptExpr>(x); a && a->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
      x = a->getBase()->IgnoreParenImpCasts();
    else {
      auto* ref = dyn_cast<DeclRefExpr>(x);
      root = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      break;
    }
  }
  if (!root || root->getType()->isReferenceType()) return true;  // `*p = V{r.y, r.x}` with p = &r
  bool reads = false;
  walk_statements(e, [&](const Stmt* s) {
    if (reads) return false;
    if (auto* ref = dyn_cast<DeclRefExpr>(s))
      if (auto* vd = dyn_cast<VarDecl>(ref->getDecl()); vd && (vd == root || vd->getType()->isReferenceType()))
        reads = true;
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_Deref) reads = true;
    if (auto* m = dyn_cast<MemberExpr>(s); m && m->isArrow()) reads = true;
    if (auto* a = dyn_cast<ArraySubscriptExpr>(s); a && a->getBase()->IgnoreParenImpCasts()->getType()->isPointerType())
      reads = true;
    return true;
  });
  return reads;
}

// `v` as member `f` of local struct `vd`; a number member passed by address or non-const reference
// is a one-element region.
void Lowering::add_member_var(const VarDecl* vd, const FieldDecl* f, Var* v) {
  if (!v->pointer && !v->memory && addressed_members_.count({vd, f})) {
    v->floating = false;
    v->memory = true;
  }
  ir_.member_var[{vd, f}] = v;
}

// A lambda with captures (closures.hpp): each capture by copy of a number, pointer or array becomes
// a local (`f_k`) set from what it copies where the lambda is declared, as a split struct's member,
// which the calls pass to the lambda's function (a copy of a struct is a local of its own, declared
// with the lambda by rewrite_closure_calls). A lambda whose captures adjc does not model is
// reported at its calls.
void Lowering::lower_closure(const VarDecl* vd, const Stmt* stmt, Node* block) {
  const ClosureFunction& c = closure_function(vd->getType()->getAsCXXRecordDecl(), ir_.unit, context_);
  const LambdaExpr* lambda = closure_lambda(vd);
  if (!c.fn || !lambda) return;
  SourceLocation at = vd->getLocation();
  for (const ClosureCapture& k : c.captures) {
    if (!k.by_copy || k.field->getType()->isRecordType()) continue;
    const Expr* value = lambda->capture_init_begin()[k.index];
    Var* v = make_var(vd->getName().str() + "_" + k.var->getName().str(), k.field->getType(), VarKind::Local, nullptr,
                      at);
    v->block = block;
    add_member_var(vd, k.field, v);  // a copy a mutable lambda changes is passed by reference
    if (auto* array = dyn_cast<ArrayInitLoopExpr>(value)) {
      assign_member(member_ref(vd, k.field), array->getCommonExpr()->getSourceExpr(), stmt, block);
      continue;
    }
    if (v->pointer) {
      v->base = pointer_base(value);
      v->root = memory_root(ir_, value);
      if (!v->base || !v->root)
        return fail(value->getBeginLoc(), Diag::captured_pointer_target_unknown,
                    {k.var->getName().str(), vd->getName().str()});
    }
    size_t before = block->children.size();
    lower_assign(stmt, member_ref(vd, k.field), BO_Assign, value, block);
    if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
      block->children.back()->definition = true;
      block->children.back()->loc = at;
      v->definition = block->children.back();
    }
  }
}

// `target = init` for one member (nothing when `init` is null); an array member from a braced list, or
// element by element from another array (in a loop when it has more than 64 numbers).
void Lowering::assign_member(Expr* target, const Expr* init, const Stmt* stmt, Node* block) {
  if (!init) return;
  if (target->getType()->isRecordType() && !is_value_class(target->getType(), ir_.unit))
    return lower_struct_assign(stmt, target, init, block);  // a struct member: member by member
  auto* array = dyn_cast<ConstantArrayType>(target->getType().getCanonicalType());
  if (!array) return lower_assign(stmt, target, BO_Assign, init, block);
  if (auto* list = dyn_cast<InitListExpr>(strip(init, ir_.unit))) return lower_array_elements(target, list, stmt, block);
  uint64_t count = array->getSize().getZExtValue();
  QualType element = array->getElementType();
  if (!memory_root(ir_, init) || (context_.getConstantArrayElementCount(array) > 64 && !element->isFloatingType()))
    return fail(init->getBeginLoc(), Diag::unsupported_copying_array_member_more_64);
  if (count > 64) return copy_array_in_loop(target, init, count, stmt, block);
  for (uint64_t k = 0; k < count; ++k) {
    auto index = [&] { return IntegerLiteral::Create(context_, llvm::APInt(32, k), context_.IntTy, SourceLocation()); };
    auto* to = new (context_) ArraySubscriptExpr(target, index(), element, VK_LValue, OK_Ordinary, SourceLocation());
    auto* from = new (context_) ArraySubscriptExpr(const_cast<Expr*>(init), index(), element, VK_LValue, OK_Ordinary,
                                                   SourceLocation());
    if (element->isConstantArrayType()) assign_member(to, from, stmt, block);  // a row of an array of arrays
    else lower_assign(stmt, to, BO_Assign, from, block);
  }
}

// `for (long _i = 0; _i < count; ++_i) target[_i] = init[_i];`: a long array member of numbers
// copied (a struct of per-point values returned or assigned whole).
void Lowering::copy_array_in_loop(Expr* target, const Expr* init, uint64_t count, const Stmt* stmt, Node* block) {
  SourceLocation at = stmt->getBeginLoc();
  QualType element = cast<ConstantArrayType>(target->getType().getCanonicalType())->getElementType();
  VarDecl* counter = loop_counter(nullptr, at);
  Node* loop = open_counted_loop(counter, const_cast<Expr*>(int_literal(int(count), context_.LongTy)), stmt, stmt);
  auto element_of = [&](const Expr* array) {
    return new (context_) ArraySubscriptExpr(const_cast<Expr*>(array), const_cast<Expr*>(rvalue(counter)), element,
                                             VK_LValue, OK_Ordinary, at);
  };
  lower_assign(stmt, element_of(target), BO_Assign, element_of(init), loop->body);
  close_element_loop(loop, block);
}

// Struct temporaries passed to calls (`dot(V3{x, y, z}, a)`, `Scaler<float>{2.f}(x)`,
// `f(std::make_pair(a, b))`): each becomes a local object initialised where the temporary was, and
// the call receives that object (edited in the AST in place, as lower_branches does). So does a
// number read from memory the call writes (`step(y, y[n - 1])`): the reverse passes the pullback
// its arguments again, after the call has overwritten that memory, so the call receives a local
// copy of the value instead.
void Lowering::materialize_temporaries(Expr* e, Node* block, const Stmt* stmt) {
  if (!e) return;
  for (Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) materialize_temporaries(ce, block, stmt);
  auto* call = dyn_cast<CallExpr>(e);
  if (!call || !call->getDirectCallee() || ir_.hoisted.count(call)) return;
  auto temporary = [&](const Expr* a) {
    const Expr* s = strip(a, ir_.unit);
    auto* record = s->getType()->getAsCXXRecordDecl();
    return (isa<InitListExpr>(s) || isa<CXXParenListInitExpr>(s) || isa<CXXFunctionalCastExpr>(s) ||
            isa<CXXConstructExpr>(s) || is_make_pair(s)) &&
           record &&
           !record->isLambda() && splittable(s->getType()) && copied_by_members(s->getType()) &&
           !is_library_class(s->getType(), ir_.unit);
  };
  auto local = [&](const Expr* a) -> Expr* {
    const Expr* s = strip(a, ir_.unit);
    VarDecl* vd = synthesized("_" + s->getType()->getAsCXXRecordDecl()->getName().str(),
                              s->getType().getUnqualifiedType(), a->getBeginLoc());
    vd->setInit(const_cast<Expr*>(s));
    lower_object(vd, stmt, block);
    return const_cast<Expr*>(new_ref(vd));
  };
  for (unsigned i = 0; i < call->getNumArgs(); ++i)
    if (temporary(call->getArg(i))) call->setArg(i, local(call->getArg(i)));
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call))
    if (auto* m = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens()); m && !m->isArrow() && temporary(m->getBase()))
      m->setBase(local(m->getBase()));
  copy_arguments_the_call_overwrites(call, block, stmt);
}

void Lowering::copy_arguments_the_call_overwrites(CallExpr* call, Node* block, const Stmt* stmt) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (callee_kind(callee, ir_.unit) == CalleeKind::Plain) return;
  // call->getArg(i) is the callee's parameter i - shift (a member operator's object comes first).
  const unsigned shift = isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(callee) ? 1 : 0;
  auto param_of = [&](unsigned i) { return i >= shift && i - shift < callee->getNumParams() ? callee->getParamDecl(i - shift) : nullptr; };
  std::vector<const Var*> written;
  for (unsigned i = 0; i < call->getNumArgs(); ++i)
    if (const ParmVarDecl* p = param_of(i); p && is_written_param(p->getType()))
      if (const Var* region = memory_root(ir_, call->getArg(i))) written.push_back(region);
  if (auto* method = dyn_cast<CXXMethodDecl>(callee); method && with_object(method) && !method->isConst())
    if (const Var* region = memory_root(ir_, ad_args(call).front().expr)) written.push_back(region);
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    const ParmVarDecl* p = param_of(i);
    if (!p || p->getType()->isReferenceType() || !p->getType()->isArithmeticType()) continue;
    const Expr* arg = call->getArg(i);
    if (std::none_of(written.begin(), written.end(), [&](const Var* r) { return reads_value_of(ir_, arg, r); })) continue;
    const VarDecl* copy = new_local("_arg", arg->getType().getUnqualifiedType(), arg->getBeginLoc(), block);
    define(copy, arg, stmt, block);
    call->setArg(i, const_cast<Expr*>(rvalue(copy)));
  }
}

// `T a[N] = {x, y}`: the local array, then one assignment per element given (the rest are zero,
// as every local starts).
void Lowering::lower_array_init(const VarDecl* vd, const InitListExpr* list, const Stmt* stmt, Node* block) {
  Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, vd->getLocation());
  v->block = block;
  lower_array_elements(const_cast<Expr*>(new_ref(vd)), list, stmt, block);
}

static bool has_member_initialisers(QualType t) {
  const RecordDecl* record = t->getAsRecordDecl();
  return record && std::any_of(record->field_begin(), record->field_end(),
                               [](const FieldDecl* f) { return f->hasInClassInitializer(); });
}

void Lowering::lower_array_elements(Expr* array, const InitListExpr* list, const Stmt* stmt, Node* block) {
  auto* type = cast<ConstantArrayType>(array->getType().getCanonicalType());
  QualType element = type->getElementType();
  // The elements not given are zero; locals start zero, so only a declaration that runs again
  // (in a loop), or of structs whose members have initialisers, assigns them.
  const bool every_element = !loops_.empty() || has_member_initialisers(context_.getBaseElementType(type));
  uint64_t count = every_element ? type->getSize().getZExtValue() : list->getNumInits();
  if (count - list->getNumInits() > 64)
    return fail(list->getBeginLoc(), Diag::unsupported_partly_initialised_array_in_loop);
  for (unsigned i = 0; i < count; ++i) {
    const Expr* e = i < list->getNumInits() ? list->getInit(i) : nullptr;
    Expr* index = IntegerLiteral::Create(context_, llvm::APInt(32, i), context_.IntTy, SourceLocation());
    SourceLocation at = e ? e->getBeginLoc() : list->getBeginLoc();
    auto* target = new (context_) ArraySubscriptExpr(array, index, element, VK_LValue, OK_Ordinary, at);
    // A row of a multi-dimensional array (`{{x, y}, {x * y, 1}}`); a row not given is zero.
    if (element->isConstantArrayType()) {
      const InitListExpr* row = e ? dyn_cast<InitListExpr>(strip(e, ir_.unit)) : nullptr;
      if (!row && e && !isa<ImplicitValueInitExpr>(e)) return fail(at, Diag::unsupported_initialiser_array_row);
      if (!row) {
        if (!every_element) continue;
        row = empty_list(element, at);
      }
      lower_array_elements(target, row, stmt, block);
      if (!ir_.valid) return;
      continue;
    }
    // A struct element (`{{w, v}, S{a, b}, other}`): member by member, as a local struct.
    if (element->isRecordType()) {
      if (e && isa<ImplicitValueInitExpr>(e)) e = nullptr;
      std::vector<const Expr*> members;
      if (!member_inits(element, e, stmt, block, members)) {
        if (ir_.valid) fail(at, Diag::unsupported_initialiser_array_element);
        return;
      }
      if (!point_into(target, members, at)) return;
      size_t i_member = 0;
      for (const FieldDecl* f : record_fields(element->getAsRecordDecl())) {
        const Expr* value = members[i_member++];
        auto* member = MemberExpr::CreateImplicit(context_, target, false, const_cast<FieldDecl*>(f), f->getType(),
                                                  VK_LValue, OK_Ordinary);
        if (f->getType()->isConstantArrayType()) {  // an array member: its elements given, or zero
          const InitListExpr* elements = value ? dyn_cast<InitListExpr>(strip(value, ir_.unit)) : nullptr;
          if (value && !elements) return fail(value->getBeginLoc(), Diag::unsupported_initialiser_array_member);
          if (!elements) elements = empty_list(f->getType(), at);
          lower_array_elements(member, elements, stmt, block);
          if (!ir_.valid) return;
          continue;
        }
        if (!value && every_element)
          value = f->getType()->isRecordType() ? empty_list(f->getType(), at) : zero_of(f->getType());
        if (!value) continue;
        assign_member(member, value, stmt, block);
        if (!ir_.valid) return;
      }
      continue;
    }
    if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(element);
    if (!e) continue;
    if (isa<InitListExpr>(strip(e, ir_.unit)))
      return fail(e->getBeginLoc(), Diag::unsupported_nested_initialiser_lists);
    lower_assign(stmt, target, BO_Assign, e, block);
  }
}

}  // namespace adjc
