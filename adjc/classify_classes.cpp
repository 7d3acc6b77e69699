// Classes: how a class is copied (by its members, by its own operations), its members in order,
// and which classes adjc models, from the library or not (classify.hpp).
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>

#include <algorithm>
#include <set>

#include "classify.hpp"
#include "containers.hpp"

namespace adjc {

using namespace clang;

namespace {

// Statements without an effect: empty statements, blocks of them, expressions without side effects.
bool effect_free(const Stmt* s, const ASTContext& context) {
  if (isa<NullStmt>(s)) return true;
  if (auto* e = dyn_cast<Expr>(s)) return !e->HasSideEffects(context, true);
  if (!isa<CompoundStmt>(s)) return false;
  return std::all_of(s->child_begin(), s->child_end(), [&](const Stmt* c) { return effect_free(c, context); });
}

// Whether `e` names member `field` of `source` (`o.x`, `std::move(o.x)`); any member when `field` is null.
bool source_member(const Expr* e, const ParmVarDecl* source, const FieldDecl* field = nullptr) {
  auto* m = dyn_cast<MemberExpr>(moved_operand(e));
  auto* base = m ? dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts()) : nullptr;
  return base && base->getDecl() == source && (!field || m->getMemberDecl() == field);
}

StructCopy worse(StructCopy a, StructCopy b) { return std::max(a, b); }

// How the initialiser of member `field` (or of a base, `field` null) copies it from `source`.
StructCopy member_copy(const Expr* init, const ParmVarDecl* source, const FieldDecl* field) {
  if (auto* c = dyn_cast<ExprWithCleanups>(init)) init = c->getSubExpr();
  if (auto* construct = dyn_cast<CXXConstructExpr>(init)) {
    if (construct->getNumArgs() != 1 || !construct->getConstructor()->isCopyOrMoveConstructor())
      return StructCopy::Other;
    const Expr* from = construct->getArg(0);
    bool named = field ? source_member(from, source, field) : [&] {
      auto* ref = dyn_cast<DeclRefExpr>(moved_operand(from));
      return ref && ref->getDecl() == source;
    }();
    return named ? constructor_copy(construct->getConstructor()) : StructCopy::Other;
  }
  return field && !field->getType()->isRecordType() && source_member(init, source, field) ? StructCopy::Members
                                                                                          : StructCopy::Other;
}

// The user's destructor of `record`, when it has one whose body does something.
bool destructor_has_effect(const CXXRecordDecl* record) {
  const CXXDestructorDecl* d = record->getDestructor();
  if (!d || !d->isUserProvided()) return false;
  const FunctionDecl* definition = nullptr;
  return !d->hasBody(definition) || !effect_free(definition->getBody(), record->getASTContext());
}

}  // namespace

// The worst of how `record`'s bases and members of class type are copied (by their own constructors).
static StructCopy parts_copy(const CXXRecordDecl* record) {
  StructCopy copy = StructCopy::Members;
  for (const CXXBaseSpecifier& base : record->bases())
    if (auto* b = base.getType()->getAsCXXRecordDecl()) copy = worse(copy, record_copy(b));
  for (const FieldDecl* f : record->fields())
    if (auto* r = f->getASTContext().getBaseElementType(f->getType())->getAsCXXRecordDecl())
      copy = worse(copy, record_copy(r));
  return copy;
}

StructCopy constructor_copy(const CXXConstructorDecl* c) {
  if (c->isTrivial()) return StructCopy::Members;
  const CXXRecordDecl* record = c->getParent();
  if (!c->isUserProvided()) return parts_copy(record);  // the compiler's own
  StructCopy copy = StructCopy::Members;
  const FunctionDecl* definition = nullptr;
  if (c->getNumParams() != 1 || !c->hasBody(definition)) return StructCopy::Other;
  auto* ctor = cast<CXXConstructorDecl>(definition);
  const ParmVarDecl* source = ctor->getParamDecl(0);
  // Every base and member initialised from the source's own.
  size_t initialised = 0;
  for (const CXXCtorInitializer* init : ctor->inits()) {
    if (!init->isMemberInitializer() && !init->isBaseInitializer()) return StructCopy::Other;
    copy = worse(copy, member_copy(init->getInit(), source, init->getMember()));
    ++initialised;
  }
  if (initialised != size_t(std::distance(record->field_begin(), record->field_end())) + record->getNumBases())
    return StructCopy::Other;
  // A body with no effect, but for a move constructor's resets of the source's members to constants.
  const ASTContext& context = record->getASTContext();
  for (const Stmt* s : cast<CompoundStmt>(ctor->getBody())->body()) {
    if (effect_free(s, context)) continue;
    auto* assign = dyn_cast<BinaryOperator>(s);
    if (!c->isMoveConstructor() || !assign || assign->getOpcode() != BO_Assign ||
        !source_member(assign->getLHS(), source) || !assign->getRHS()->isEvaluatable(context))
      return StructCopy::Other;
    copy = worse(copy, StructCopy::MembersResettingSource);
  }
  return copy;
}

