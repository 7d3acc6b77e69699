// Lowering of a local struct's initialisation: the value each member starts with (from a braced
// list, a pair, a copy, or a constructor's arguments), and a constructor that computes, lowered in
// place (lowering.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>

#include "lowering.hpp"
#include "walk.hpp"

namespace adjc {

using namespace clang;

namespace {

// The member's initialiser in its class (`double x = 1;`), else nullptr.
const Expr* in_class_init(const FieldDecl* f) {
  return f->hasInClassInitializer() ? f->getInClassInitializer() : nullptr;
}

// The member whose address `e` takes (`&x`, an array member `data` as a pointer), or "this" for the
// object itself, when `e` holds an address within the object the constructor builds.
std::string self_address(const Stmt* e) {
  if (!e) return "";
  auto own_member = [](const Expr* x) -> const MemberExpr* {
    auto* m = dyn_cast<MemberExpr>(x->IgnoreParens());
    return m && isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts()) ? m : nullptr;
  };
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    if (const MemberExpr* m = own_member(u->getSubExpr())) return m->getMemberDecl()->getNameAsString();
  if (auto* c = dyn_cast<ImplicitCastExpr>(e); c && c->getCastKind() == CK_ArrayToPointerDecay)
    if (const MemberExpr* m = own_member(c->getSubExpr())) return m->getMemberDecl()->getNameAsString();
  if (isa<CXXThisExpr>(e)) return "this";
  for (const Stmt* c : e->children()) {
    // `this->x` reads a member: only what the member expression then does with it counts.
    if (auto* m = dyn_cast_or_null<MemberExpr>(c); m && isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts())) continue;
    if (std::string found = self_address(c); !found.empty()) return found;
  }
  return "";
}

// The member `e` (`&this->m`, a constructor's or in-class initialiser) points a pointer member at:
// a number member of the object being built; nullptr for anything else.
const FieldDecl* own_member_address(const Expr* e) {
  auto* u = e ? dyn_cast<UnaryOperator>(e->IgnoreParenImpCasts()) : nullptr;
  auto* m = u && u->getOpcode() == UO_AddrOf ? dyn_cast<MemberExpr>(u->getSubExpr()->IgnoreParens()) : nullptr;
  if (!m || !isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts())) return nullptr;
  auto* f = dyn_cast<FieldDecl>(m->getMemberDecl());
  return f && f->getType()->isArithmeticType() ? f : nullptr;
}

// Whether lower_constructor can lower `ctor` in place for `construct`: its parameters are numbers
// and pointers by value, its body declares no variables and does not return, and its initialisers
// are of members, non-virtual bases or another constructor.
// Whether evaluating `s` may throw: a throw, new, dynamic_cast or typeid, or a call of a function
// (a constructor too) not declared noexcept.
bool may_throw(const Stmt* s) {
  bool found = false;
  walk_statements(s, [&](const Stmt* x) {
    const FunctionDecl* callee = nullptr;
    if (isa<CXXThrowExpr, CXXNewExpr, CXXDynamicCastExpr, CXXTypeidExpr>(x)) found = true;
    else if (auto* call = dyn_cast<CallExpr>(x)) found = !(callee = call->getDirectCallee());
    else if (auto* construct = dyn_cast<CXXConstructExpr>(x)) callee = construct->getConstructor();
    if (auto* proto = callee ? callee->getType()->getAs<FunctionProtoType>() : nullptr)
      found |= !proto->isNothrow() && !callee->getBuiltinID();
    return !found;
  });
  return found;
}

// The statements a constructor runs: its body, or a function-try-block's try block when neither it
// nor the member initialisers may throw (the handlers never run); nullptr for another try.
const CompoundStmt* constructor_body(const CXXConstructorDecl* ctor) {
  auto* attempt = dyn_cast_or_null<CXXTryStmt>(ctor->getBody());
  if (!attempt) return dyn_cast_or_null<CompoundStmt>(ctor->getBody());
  for (const CXXCtorInitializer* ci : ctor->inits())
    if (may_throw(ci->getInit())) return nullptr;
  return may_throw(attempt->getTryBlock()) ? nullptr : attempt->getTryBlock();
}

