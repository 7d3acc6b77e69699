// Types and callees: what adjc differentiates, and how each call is differentiated (classify.hpp).
#include <clang/AST/Attr.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>

#include <algorithm>

#include <cstdio>

#include "classify.hpp"
#include "containers.hpp"
#include "walk.hpp"

namespace adjc {

using namespace clang;

// A cast between pointers to the same type that adds qualifiers (`static_cast<const T*>(p)`):
// the same pointer, which converts back implicitly where it was written.
static bool qualifying_pointer_cast(const Expr* e) {
  auto* c = dyn_cast<ExplicitCastExpr>(e);
  if (!c) return false;  // a reinterpret_cast too: between these types it is a static_cast
  QualType to = c->getType().getCanonicalType(), from = c->getSubExpr()->getType().getCanonicalType();
  if (!to->isPointerType() || !from->isPointerType()) return false;
  QualType pt = to->getPointeeType(), pf = from->getPointeeType();
  return pt.getUnqualifiedType() == pf.getUnqualifiedType() && pt.isAtLeastAsQualifiedAs(pf);
}

const Expr* moved_operand(const Expr* e) {
  while (true) {
    e = e->IgnoreParenImpCasts();
    if (auto* c = dyn_cast<ExprWithCleanups>(e)) e = c->getSubExpr();
    else if (auto* call = dyn_cast<CallExpr>(e); call && call->getNumArgs() == 1 && call->getDirectCallee() &&
                                                  call->getDirectCallee()->isInStdNamespace() &&
                                                  call->getDirectCallee()->getIdentifier() &&
                                                  call->getDirectCallee()->getName() == "move")
      e = call->getArg(0);
    else if (auto* cast = dyn_cast<CXXStaticCastExpr>(e); cast && cast->getType()->isRValueReferenceType())
      e = cast->getSubExpr();
    else return e;
  }
}

const Expr* strip(const Expr* e, const UnitFacts& unit) {
  while (true) {
    e = e->IgnoreParenImpCasts();
    if (auto* c = dyn_cast<ExprWithCleanups>(e)) e = c->getSubExpr();
    else if (auto* c = dyn_cast<ConstantExpr>(e)) e = c->getSubExpr();
    else if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (qualifying_pointer_cast(e)) e = cast<ExplicitCastExpr>(e)->getSubExpr();
    else if (auto* c = dyn_cast<CXXConstructExpr>(e);
             c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor() &&
             (is_value_class(c->getType(), unit) || constructor_copy(c->getConstructor()) != StructCopy::Other))
      e = moved_operand(c->getArg(0));
    else return e;
  }
}

namespace {
bool integer_tangents_on = false;
}  // namespace

bool integer_tangents() { return integer_tangents_on; }

IntegerTangents::IntegerTangents(bool on) : before_(integer_tangents_on) { integer_tangents_on = before_ || on; }
IntegerTangents::~IntegerTangents() { integer_tangents_on = before_; }

bool is_integer_number(QualType t) {
  auto* builtin = t.getCanonicalType()->getAs<BuiltinType>();
  return builtin && builtin->isInteger() && builtin->getKind() != BuiltinType::Bool;
}

bool is_floating(QualType t) { return t->isRealFloatingType() || (integer_tangents_on && is_integer_number(t)); }

bool is_value_class(QualType t, const UnitFacts& unit) {
  if (t.isNull()) return false;
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  return unit.value_classes.count(t.getTypePtr()) > 0;
}

bool is_adjoint_value(QualType t, const UnitFacts& unit) { return is_floating(t) || is_value_class(t, unit); }

bool is_plain_struct(QualType t, const UnitFacts& unit) {
  if (t.isNull()) return false;
  t = t.getNonReferenceType().getCanonicalType();
  auto* record = t->getAsCXXRecordDecl();
  if (!record || !record->hasDefinition() || record->isUnion() || record->isLambda() || is_value_class(t, unit) ||
      is_container(t) || is_library_class(t, unit) || record->isPolymorphic() ||
      !(copied_by_members(t) || held_in_place(t)))
    return false;
  for (const FieldDecl* f : record_fields(record)) {
    QualType ft = f->getASTContext().getBaseElementType(f->getType().getCanonicalType());
    if (f->isBitField() || !(ft->isArithmeticType() || (ft->isPointerType() && !ft->isFunctionPointerType()) ||
                             (ft->isRecordType() && is_plain_struct(ft, unit))))
      return false;
  }
  return true;
}

void pointer_members(QualType t, std::vector<const FieldDecl*>& out) {
  for (const FieldDecl* f : record_fields(t->getAsRecordDecl())) {
    QualType ft = f->getASTContext().getBaseElementType(f->getType().getCanonicalType());
    if (ft->isPointerType() && is_differentiable(ft)) out.push_back(f);
    if (ft->isRecordType()) pointer_members(ft, out);
  }
}

bool has_result_adjoint(QualType t, const UnitFacts& unit) { return is_adjoint_value(t, unit) || is_plain_struct(t, unit); }

bool is_empty_value(const Expr* e, const UnitFacts& unit) {
  e = strip(e, unit);
  if (!is_value_class(e->getType(), unit)) return false;
  if (auto* cast = dyn_cast<CXXFunctionalCastExpr>(e)) e = strip(cast->getSubExpr(), unit);
  if (auto* c = dyn_cast<CXXConstructExpr>(e)) return c->getNumArgs() == 0;
  if (auto* list = dyn_cast<InitListExpr>(e))  // `V{}` of an aggregate: every member its default
    return std::all_of(list->inits().begin(), list->inits().end(),
                       [](const Expr* i) { return isa<ImplicitValueInitExpr>(i) || isa<CXXDefaultInitExpr>(i); });
  return false;
}

static bool pointee_differentiable(QualType t) {
  t = t.getCanonicalType();
  if (auto* array = dyn_cast<ConstantArrayType>(t.getTypePtr())) return pointee_differentiable(array->getElementType());
  if (is_container(t)) return is_floating(container_element(t));
  return t->isRealFloatingType() || t->isRecordType();
}

bool is_differentiable(QualType t) {
  t = t.getCanonicalType();
  if (is_container(t)) return is_floating(container_element(t));
  if (is_floating(t) || t->isRecordType()) return true;
  if (t->isPointerType() || t->isReferenceType()) return pointee_differentiable(t->getPointeeType());
  return false;
}

bool is_written_param(QualType t) {
  t = t.getCanonicalType();
  if (!t->isPointerType() && !t->isReferenceType()) return false;
  QualType p = t->getPointeeType();
  return pointee_differentiable(p) && !p.isConstQualified();
}

bool writes_through_parameters(const FunctionDecl* f) {
  for (const AdParam& p : ad_params(f))
    if (is_written_param(p.type)) return true;
  return false;
}

bool writes_numbers(QualType t) {
  t = t.getCanonicalType();
  if (is_written_param(t)) return true;
  return (t->isPointerType() || t->isReferenceType()) && t->getPointeeType()->isArithmeticType() &&
         !t->getPointeeType().isConstQualified();
}

std::vector<bool> all_differentiable(const FunctionDecl* fn) {
  std::vector<bool> active;
  for (const AdParam& p : ad_params(fn)) active.push_back(is_differentiable(p.type));
  return active;
}

// A lambda without captures has no state: its call operator is differentiated as a free function
// (its closure type cannot be named in generated code).
static bool stateless_lambda(const CXXMethodDecl* m) {
  return m->getParent()->isLambda() && m->getParent()->capture_size() == 0;
}

const CXXMethodDecl* with_object(const FunctionDecl* fn) {
  auto* m = dyn_cast<CXXMethodDecl>(fn);
  return m && m->isInstance() && !stateless_lambda(m) ? m : nullptr;
}

bool pointer_reference(QualType t) {
  return t->isLValueReferenceType() && t->getPointeeType()->isPointerType() && is_differentiable(t->getPointeeType());
}

std::vector<AdParam> ad_params(const FunctionDecl* fn) {
  std::vector<AdParam> out;
  if (const CXXMethodDecl* m = with_object(fn)) out.push_back({m->getThisType(), nullptr});
  const FunctionDecl* definition = fn->getDefinition();
  for (unsigned i = 0; i < fn->getNumParams(); ++i) {
    const ParmVarDecl* p = fn->getParamDecl(i);
    QualType t = p->getType();
    // A pointer by reference that the function never changes is that pointer by value: its
    // callers pass the pointer, and their adjoint of its memory, as for `double* p`.
    // So is a number by rvalue reference (`double&& x`): its callers pass a value they give up.
    const bool by_value = pointer_reference(t) || (t->isRValueReferenceType() && t->getPointeeType()->isArithmeticType());
    if (by_value && definition && definition->hasBody() &&
        (t->getPointeeType().isConstQualified() || !may_modify(definition->getBody(), definition->getParamDecl(i))))
      t = t->getPointeeType().getUnqualifiedType();
    out.push_back({t, p});
  }
  return out;
}

std::vector<AdArg> ad_args(const CallExpr* call) {
  std::vector<AdArg> out;
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    auto* callee = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens());
    if (with_object(mc->getMethodDecl()))
      out.push_back({mc->getImplicitObjectArgument(), !callee || !callee->isArrow()});
    for (const Expr* a : call->arguments()) out.push_back({a});
    return out;
  }
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(call); op && isa_and_nonnull<CXXMethodDecl>(op->getDirectCallee())) {
    // The object: passed to a member operator, dropped for a stateless lambda's call.
    if (with_object(op->getDirectCallee())) out.push_back({op->getArg(0), true});
    for (unsigned i = 1; i < op->getNumArgs(); ++i) out.push_back({op->getArg(i)});
    return out;
  }
  for (const Expr* a : call->arguments()) out.push_back({a});
  return out;
}