StructCopy record_copy(const CXXRecordDecl* record) {
  if (!record->hasDefinition()) return StructCopy::Other;
  StructCopy copy = parts_copy(record);
  for (const CXXConstructorDecl* c : record->ctors())
    if (c->isCopyOrMoveConstructor() && !c->isDeleted()) copy = worse(copy, constructor_copy(c));
  return copy;
}

// A struct whose special members of the user's own are as the compiler's: a destructor without
// effect, copy and move constructors that copy every member (a move may reset the source's; not
// looked at unless `constructors`), no assignment of its own; so are its members' and bases' types.
static bool special_members_as_implicit(const CXXRecordDecl* record, bool constructors = true) {
  if (!record->hasDefinition() || destructor_has_effect(record) ||
      (constructors && record_copy(record) == StructCopy::Other))
    return false;
  for (const CXXMethodDecl* m : record->methods())
    if ((m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()) && m->isUserProvided()) return false;
  for (const CXXBaseSpecifier& base : record->bases())
    if (auto* b = base.getType()->getAsCXXRecordDecl(); !b || !special_members_as_implicit(b, constructors))
      return false;
  for (const FieldDecl* f : record->fields()) {
    QualType ft = f->getASTContext().getBaseElementType(f->getType().getCanonicalType());
    if (auto* r = ft->getAsCXXRecordDecl();
        r ? !special_members_as_implicit(r, constructors) : !ft.isTriviallyCopyableType(f->getASTContext()))
      return false;
  }
  return true;
}

// Whether `T{}` gives every member of `record` zero: no default member initialisers and a default
// constructor that is the compiler's, or the user's initialising each member (numbers, pointers)
// to a constant zero with a body without effect.
static bool zero_by_default(const CXXRecordDecl* record) {
  const ASTContext& context = record->getASTContext();
  if (record->hasTrivialDefaultConstructor()) return true;
  for (const CXXConstructorDecl* c : record->ctors()) {
    const FunctionDecl* definition = nullptr;
    if (!c->isDefaultConstructor() || !c->isUserProvided() || !c->hasBody(definition)) continue;
    auto* ctor = cast<CXXConstructorDecl>(definition);
    size_t zeroed = 0;
    for (const CXXCtorInitializer* init : ctor->inits()) {
      Expr::EvalResult value;
      if (!init->isMemberInitializer() || init->getMember()->getType()->isRecordType() ||
          !init->getInit()->EvaluateAsRValue(value, context) ||
          !(value.Val.isInt()     ? value.Val.getInt().isZero()
            : value.Val.isFloat() ? value.Val.getFloat().isPosZero()
                                  : value.Val.isNullPointer()))
        return false;
      ++zeroed;
    }
    return zeroed == size_t(std::distance(record->field_begin(), record->field_end())) && record->getNumBases() == 0 &&
           effect_free(ctor->getBody(), context);
  }
  return false;
}

bool held_in_place(QualType t) {
  auto* record = t.getNonReferenceType()->getAsCXXRecordDecl();
  return record && record->hasDefinition() && !record->isLambda() && !copied_by_members(t) &&
         special_members_as_implicit(record, false) && unmodelled_bases(record).empty() && zero_by_default(record);
}

bool copied_by_members(QualType t) {
  auto* record = t.getNonReferenceType()->getAsCXXRecordDecl();
  return record && record->hasDefinition() &&
         (((record->isTriviallyCopyable() || special_members_as_implicit(record)) &&
           unmodelled_bases(record).empty()) ||
          is_number_pair(t));
}

std::string own_copy_operation(QualType t) {
  auto* record = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (!record || !record->hasDefinition() || copied_by_members(t)) return "";
  if (destructor_has_effect(record)) return "a destructor";
  for (const CXXConstructorDecl* c : record->ctors())
    if (c->isCopyOrMoveConstructor() && c->isUserProvided() && constructor_copy(c) == StructCopy::Other)
      return c->isMoveConstructor() ? "a move constructor" : "a copy constructor";
  for (const CXXMethodDecl* m : record->methods())
    if ((m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()) && m->isUserProvided())
      return "an assignment operator";
  return "";
}