bool lowerable_constructor(const CXXConstructExpr* construct, const CXXConstructorDecl* ctor) {
  auto* body = constructor_body(ctor);
  if (!body || construct->getNumArgs() != ctor->getNumParams()) return false;
  for (const ParmVarDecl* p : ctor->parameters())
    if (!p->getType()->isArithmeticType() && !p->getType()->isPointerType()) return false;
  bool plain_body = true;
  walk_statements(body, [&](const Stmt* s) {
    if (isa<DeclStmt>(s) || isa<ReturnStmt>(s) || isa<CXXForRangeStmt>(s)) plain_body = false;
    return true;
  });
  for (const CXXCtorInitializer* ci : ctor->inits())
    plain_body &= ci->getMember() != nullptr || ci->isDelegatingInitializer() ||
                  (ci->isBaseInitializer() && !ci->isBaseVirtual());
  return plain_body;
}

// A pointer member the constructor sets to the object's own memory: {the pointer in words, what it
// points to ("this" or a member's name)}; {"", ""} when there is none. The object is taken apart
// into its members, so such a pointer would point into the object it was built in, not into them.
std::pair<std::string, std::string> pointer_into_object(const CXXConstructorDecl* ctor) {
  std::string pointer, target;
  for (const CXXCtorInitializer* ci : ctor->inits())
    if (ci->getMember() && ci->getMember()->getType()->isPointerType() && target.empty()) {
      const Expr* init = ci->getInit();
      if (auto* d = dyn_cast<CXXDefaultInitExpr>(init->IgnoreImplicit())) init = d->getExpr();
      target = self_address(init);
      pointer = "'" + ci->getMember()->getNameAsString() + "'";
    }
  walk_statements(ctor->getBody(), [&](const Stmt* s) {
    if (!target.empty()) return false;
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == BO_Assign && b->getType()->isPointerType()) {
      target = self_address(b->getRHS());
      pointer = "a pointer";
    }
    return true;
  });
  return {pointer, target};
}

}  // namespace

// The value each member of a struct of type `type` initialised by `init` starts with (nullptr:
// zero, as every local starts): an initialiser list (designated or not), a constructor (one whose
// members are initialised from its parameters or constants and whose body is empty gives its
// arguments; others are lowered in place, lower_constructor), a copy of a split struct, of memory,
// or of a call's result (the call hoisted before). Lowers what it must before the statement.
bool Lowering::member_inits(QualType type, const Expr* init, const Stmt* stmt, Node* block,
                            std::vector<const Expr*>& out) {
  std::vector<const FieldDecl*> fields = record_fields(type->getAsRecordDecl());
  out.assign(fields.size(), nullptr);
  if (!init) {
    for (size_t i = 0; i < fields.size(); ++i) out[i] = in_class_init(fields[i]);
    return true;
  }
  init = strip(init, ir_.unit);
  if (auto* cast = dyn_cast<CXXFunctionalCastExpr>(init)) init = strip(cast->getSubExpr(), ir_.unit);
  if (isa<InitListExpr>(init) || isa<CXXParenListInitExpr>(init))
    return listed_member_inits(type->getAsRecordDecl(), init, stmt, block, out);
  if (is_number_pair(type) && pair_member_inits(init, fields, out)) return true;
  // A copy of a call's result (`S c = a + b;`, `c = make(x)`): the call is hoisted into a temporary.
  if (isa<CallExpr>(init)) {
    init = strip(lower_operands(init, block, stmt), ir_.unit);
    if (!isa<CallExpr>(init) || !ir_.call_result.count(cast<CallExpr>(init))) return false;
  }
  if (auto* construct = dyn_cast<CXXConstructExpr>(init))
    return constructed_member_inits(construct, fields, stmt, block, out);
  // A copy of a split struct, or of a struct in memory (`S s = samples[i];`, an object, a call's
  // result): member by member.
  auto* ref = dyn_cast<DeclRefExpr>(init);
  auto* other = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (other && split_.count(other)) {
    for (size_t i = 0; i < fields.size(); ++i) out[i] = member_ref(other, fields[i]);
    return true;
  }
  if (!memory_root(ir_, init)) return false;
  for (size_t i = 0; i < fields.size(); ++i)
    out[i] = MemberExpr::CreateImplicit(context_, const_cast<Expr*>(init), false, const_cast<FieldDecl*>(fields[i]),
                                        fields[i]->getType(), VK_LValue, OK_Ordinary);
  return true;
}

