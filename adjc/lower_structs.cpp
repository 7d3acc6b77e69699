// Lowering of local structs and arrays: structs used through their members split into one
// variable per member, function objects kept whole, braced initialisation (lowering.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>
#include <functional>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

// Local structs whose every use is a member `s.x` of a scalar, pointer or array member: each
// member becomes a variable of its own (`s_x`), so a struct of pointers into parameters is a set
// of local pointers, and each member is a region of its own.
void Lowering::find_split_structs(const Stmt* body) {
  std::set<const VarDecl*> whole;
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
    if (const VarDecl* vd = local(object)) {
      objects_.insert(vd);
      for (const Stmt* c : s->children())
        if (c != object && !(isa<MemberExpr>(c) && cast<MemberExpr>(c)->getBase() == object)) walk(c);
      return;
    }
    // A floating local, or a floating member of a local struct, whose address is taken or that a call
    // writes through a reference: a one-element region.
    auto addressed = [&](const Expr* e) {
      if (const VarDecl* vd = local(e); vd && is_floating(vd->getType())) addressed_.insert(vd);
      auto* m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts());
      auto* field = m && !m->isArrow() ? dyn_cast<FieldDecl>(m->getMemberDecl()) : nullptr;
      if (const VarDecl* vd = field ? local(m->getBase()) : nullptr; vd && is_floating(field->getType()))
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
        if (auto* vd = dyn_cast<VarDecl>(d)) {
          if (vd->isLocalVarDecl() && splittable(vd->getType())) split_.insert(vd);
          const Expr* init = vd->getInit() ? strip(vd->getInit(), ir_.unit) : nullptr;
          auto* c = dyn_cast_or_null<CXXConstructExpr>(init);
          auto* ref = c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor()
                          ? dyn_cast<DeclRefExpr>(strip(c->getArg(0), ir_.unit))
                          : nullptr;
          if (auto* from = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr) copies.push_back({vd, from});
          else walk(vd->getInit());
        }
      return;
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  for (const VarDecl* vd : whole) split_.erase(vd);
  for (const VarDecl* vd : objects_) split_.erase(vd);
  for (const VarDecl* vd : whole) objects_.erase(vd);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [to, from] : copies)
      if (split_.count(to) != split_.count(from)) {
        split_.erase(to);
        split_.erase(from);
        changed = true;
      }
  }
}