Message own_copy_message(QualType t, const std::string& what, Diag id) {
  return {id, {what, t.getNonReferenceType()->getAsCXXRecordDecl()->getQualifiedNameAsString(), own_copy_operation(t)}};
}

// Whether `record` has a copy assignment operator (`assignment`) or a copy constructor that is not
// deleted: the user's, or the compiler's (deleted when a move member is declared, or a member
// cannot be copied).
static bool has_copy_member(const CXXRecordDecl* record, bool assignment) {
  auto copy = [&](const CXXMethodDecl* m) {
    auto* c = dyn_cast<CXXConstructorDecl>(m);
    return !m->isDeleted() && (assignment ? m->isCopyAssignmentOperator() : c && c->isCopyConstructor());
  };
  if (assignment ? record->hasUserDeclaredCopyAssignment() : record->hasUserDeclaredCopyConstructor())
    return std::any_of(record->method_begin(), record->method_end(), copy);
  return !record->hasUserDeclaredMoveConstructor() && !record->hasUserDeclaredMoveAssignment() &&
         (assignment ? record->hasSimpleCopyAssignment() : record->hasSimpleCopyConstructor());
}

bool deleted_move(const CXXRecordDecl* record) {
  return std::any_of(record->ctor_begin(), record->ctor_end(),
                     [](const CXXConstructorDecl* c) { return c->isMoveConstructor() && c->isDeleted(); });
}

bool assigned_by_copy(const CXXRecordDecl* record) {
  QualType t = record->getASTContext().getRecordType(record);
  return copied_by_members(t) && !is_number_pair(t) && !record->hasUserDeclaredCopyAssignment() &&
         (record->hasUserDeclaredMoveConstructor() || record->hasUserDeclaredMoveAssignment() ||
          record->hasUserDeclaredCopyConstructor() || record->hasUserDeclaredDestructor());
}

bool copy_assignable(const CXXRecordDecl* record) {
  return (has_copy_member(record, true) && !deleted_move(record)) ||
         (assigned_by_copy(record) && has_copy_member(record, false));
}

std::vector<const FieldDecl*> record_fields(const RecordDecl* record) {
  std::vector<const FieldDecl*> fields;
  if (auto* cxx = dyn_cast<CXXRecordDecl>(record); cxx && cxx->hasDefinition())
    for (const CXXBaseSpecifier& base : cxx->bases())
      if (auto* b = base.getType()->getAsRecordDecl()) {
        std::vector<const FieldDecl*> inherited = record_fields(b);
        fields.insert(fields.end(), inherited.begin(), inherited.end());
      }
  fields.insert(fields.end(), record->field_begin(), record->field_end());
  return fields;
}

// The first base in `r`'s hierarchy adjc does not model, in words (`record`: the class asked about).
static std::string unmodelled_base(const CXXRecordDecl* r, const CXXRecordDecl* record,
                                   std::set<const CXXRecordDecl*>& seen) {
  if (!r->hasDefinition()) return "";
  for (const CXXBaseSpecifier& base : r->bases()) {
    const CXXRecordDecl* b = base.getType()->getAsCXXRecordDecl();
    const std::string name = base.getType().getAsString(), of = " of '" + r->getNameAsString() + "'";
    if (base.isVirtual()) return "virtual base class '" + name + "'" + of;
    if (base.getAccessSpecifier() != AS_public) return "non-public base class '" + name + "'" + of;
    if (!b) return "base class '" + name + "'" + of + ", which is not a known class";
    if (!seen.insert(b->getCanonicalDecl()).second)
      return "base class '" + name + "' repeated in the hierarchy of '" + record->getNameAsString() + "'";
    if (std::string why = unmodelled_base(b, record, seen); !why.empty()) return why;
  }
  return "";
}

std::string unmodelled_bases(const CXXRecordDecl* record) {
  std::set<const CXXRecordDecl*> seen;
  return unmodelled_base(record, record, seen);
}

// Whether neither `record` nor any of its bases has a data member.
static bool without_fields(const CXXRecordDecl* record) {
  if (!record || !record->hasDefinition() || !record->field_empty()) return false;
  for (const CXXBaseSpecifier& base : record->bases())
    if (!without_fields(base.getType()->getAsCXXRecordDecl())) return false;
  return true;
}