std::string base_name(const FunctionDecl* fn, const UnitFacts& unit) {
  if (fn->getIdentifier()) {
    // Specializations are overloads told apart by their parameter types; values of non-type
    // template arguments (`power<3>`, `power<2>`) cannot tell them apart, so they join the name.
    std::string name = fn->getName().str();
    if (const TemplateArgumentList* args = fn->getTemplateSpecializationArgs())
      for (const TemplateArgument& a : args->asArray())
        if (a.getKind() == TemplateArgument::Integral) {
          std::string digits = std::to_string(a.getAsIntegral().getExtValue());
          name += "_" + (digits[0] == '-' ? "m" + digits.substr(1) : digits);
        }
    return name;
  }
  if (auto* m = dyn_cast<CXXMethodDecl>(fn); m && m->getParent()->isLambda()) {
    // Lambdas are numbered in the order adjc meets them (`lambda1`, `lambda2`, ...), and named after
    // where they are written too: generated functions are inline, and another translation unit's
    // `lambda1` is another lambda.
    auto& numbers = unit.lambda_numbers;
    auto it = numbers.emplace(m->getParent()->getCanonicalDecl(), int(numbers.size()) + 1).first;
    const SourceManager& sm = fn->getASTContext().getSourceManager();
    PresumedLoc at = sm.getPresumedLoc(sm.getSpellingLoc(m->getParent()->getBeginLoc()));
    std::string place = at.isValid() ? std::string(at.getFilename()) + ":" + std::to_string(at.getLine()) + ":" +
                                           std::to_string(at.getColumn())
                                     : "";
    uint32_t hash = 2166136261u;  // FNV-1a
    for (unsigned char c : place) hash = (hash ^ c) * 16777619u;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "_%08x", hash);
    return "lambda" + std::to_string(it->second) + suffix;
  }
  switch (fn->getOverloadedOperator()) {
    case OO_Plus: return "operator_plus";
    case OO_Minus: return "operator_minus";
    case OO_Star: return "operator_star";
    case OO_Slash: return "operator_slash";
    case OO_Call: return "operator_call";
    case OO_Subscript: return "operator_subscript";
    case OO_PlusEqual: return "operator_plus_assign";
    case OO_MinusEqual: return "operator_minus_assign";
    case OO_StarEqual: return "operator_star_assign";
    case OO_SlashEqual: return "operator_slash_assign";
    case OO_PlusPlus: return "operator_increment";
    case OO_MinusMinus: return "operator_decrement";
    default: return "";
  }
}