// The pointer members `init` (a local struct's initialiser) has its constructor, or its members'
// own initialisers, point at other members (`x_pointer(&x)`): {pointer member, member}.
std::vector<std::pair<const FieldDecl*, const FieldDecl*>> own_addressed_members(const Expr* init) {
  std::vector<std::pair<const FieldDecl*, const FieldDecl*>> out;
  auto* construct = init ? dyn_cast<CXXConstructExpr>(init->IgnoreImplicit()) : nullptr;
  const FunctionDecl* definition = nullptr;
  if (!construct || !construct->getConstructor()->hasBody(definition)) return out;
  for (const CXXCtorInitializer* ci : cast<CXXConstructorDecl>(definition)->inits()) {
    const Expr* e = ci->getInit() ? ci->getInit()->IgnoreImplicit() : nullptr;
    if (auto* d = dyn_cast_or_null<CXXDefaultInitExpr>(e)) e = d->getExpr();
    if (const FieldDecl* f = own_member_address(e)) out.push_back({ci->getMember(), f});
  }
  return out;
}

// The members of `object` (a local struct, an element, a result) that `inits` (member_inits) point
// at another of its members (`&this->x`, `x_pointer(&x)`), pointed at `object`'s member instead; a
// split struct's member must then be a region of its own (find_split_structs). False, reported,
// when it is not.
bool Lowering::point_into(const Expr* object, std::vector<const Expr*>& inits, SourceLocation at) {
  const std::vector<const FieldDecl*> fields = record_fields(object->getType()->getAsRecordDecl());
  for (size_t i = 0; i < inits.size() && i < fields.size(); ++i) {
    const Expr*& init = inits[i];
    const FieldDecl* f = own_member_address(init);
    if (!f) continue;
    Expr* member = MemberExpr::CreateImplicit(context_, const_cast<Expr*>(object), false, const_cast<FieldDecl*>(f),
                                              f->getType(), VK_LValue, OK_Ordinary);
    if (Var* v = ir_.var(member); v && !v->memory) {
      fail(at, Diag::constructor_points_into_object,
           {f->getParent()->getNameAsString(), "'" + fields[i]->getNameAsString() + "'",
            "its own member '" + f->getNameAsString() + "'"});
      return false;
    }
    init = UnaryOperator::Create(context_, member, UO_AddrOf, context_.getPointerType(f->getType()), VK_PRValue,
                                 OK_Ordinary, at, false, FPOptionsOverride());
  }
  return true;
}

// `{a, b}`, or C++20's `S(a, b)` of an aggregate. The bases' initialisers come first
// (`Derived d{{a}, b}`), each giving its inherited members.
bool Lowering::listed_member_inits(const RecordDecl* record, const Expr* init, const Stmt* stmt, Node* block,
                                   std::vector<const Expr*>& out) {
  std::vector<const FieldDecl*> fields = record_fields(record);
  std::vector<const Expr*> given;
  if (auto* list = dyn_cast<InitListExpr>(init)) given.assign(list->inits().begin(), list->inits().end());
  if (auto* paren = dyn_cast<CXXParenListInitExpr>(init))
    given.assign(paren->getUserSpecifiedInitExprs().begin(), paren->getUserSpecifiedInitExprs().end());
  size_t first_own = 0, bases = 0;
  if (auto* cxx = dyn_cast<CXXRecordDecl>(record))
    for (const CXXBaseSpecifier& base : cxx->bases()) {
      const Expr* e = bases < given.size() ? given[bases] : nullptr;
      ++bases;
      if (!e || isa<ImplicitValueInitExpr>(e)) e = empty_list(base.getType(), init->getBeginLoc());
      std::vector<const Expr*> inherited;
      if (!member_inits(base.getType(), e, stmt, block, inherited)) return false;
      std::copy(inherited.begin(), inherited.end(), out.begin() + first_own);
      first_own += inherited.size();
    }
  for (size_t i = first_own; i < fields.size(); ++i) {
    const size_t k = i - first_own + bases;
    const Expr* e = k < given.size() ? given[k] : nullptr;
    if (auto* inner = e ? dyn_cast<InitListExpr>(strip(e, ir_.unit)) : nullptr;  // `{}` or `{v}` for a scalar member
        inner && inner->getNumInits() <= 1 && !fields[i]->getType()->isArrayType() &&
        !fields[i]->getType()->isRecordType())
      e = inner->getNumInits() == 1 ? inner->getInit(0) : nullptr;
    if ((!e || isa<ImplicitValueInitExpr>(e)) && fields[i]->getType()->isRecordType())
      e = empty_list(fields[i]->getType(), init->getBeginLoc());  // a struct member: its members zero
    if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(fields[i]->getType());
    if (!e) continue;
    if (auto* d = dyn_cast<CXXDefaultInitExpr>(e)) e = d->getExpr();
    out[i] = e;
  }
  return true;
}