std::string unmodelled_class(QualType t, const UnitFacts& unit) {
  t = t.getCanonicalType().getNonReferenceType();
  while (t->isPointerType() || t->isArrayType())
    t = t->isPointerType() ? t->getPointeeType() : QualType(t->getArrayElementTypeNoTypeQual(), 0);
  auto* record = t->getAsCXXRecordDecl();
  if (!record || !record->hasDefinition() || record->isLambda() || is_value_class(t, unit) || is_container(t) ||
      is_library_class(t, unit))
    return "";
  // A class without data has nothing to differentiate: a virtual call on it is still reported where made.
  if (record->isPolymorphic() && !without_fields(record))
    return "class '" + record->getNameAsString() +
           "' has virtual functions, and adjc does not follow a call to the override that runs";
  return unmodelled_bases(record);
}

std::string std_function_hint(QualType t) {
  auto* s = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t.getNonReferenceType()->getAsCXXRecordDecl());
  if (!s || !s->isInStdNamespace() || s->getName() != "function" || s->getTemplateArgs().size() != 1) return "";
  QualType pointer = s->getASTContext().getPointerType(s->getTemplateArgs()[0].getAsType());
  return ", a std::function, which hides from adjc the function it holds; take a function pointer ('" +
         pointer.getAsString() +
         "') and pass the function by name: adjc differentiates the callee once for each function its calls pass";
}

bool is_library_class(QualType t, const UnitFacts& unit) {
  t = t.getNonReferenceType().getCanonicalType();
  if (is_container(t)) return false;  // modelled: containers.cpp
  while (t->isPointerType() || t->isArrayType())
    t = t->isPointerType() ? t->getPointeeType().getCanonicalType() : QualType(t->getArrayElementTypeNoTypeQual(), 0);
  const CXXRecordDecl* record = t->getAsCXXRecordDecl();
  if (!record || is_value_class(t, unit) || is_number_pair(t)) return false;
  // What generated pushforwards return, which the next stage differentiates (nesting.hpp), even where
  // adjc++ includes adjc's headers as system headers.
  if (record->getQualifiedNameAsString() == "adjoint::value_and_pushforward") return false;
  for (const DeclContext* dc = record->getDeclContext(); dc; dc = dc->getParent())
    if (dc->isStdNamespace()) return true;
  return record->getASTContext().getSourceManager().isInSystemHeader(record->getLocation());
}

// A class without virtual functions whose data, through its bases and members, is integers only.
static bool integers_only(const CXXRecordDecl* record) {
  if (!record || !record->hasDefinition() || record->isPolymorphic()) return false;
  for (const CXXBaseSpecifier& base : record->bases())
    if (base.isVirtual() || !integers_only(base.getType()->getAsCXXRecordDecl())) return false;
  for (const FieldDecl* f : record->fields()) {
    QualType ft = record->getASTContext().getBaseElementType(f->getType()).getCanonicalType();
    if (ft->isRecordType() ? !integers_only(ft->getAsCXXRecordDecl()) : !ft->isIntegralOrEnumerationType())
      return false;
  }
  return true;
}

bool is_inert_library_class(QualType t, const UnitFacts& unit) {
  t = t.getNonReferenceType().getCanonicalType();
  return t->isRecordType() && is_library_class(t, unit) && integers_only(t->getAsCXXRecordDecl());
}

bool has_zero_like(QualType t) {
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  auto* record = t->getAsCXXRecordDecl();
  if (!record) return false;
  ASTContext& context = record->getASTContext();
  int viable = 0;
  bool deleted = false;
  for (const NamedDecl* ns : context.getTranslationUnitDecl()->lookup(&context.Idents.get("clad")))
    if (auto* clad = dyn_cast<NamespaceDecl>(ns))
      for (const NamedDecl* d : clad->lookup(&context.Idents.get("zero_like"))) {
        auto* f = dyn_cast<FunctionDecl>(d);
        if (!f || f->getNumParams() == 0 || f->getMinRequiredArguments() > 1) continue;
        QualType p = f->getParamDecl(0)->getType();
        // `zero_like(T&&) = delete` only keeps temporaries away; the value adjc passes is an lvalue.
        if (p->isRValueReferenceType()) continue;
        if (p->isLValueReferenceType() && !p->getPointeeType().isConstQualified()) continue;
        if (!context.hasSameType(p.getNonReferenceType().getUnqualifiedType(), t)) continue;
        ++viable;
        deleted = deleted || f->isDeleted();
      }
  // Two overloads taking the value alone are ambiguous: as Clad, neither is used.
  return viable == 1 && !deleted;
}

}  // namespace adjc