bool reaches_differentiable(QualType t) {
  t = t.getCanonicalType();
  if (!t->isPointerType() && !t->isReferenceType()) return false;
  QualType p = t->getPointeeType().getCanonicalType();
  return p->isPointerType() && (is_differentiable(p) || reaches_differentiable(p));
}

namespace {

// A class named by Clad's CLAD_NONDIFFERENTIABLE_TYPE(T), which declares an explicit
// specialisation clad::nondifferentiable_type<T> (the class itself may be defined elsewhere).
bool marked_type(const Decl* d) {
  auto* record = dyn_cast<CXXRecordDecl>(d);
  if (!record) return false;
  ASTContext& context = record->getASTContext();
  for (const NamedDecl* ns : context.getTranslationUnitDecl()->lookup(&context.Idents.get("clad")))
    for (const NamedDecl* t : cast<DeclContext>(ns)->lookup(&context.Idents.get("nondifferentiable_type")))
      if (auto* marker = dyn_cast<ClassTemplateDecl>(t))
        for (const ClassTemplateSpecializationDecl* s : marker->specializations())
          if (s->getTemplateArgs().size() == 1 && s->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
              context.hasSameType(s->getTemplateArgs()[0].getAsType(), context.getRecordType(record)))
            return true;
  return false;
}

}  // namespace