// A number pair from two values (`pair(a, b)`, `{a, b}`, `std::make_pair(a, b)`) or from none;
// false for another initialisation of a pair.
bool Lowering::pair_member_inits(const Expr* init, const std::vector<const FieldDecl*>& fields,
                                 std::vector<const Expr*>& out) {
  auto* construct = dyn_cast<CXXConstructExpr>(init);
  if (is_make_pair(init) || (construct && construct->getNumArgs() == 2)) {
    auto* call = dyn_cast<CallExpr>(init);
    out = {call ? call->getArg(0) : construct->getArg(0), call ? call->getArg(1) : construct->getArg(1)};
    return true;
  }
  if (!construct || construct->getNumArgs() != 0) return false;
  out = {zero_of(fields[0]->getType()), zero_of(fields[1]->getType())};
  return true;
}

// A struct a constructor builds: a trivial default constructor gives the members' own initialisers
// (zero for `S()`), a constructor that only copies its arguments and constants gives those, and any
// other is lowered in place (lower_constructor).
bool Lowering::constructed_member_inits(const CXXConstructExpr* construct, const std::vector<const FieldDecl*>& fields,
                                        const Stmt* stmt, Node* block, std::vector<const Expr*>& out) {
  const CXXConstructorDecl* ctor = construct->getConstructor();
  if (ctor->isDefaultConstructor() && ctor->isTrivial()) {
    for (size_t i = 0; i < fields.size(); ++i) {
      out[i] = in_class_init(fields[i]);
      if (!out[i] && construct->requiresZeroInitialization()) out[i] = zero_of(fields[i]->getType());  // `S()`
    }
    return true;
  }
  const FunctionDecl* definition = nullptr;
  if (!ctor->hasBody(definition)) return false;
  if (inits_from_arguments(construct, cast<CXXConstructorDecl>(definition), fields, out)) return true;
  out.assign(fields.size(), nullptr);
  return lower_constructor(construct, stmt, block, out);
}

// The members of a constructor with an empty body whose initialisers are its parameters (giving
// the call's arguments), constants, or the members' own initialisers; false for any other.
bool Lowering::inits_from_arguments(const CXXConstructExpr* construct, const CXXConstructorDecl* ctor,
                                    const std::vector<const FieldDecl*>& fields, std::vector<const Expr*>& out) {
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
    if (isa<ImplicitValueInitExpr>(e) || empty_vector(e)) continue;
    if (auto* paren = dyn_cast<ParenListExpr>(e); paren && paren->getNumExprs() == 1)
      e = strip(paren->getExpr(0), ir_.unit);
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      auto* p = dyn_cast<ParmVarDecl>(ref->getDecl());
      if (!p) return false;
      out[i] = construct->getArg(p->getFunctionScopeIndex());
      continue;
    }
    // A constant, or the address of another member (`x_pointer(&x)`: point_into).
    if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e) || own_member_address(e)) {
      out[i] = e;
      continue;
    }
    return false;
  }
  return true;
}