bool Lowering::splittable(QualType t) {
  auto* record = t->getAsRecordDecl();
  if (!record || is_value_class(t, ir_.unit) || is_container(t) || record->isUnion() || t->isReferenceType()) return false;
  if (auto* cxx = dyn_cast<CXXRecordDecl>(record); cxx && (cxx->isLambda() || cxx->isPolymorphic() || cxx->getNumBases() > 0))
    return false;
  for (const FieldDecl* f : record->fields()) {
    QualType ft = f->getType().getCanonicalType();
    if (f->isBitField() || ft->isReferenceType()) return false;
    if (auto* array = dyn_cast<ConstantArrayType>(ft)) ft = array->getElementType().getCanonicalType();
    if (!ft->isArithmeticType() && !ft->isPointerType()) return false;
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

// A member `s.x` of local `vd` as an expression.
Expr* Lowering::member_ref(const VarDecl* vd, const FieldDecl* f) {
  return MemberExpr::CreateImplicit(context_, const_cast<Expr*>(new_ref(vd)), false, const_cast<FieldDecl*>(f),
                                    f->getType(), VK_LValue, OK_Ordinary);
}

// The value each member of a struct initialised by `init` starts with (nullptr: zero, as every
// local starts): an initialiser list (designated or not), a constructor whose members are
// initialised from its parameters or constants and whose body is empty, or a copy of another
// split struct.
bool Lowering::member_inits(const VarDecl* vd, const Expr* init, std::vector<const Expr*>& out) {
  const RecordDecl* record = vd->getType()->getAsRecordDecl();
  std::vector<const FieldDecl*> fields(record->field_begin(), record->field_end());
  out.assign(fields.size(), nullptr);
  auto in_class = [&](size_t i) {
    if (fields[i]->hasInClassInitializer()) out[i] = fields[i]->getInClassInitializer();
  };
  if (!init) {
    for (size_t i = 0; i < fields.size(); ++i) in_class(i);
    return true;
  }
  init = strip(init, ir_.unit);
  if (auto* cast = dyn_cast<CXXFunctionalCastExpr>(init)) init = strip(cast->getSubExpr(), ir_.unit);
  if (auto* list = dyn_cast<InitListExpr>(init)) {
    for (size_t i = 0; i < fields.size(); ++i) {
      const Expr* e = i < list->getNumInits() ? list->getInit(i) : nullptr;
      if (auto* inner = e ? dyn_cast<InitListExpr>(strip(e, ir_.unit)) : nullptr;  // `{}` or `{v}` for a scalar member
          inner && inner->getNumInits() <= 1 && !fields[i]->getType()->isArrayType())
        e = inner->getNumInits() == 1 ? inner->getInit(0) : nullptr;
      if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(fields[i]->getType());
      if (!e) continue;
      if (auto* d = dyn_cast<CXXDefaultInitExpr>(e)) e = d->getExpr();
      out[i] = e;
    }
    return true;
  }
  auto* construct = dyn_cast<CXXConstructExpr>(init);
  if (!construct) return false;
  const CXXConstructorDecl* ctor = construct->getConstructor();
  if (ctor->isCopyOrMoveConstructor()) {
    const Expr* from = strip(construct->getArg(0), ir_.unit);
    auto* ref = dyn_cast<DeclRefExpr>(from);
    auto* other = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (other && split_.count(other)) {
      for (size_t i = 0; i < fields.size(); ++i) out[i] = member_ref(other, fields[i]);
      return true;
    }
    // A copy of a struct in memory (`S s = samples[i];`): member by member.
    if (!memory_root(ir_, from)) return false;
    for (size_t i = 0; i < fields.size(); ++i)
      out[i] = MemberExpr::CreateImplicit(context_, const_cast<Expr*>(from), false, const_cast<FieldDecl*>(fields[i]),
                                          fields[i]->getType(), VK_LValue, OK_Ordinary);
    return true;
  }
  if (ctor->isDefaultConstructor() && ctor->isTrivial()) {
    for (size_t i = 0; i < fields.size(); ++i) in_class(i);
    return true;
  }
  const FunctionDecl* definition = nullptr;
  if (!ctor->hasBody(definition)) return false;
  ctor = cast<CXXConstructorDecl>(definition);
  auto* body = dyn_cast_or_null<CompoundStmt>(ctor->getBody());
  if (!body || !body->body_empty()) return false;
  for (const CXXCtorInitializer* ci : ctor->inits()) {
    const FieldDecl* f = ci->getMember();
    if (!f) return false;
    size_t i = std::find(fields.begin(), fields.end(), f) - fields.begin();
    const Expr* e = strip(ci->getInit(), ir_.unit);
    if (auto* d = dyn_cast<CXXDefaultInitExpr>(e)) {
      out[i] = d->getExpr();
      continue;
    }
    if (isa<ImplicitValueInitExpr>(e)) continue;
    if (auto* paren = dyn_cast<ParenListExpr>(e); paren && paren->getNumExprs() == 1)
      e = strip(paren->getExpr(0), ir_.unit);
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      auto* p = dyn_cast<ParmVarDecl>(ref->getDecl());
      if (!p) return false;
      out[i] = construct->getArg(p->getFunctionScopeIndex());
      continue;
    }
    if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e)) {
      out[i] = e;
      continue;
    }
    return false;
  }
  return true;
}