bool non_differentiable(const Decl* d) {
  auto marked = [](const Decl* x) {
    for (const auto* a : x->specific_attrs<AnnotateAttr>())
      if (a->getAnnotation() == "non_differentiable") return true;
    return marked_type(x);
  };
  if (!d) return false;
  if (marked(d)) return true;
  if (isa<FieldDecl, CXXMethodDecl>(d)) return marked(cast<Decl>(d->getDeclContext()));
  return false;
}

bool derivative_free(const FunctionDecl* callee) {
  if (non_differentiable(callee)) return true;
  if (is_differentiable(callee->getReturnType())) return false;
  for (const AdParam& p : ad_params(callee))
    if (is_written_param(p.type) || reaches_differentiable(p.type)) return false;
  return true;
}

namespace {

// Whether `s` may modify `v` (after source location `after`, when valid): a use of it other than
// as a value read (`read`: the use is read, through members, elements and const member calls of
// what it names). A lambda's capture by reference counts as a modification.
struct Modification {
  const VarDecl* v;
  const SourceManager* sm = nullptr;
  SourceLocation after;

  bool in(const Stmt* s, bool read = false) const {
    if (!s) return false;
    if (auto* ref = dyn_cast<DeclRefExpr>(s))
      return !read && ref->getDecl() == v &&
             (after.isInvalid() || sm->isBeforeInTranslationUnit(after, ref->getLocation()));
    // A lambda written here: its captures are uses here; one by reference modifies v when the
    // lambda's body does.
    if (auto* lambda = dyn_cast<LambdaExpr>(s)) {
      auto init = lambda->capture_init_begin();
      for (const LambdaCapture& c : lambda->captures()) {
        const Expr* e = *init++;
        bool by_reference = c.capturesVariable() && c.getCaptureKind() == LCK_ByRef && !c.getCapturedVar()->isInitCapture();
        if (by_reference ? c.getCapturedVar() == v && in(lambda->getBody()) : in(e)) return true;
      }
      return false;
    }
    if (auto* c = dyn_cast<ImplicitCastExpr>(s))
      return in(c->getSubExpr(), read || c->getCastKind() == CK_LValueToRValue);
    if (auto* p = dyn_cast<ParenExpr>(s)) return in(p->getSubExpr(), read);
    if (auto* m = dyn_cast<MemberExpr>(s)) return in(m->getBase(), read);
    if (auto* a = dyn_cast<ArraySubscriptExpr>(s)) return in(a->getBase(), read) || in(a->getIdx());
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->getOperator() == OO_Subscript)
      return in(op->getArg(0), read) || in(op->getArg(1));
    // An argument a constructor binds to a `const T&` (a copy, an allocator) is read.
    if (auto* c = dyn_cast<CXXConstructExpr>(s)) {
      bool any = false;
      for (unsigned i = 0; i < c->getNumArgs(); ++i) {
        const ParmVarDecl* p = i < c->getConstructor()->getNumParams() ? c->getConstructor()->getParamDecl(i) : nullptr;
        any |= in(c->getArg(i), p && p->getType()->isLValueReferenceType() &&
                                    p->getType()->getPointeeType().isConstQualified());
      }
      return any;
    }
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && mc->getMethodDecl() && mc->getMethodDecl()->isConst()) {
      bool any = in(mc->getImplicitObjectArgument(), true);
      for (const Expr* a : mc->arguments()) any |= in(a);
      return any;
    }
    for (const Stmt* c : s->children())
      if (in(c)) return true;
    return false;
  }
};

}  // namespace