// A constructor that computes (`Scaled(double v) : value(v * 2) {}`, or a body): its parameters
// become locals assigned the arguments, and its member initialisers and body are lowered in place on
// a local object of the class that stands for its `this` (one per constructor and function, so
// every `this` in it has one meaning); the members are then copied from that object. Constructors
// with parameters other than numbers and pointers by value, or whose bodies declare variables or
// return, are not lowered (false).
bool Lowering::lower_constructor(const CXXConstructExpr* construct, const Stmt* stmt, Node* block,
                                 std::vector<const Expr*>& out) {
  const FunctionDecl* definition = nullptr;
  if (!construct->getConstructor()->hasBody(definition)) return false;
  auto* ctor = cast<CXXConstructorDecl>(definition);
  if (isa_and_nonnull<CXXTryStmt>(ctor->getBody()) && !constructor_body(ctor)) {
    fail(construct->getBeginLoc(), Diag::unsupported_constructor_function_try_block,
         {ctor->getParent()->getNameAsString()});
    return false;
  }
  if (!lowerable_constructor(construct, ctor)) return false;
  const RecordDecl* record = ctor->getParent();
  if (auto [pointer, target] = pointer_into_object(ctor); !target.empty()) {
    fail(construct->getBeginLoc(), Diag::constructor_points_into_object,
         {record->getNameAsString(), pointer,
          (target == "this" ? "the object itself" : "its own member '" + target + "'")});
    return false;
  }
  const VarDecl* object = constructor_object(construct, ctor);
  if (!assign_constructor_parameters(construct, ctor, stmt, block) ||
      !lower_constructor_inits(ctor, object, stmt, block))
    return false;
  lower_compound(constructor_body(ctor), block);
  size_t i = 0;
  for (const FieldDecl* f : record_fields(record)) out[i++] = member_ref(object, f);
  return true;
}

// The local object that stands for `ctor`'s `this` in this function, made (with its parameters as
// locals) the first time the constructor is lowered.
const VarDecl* Lowering::constructor_object(const CXXConstructExpr* construct, const CXXConstructorDecl* ctor) {
  const VarDecl*& object = constructed_[ctor];
  if (object) return object;
  VarDecl* vd = synthesized("_" + ctor->getParent()->getName().str(), construct->getType().getUnqualifiedType(),
                            construct->getBeginLoc());
  Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, vd->getLocation());
  v->block = ir_.body;
  auto mark = [&](const Stmt* s) {
    if (auto* t = dyn_cast<CXXThisExpr>(s)) ir_.this_object[t] = v;
    return true;
  };
  for (const CXXCtorInitializer* ci : ctor->inits()) walk_statements(ci->getInit(), mark);
  walk_statements(ctor->getBody(), mark);
  for (const ParmVarDecl* p : ctor->parameters())  // an unnamed one is still assigned its argument
    make_var(p->getName().empty() ? "_unnamed" : p->getName().str(), p->getType(), VarKind::Local, p, p->getLocation())
        ->block = ir_.body;
  return object = vd;
}

// The constructor's parameters assigned the call's arguments. A pointer parameter is a local
// pointer (one per constructor and function, like `this`): its first construction defines it, and
// every later one must point it into the same array (false, reported, when it does not).
bool Lowering::assign_constructor_parameters(const CXXConstructExpr* construct, const CXXConstructorDecl* ctor,
                                             const Stmt* stmt, Node* block) {
  for (unsigned i = 0; i < ctor->getNumParams(); ++i) {
    const ParmVarDecl* p = ctor->getParamDecl(i);
    const Expr* arg = construct->getArg(i);
    if (const Var* v = ir_.var_of.at(p); v->pointer && !v->base) {
      define(p, arg, stmt, block);
      continue;
    } else if (v->pointer && !same_base(pointer_base(arg), v->base, ir_.unit)) {
      fail(arg->getExprLoc(), Diag::constructor_pointer_parameter_other_array,
           {p->getNameAsString(), ctor->getParent()->getNameAsString()});
      return false;
    }
    lower_assign(stmt, new_ref(p), BO_Assign, arg, block);
  }
  return true;
}