void Lowering::lower_split_struct(const VarDecl* vd, const Stmt* stmt, Node* block) {
  SourceLocation at = vd->getLocation();
  std::vector<const Expr*> inits;
  if (!member_inits(vd, vd->getInit(), inits))
    return fail(at, "initialising struct '" + vd->getName().str() +
                        "' this way is not supported; use an initialiser list ({a, b} or {.x = a}), or a "
                        "constructor that only initialises members from its parameters");
  const RecordDecl* record = vd->getType()->getAsRecordDecl();
  size_t i = 0;
  for (const FieldDecl* f : record->fields()) {
    const Expr* init = inits[i++];
    Var* v = make_var(vd->getName().str() + "_" + f->getName().str(), f->getType(), VarKind::Local, nullptr, at);
    v->block = block;
    if (v->floating && addressed_members_.count({vd, f})) {
      v->floating = false;
      v->memory = true;  // passed by address or non-const reference: a one-element region
    }
    ir_.member_var[{vd, f}] = v;
    if (v->pointer) {
      if (!init)
        return fail(at, "pointer member '" + f->getName().str() + "' of local struct '" + vd->getName().str() +
                            "' must be initialised where the struct is declared");
      v->base = pointer_base(init);
      v->root = memory_root(ir_, init);
      if (!v->base || !v->root)
        return fail(init->getBeginLoc(), "pointer member '" + f->getName().str() + "' of local struct '" +
                                             vd->getName().str() + "' must point into a parameter or local array");
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
        return fail(at, "unsupported initialiser of array member '" + f->getName().str() + "' of local struct '" +
                            vd->getName().str() + "'");
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

// A local struct whose member functions are called (a function object): one object in memory,
// its members initialised as a split struct's are, its adjoint a struct of the same type.
void Lowering::lower_object(const VarDecl* vd, const Stmt* stmt, Node* block) {
  SourceLocation at = vd->getLocation();
  auto* record = vd->getType()->getAsCXXRecordDecl();
  if (!record || !splittable(vd->getType()) || !(record->isAggregate() || record->hasTrivialDefaultConstructor()))
    return fail(at, "local object '" + vd->getName().str() +
                        "' must be a struct of scalar, pointer and array members with a default constructor");
  std::vector<const Expr*> inits;
  if (!member_inits(vd, vd->getInit(), inits))
    return fail(at, "initialising object '" + vd->getName().str() +
                        "' this way is not supported; use an initialiser list ({a, b} or {.x = a})");
  Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, at);
  v->block = block;
  size_t i = 0;
  for (const FieldDecl* f : record->fields()) {
    const Expr* init = inits[i++];
    if (!init) continue;
    if (f->getType()->isArrayType()) {
      auto* list = dyn_cast<InitListExpr>(strip(init, ir_.unit));
      if (!list) return fail(init->getBeginLoc(), "unsupported initialiser of array member '" + f->getName().str() + "'");
      lower_array_elements(member_ref(vd, f), list, stmt, block);
    } else {
      lower_assign(stmt, member_ref(vd, f), BO_Assign, init, block);
    }
  }
}

// `T a[N] = {x, y}`: the local array, then one assignment per element given (the rest are zero,
// as every local starts).
void Lowering::lower_array_init(const VarDecl* vd, const InitListExpr* list, const Stmt* stmt, Node* block) {
  Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, vd->getLocation());
  v->block = block;
  lower_array_elements(const_cast<Expr*>(new_ref(vd)), list, stmt, block);
}

void Lowering::lower_array_elements(Expr* array, const InitListExpr* list, const Stmt* stmt, Node* block) {
  auto* type = cast<ConstantArrayType>(array->getType().getCanonicalType());
  QualType element = type->getElementType();
  // The elements not given are zero; locals start zero, so only a declaration that runs again
  // (in a loop) assigns them.
  uint64_t count = loops_.empty() ? list->getNumInits() : type->getSize().getZExtValue();
  if (count - list->getNumInits() > 64)
    return fail(list->getBeginLoc(), "a partly initialised array of more than 64 elements inside a loop is not "
                                     "supported; zero it with a loop");
  for (unsigned i = 0; i < count; ++i) {
    const Expr* e = i < list->getNumInits() ? list->getInit(i) : nullptr;
    if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(element);
    if (!e) continue;
    if (isa<InitListExpr>(strip(e, ir_.unit)))
      return fail(e->getBeginLoc(), "nested initialiser lists are not supported; assign the elements");
    Expr* index = IntegerLiteral::Create(context_, llvm::APInt(32, i), context_.IntTy, SourceLocation());
    auto* target = new (context_) ArraySubscriptExpr(array, index, element, VK_LValue, OK_Ordinary, e->getBeginLoc());
    lower_assign(stmt, target, BO_Assign, e, block);
  }
}

}  // namespace adjc