bool may_modify(const Stmt* s, const VarDecl* v, const SourceManager* sm, SourceLocation after) {
  return Modification{v, sm, after}.in(s);
}

bool returns_self(const FunctionDecl* fn) {
  auto* m = dyn_cast<CXXMethodDecl>(fn);
  if (!m || m->isStatic() || !m->hasBody() || is_library(m)) return false;
  // A copy of the object (`S operator+=(double)` returning `*this`) is as good when it is discarded,
  // if copying has no effect of its own.
  QualType object = m->getASTContext().getRecordType(m->getParent());
  QualType returned = m->getReturnType()->isLValueReferenceType() ? m->getReturnType()->getPointeeType()
                      : m->getParent()->isTriviallyCopyable()      ? m->getReturnType()
                                                                   : QualType();
  if (returned.isNull() || !m->getASTContext().hasSameUnqualifiedType(returned, object)) return false;
  bool any = false, other = false;
  walk_statements(m->getBody(), [&](const Stmt* s) {
    if (isa<LambdaExpr>(s)) return false;
    if (auto* r = dyn_cast<ReturnStmt>(s)) {
      const Expr* value = r->getRetValue() ? r->getRetValue()->IgnoreParenImpCasts() : nullptr;
      if (auto* copy = dyn_cast_or_null<CXXConstructExpr>(value); copy && copy->getNumArgs() == 1)
        value = copy->getArg(0)->IgnoreParenImpCasts();  // the copy a by-value result makes
      auto* deref = dyn_cast_or_null<UnaryOperator>(value);
      bool self = deref && deref->getOpcode() == UO_Deref && isa<CXXThisExpr>(deref->getSubExpr()->IgnoreParenImpCasts());
      (self ? any : other) = true;
    }
    return true;
  });
  return any && !other;
}

QualType result_type(const FunctionDecl* fn) {
  ASTContext& context = fn->getASTContext();
  if (returns_self(fn)) return context.VoidTy;
  QualType t = fn->getReturnType();
  if (t->isReferenceType() && t.getNonReferenceType()->isArithmeticType())
    return t.getNonReferenceType().getUnqualifiedType();
  return t;
}

bool is_library(const FunctionDecl* f) {
  for (const DeclContext* dc = f->getDeclContext(); dc; dc = dc->getParent())
    if (dc->isStdNamespace()) return true;
  const SourceManager& sm = f->getASTContext().getSourceManager();
  return sm.isInSystemHeader(f->getLocation());
}

std::string c_memory_function(const CallExpr* call) {
  const FunctionDecl* f = call ? call->getDirectCallee() : nullptr;
  if (!f || !f->getIdentifier() || !is_library(f) || !f->getDeclContext()->getRedeclContext()->isFileContext())
    return "";
  const std::string name = f->getName().str();
  for (const char* known : {"malloc", "calloc", "realloc", "free", "memset"})
    if (name == known) return name;
  return "";
}