// The constructor's initialisers, assigned to the members of its object.
bool Lowering::lower_constructor_inits(const CXXConstructorDecl* ctor, const VarDecl* object, const Stmt* stmt,
                                       Node* block) {
  for (const CXXCtorInitializer* ci : ctor->inits()) {
    // `: Base(a)`: the inherited members as that base's constructor sets them; `: P(a)`, a
    // delegating constructor: every member as the constructor it delegates to sets them.
    if (ci->isBaseInitializer() || ci->isDelegatingInitializer()) {
      QualType base = ci->isBaseInitializer() ? QualType(ci->getBaseClass(), 0) : ci->getInit()->getType();
      std::vector<const Expr*> inherited;
      if (!member_inits(base, ci->getInit(), stmt, block, inherited)) return false;
      // Pointers into the object the base's or delegated-to constructor builds: here that is the
      // stand-in for `this`, from which the members are copied (lower_constructor).
      if (auto own = own_addressed_members(ci->getInit()); !own.empty()) {
        fail(ci->getSourceLocation(), Diag::constructor_points_into_object,
             {base->getAsRecordDecl()->getNameAsString(), "'" + own[0].first->getNameAsString() + "'",
              "its own member '" + own[0].second->getNameAsString() + "'"});
        return false;
      }
      size_t k = 0;
      for (const FieldDecl* f : record_fields(base->getAsRecordDecl()))
        assign_member(member_ref(object, f), inherited[k++], stmt, block);
      continue;
    }
    const FieldDecl* f = ci->getMember();
    const Expr* e = strip(ci->getInit(), ir_.unit);
    if (auto* d = dyn_cast<CXXDefaultInitExpr>(e)) e = d->getExpr();
    if (isa<ImplicitValueInitExpr>(e)) e = zero_of(f->getType());
    if (auto* paren = dyn_cast<ParenListExpr>(e); paren && paren->getNumExprs() == 1) e = paren->getExpr(0);
    if (e) e = inline_invoked_lambda(e, block);
    if (e) assign_member(member_ref(object, f), e, stmt, block);
  }
  return true;
}

const Expr* Lowering::inline_invoked_lambda(const Expr* e, Node* block) {
  auto* call = dyn_cast<CXXOperatorCallExpr>(strip(e, ir_.unit));
  auto* op = call ? dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee()) : nullptr;
  if (!op || !op->getParent()->isLambda() || call->getNumArgs() != 1) return e;
  auto* lambda = dyn_cast<LambdaExpr>(call->getArg(0)->IgnoreImplicit());
  auto* body = lambda ? dyn_cast<CompoundStmt>(lambda->getBody()) : nullptr;
  // One without captures that does not fit stays a call, as elsewhere.
  auto reject = [&]() -> const Expr* {
    if (!lambda || lambda->capture_size() == 0) return e;
    fail(call->getBeginLoc(), Diag::unsupported_invoked_lambda_initialiser);
    return nullptr;
  };
  if (!body || body->body_empty()) return reject();
  for (const LambdaCapture& capture : lambda->captures())
    if (!capture.capturesThis() && capture.getCaptureKind() != LCK_ByRef) return reject();
  // One return, the last statement: the statements before it run in place. As in a constructor's
  // body, no declarations: a second construction in the function would declare them again.
  auto* ret = dyn_cast<ReturnStmt>(body->body_back());
  int returns = 0, declarations = 0;
  walk_statements(body, [&](const Stmt* s) {
    returns += isa<ReturnStmt>(s);
    declarations += isa<DeclStmt>(s);
    return !isa<LambdaExpr>(s);
  });
  if (!ret || !ret->getRetValue() || returns != 1 || declarations) return reject();
  for (const Stmt* s : body->body())
    if (s != ret) lower_stmt(s, block);
  return ret->getRetValue();
}

// A std::vector built empty: `std::vector<T>()`, `{}`.
bool Lowering::empty_vector(const Expr* e) {
  e = strip(e, ir_.unit);
  if (!is_vector(e->getType())) return false;
  if (auto* list = dyn_cast<InitListExpr>(e)) return list->getNumInits() == 0;
  auto* construct = dyn_cast<CXXConstructExpr>(e);
  return construct && std::all_of(construct->arg_begin(), construct->arg_end(),
                                  [](const Expr* a) { return isa<CXXDefaultArgExpr>(a); });
}

}  // namespace adjc