const CallExpr* c_allocation(const Expr* e) {
  auto* cast = dyn_cast<ExplicitCastExpr>(e->IgnoreParens());
  if (!cast || !isa<CStyleCastExpr, CXXStaticCastExpr>(cast) || !cast->getType()->isPointerType()) return nullptr;
  auto* call = dyn_cast<CallExpr>(cast->getSubExpr()->IgnoreParenImpCasts());
  const std::string name = c_memory_function(call);
  return name == "malloc" || name == "calloc" || name == "realloc" ? call : nullptr;
}

const Expr* allocation(const Expr* e) {
  if (!e) return nullptr;
  if (auto* full = dyn_cast<ExprWithCleanups>(e)) e = full->getSubExpr();
  e = e->IgnoreParenImpCasts();
  return isa<CXXNewExpr>(e) || c_allocation(e) ? e : nullptr;
}

bool is_number_pair(QualType t) {
  t = t.getNonReferenceType().getCanonicalType();
  auto* pair = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
  if (!pair || !pair->isInStdNamespace() || pair->getName() != "pair" || !pair->hasDefinition()) return false;
  const TemplateArgumentList& args = pair->getTemplateArgs();
  return args.size() == 2 && args[0].getKind() == TemplateArgument::Type && args[1].getKind() == TemplateArgument::Type &&
         args[0].getAsType()->isArithmeticType() && args[1].getAsType()->isArithmeticType();
}

bool is_std_complex(QualType t) {
  t = t.getNonReferenceType().getCanonicalType();
  auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
  if (!spec || !spec->isInStdNamespace() || spec->getName() != "complex") return false;
  const TemplateArgumentList& args = spec->getTemplateArgs();
  if (args.size() != 1 || args[0].getKind() != TemplateArgument::Type) return false;
  QualType element = args[0].getAsType().getCanonicalType();
  return element->isSpecificBuiltinType(BuiltinType::Double) || element->isSpecificBuiltinType(BuiltinType::Float);
}

bool is_make_pair(const Expr* e) {
  auto* call = dyn_cast<CallExpr>(e);
  const FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
  return callee && callee->isInStdNamespace() && callee->getIdentifier() && callee->getName() == "make_pair" &&
         call->getNumArgs() == 2 && is_number_pair(call->getType());
}

bool is_write_once(const Var* region) {
  if (!region || !region->decl) return false;
  for (const auto* attr : region->decl->specific_attrs<AnnotateAttr>())
    if (attr->getAnnotation() == "adjoint_write_once") return true;
  return false;
}

std::string no_derivative(const FunctionDecl* callee, const UnitFacts& unit) {
  if (std::optional<Message> mismatch = custom_pullback_mismatch(callee, unit)) return text(*mismatch);
  // An operator without a custom-pullback name (`operator=`, `operator<<`) cannot be given one.
  std::string base = base_name(callee, unit);
  auto* method = dyn_cast<CXXMethodDecl>(callee);
  bool member = with_object(callee) || (method && method->isStatic());
  std::string pullback = base.empty() ? "" : "adjoint::custom_derivatives::" +
                                                 std::string(member ? "class_functions::" : "") + base + "_pullback";
  std::string name = "'" + callee->getQualifiedNameAsString() + "'";
  if (is_library(callee))
    return "library function " + name +
           " has no derivative rule in adjc (it never differentiates a library's code; docs/adjc.md, "
           "\"Library functions\"); " +
           (pullback.empty() ? "write the computation without it" : "define " + pullback);
  return name + " has no body and no custom pullback (" + (pullback.empty() ? "give it a body" : "define " + pullback) +
         ")";
}

static bool has_differentiable_param(const FunctionDecl* callee) {
  for (const AdParam& p : ad_params(callee))
    if (is_differentiable(p.type) || reaches_differentiable(p.type)) return true;
  return false;
}

bool hoisted_callee(const FunctionDecl* callee, const UnitFacts& unit) {
  if (unit.pointer_results.count(callee->getCanonicalDecl())) return false;
  if (callee_kind(callee, unit) != CalleeKind::Plain || (derivative_free(callee) && has_differentiable_param(callee)))
    return true;
  // Its result may change from call to call: the reverse must not call it again.
  for (const AdParam& p : ad_params(callee))
    if (writes_numbers(p.type)) return true;
  return false;
}

CalleeKind callee_kind(const FunctionDecl* callee, const UnitFacts& unit) {
  // A lambda's function exists only as generated code: every call goes to its forward.
  if (unit.closure_of.count(callee)) return CalleeKind::User;
  if (unit.pointer_results.count(callee->getCanonicalDecl())) return CalleeKind::Plain;
  if (!has_differentiable_param(callee) || derivative_free(callee)) return CalleeKind::Plain;
  if (custom_pullback(callee, unit)) return CalleeKind::Custom;
  if (callee->getDefinition() && callee->getDefinition()->hasBody() && !is_library(callee)) return CalleeKind::User;
  return CalleeKind::Plain;
}

namespace {

// `accumulate_adjoint(V&, const V&)` makes V a value class.
void add_value_class(const FunctionDecl* f, std::set<const Type*>& value_classes) {
  if (!f->getIdentifier() || f->getName() != "accumulate_adjoint" || f->getNumParams() != 2) return;
  QualType into = f->getParamDecl(0)->getType();
  if (into->isLValueReferenceType() && into->getPointeeType()->isRecordType())
    value_classes.insert(into->getPointeeType().getCanonicalType().getUnqualifiedType().getTypePtr());
}

// The facts `dc`'s declarations add to `unit`, and those of the namespaces (and linkage
// specifications) in it; `in_reader`: `dc` is `adjoint` or `clad`, declared directly in the unit.
void add_unit_facts(const DeclContext* dc, bool in_reader, ASTContext& context, UnitFacts& unit) {
  for (const Decl* d : dc->decls()) {
    if (auto* f = dyn_cast<FunctionDecl>(d)) add_value_class(f, unit.value_classes);
    auto* ns = dyn_cast<NamespaceDecl>(d);
    if (in_reader && ns && ns->getName() == "custom_derivatives") add_custom_pullbacks(ns, unit.custom);
    if (in_reader && ns && ns->getName() == "numerical_diff")
      for (const Decl* n : ns->decls())
        if (auto* t = dyn_cast<FunctionTemplateDecl>(n); t && t->getName() == "central_difference_pullback")
          unit.custom.numerical = t;
    if (!in_reader && ns && ns->getName() == "custom_derivatives" &&
        !context.getSourceManager().isInSystemHeader(ns->getLocation())) {
      // Another namespace's, read the same way and reported.
      CustomPullbacks elsewhere;
      add_custom_pullbacks(ns, elsewhere);
      for (const auto* table : {&elsewhere.free, &elsewhere.members})
        for (const auto& [name, pullback] : *table)
          if (llvm::StringRef(name).ends_with("_pullback")) unit.custom.misplaced.push_back(pullback);
    }
    if (ns || isa<LinkageSpecDecl>(d))
      add_unit_facts(cast<DeclContext>(d),
                     dc == context.getTranslationUnitDecl() && ns &&
                         (ns->getName() == "adjoint" || ns->getName() == "clad") &&
                         ns->getParent()->getRedeclContext()->isTranslationUnit(),
                     context, unit);
  }
}

}  // namespace

// One walk over the namespaces (and linkage specifications) of the unit. Custom pullbacks live in
// `adjoint::custom_derivatives`, or Clad's `clad::custom_derivatives` (include/clad), with
// `adjoint` or `clad` declared directly in the unit; accumulate_adjoint may be declared in any
// namespace.
UnitFacts find_unit_facts(ASTContext& context, Sema& sema) {
  UnitFacts unit;
  unit.custom.sema = &sema;
  add_unit_facts(context.getTranslationUnitDecl(), false, context, unit);
  return unit;
}

}  // namespace adjc
