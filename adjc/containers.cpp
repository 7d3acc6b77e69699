// std::vector and std::array in differentiated code (containers.hpp): the subset adjc models,
// rewritten into the array forms the passes lower, and a diagnostic naming anything else.
#include "containers.hpp"

#include <clang/AST/DeclTemplate.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <algorithm>
#include <map>
#include <set>

#include "ast_rewrite.hpp"
#include "classify.hpp"
#include "tape_plan.hpp"

namespace adjc {

using namespace clang;

namespace {

const ClassTemplateSpecializationDecl* container_decl(QualType t) {
  if (t.isNull()) return nullptr;
  t = t.getNonReferenceType().getCanonicalType();
  auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
  if (!spec || !spec->isInStdNamespace() || !spec->getIdentifier()) return nullptr;
  StringRef name = spec->getName();
  if (name != "vector" && name != "array") return nullptr;
  const TemplateArgumentList& args = spec->getTemplateArgs();
  if (args.size() < 1 || args[0].getKind() != TemplateArgument::Type) return nullptr;
  QualType element = args[0].getAsType().getCanonicalType();
  if (!element->isArithmeticType() || element->isBooleanType()) return nullptr;
  if (name == "vector") {  // with the standard allocator
    auto* alloc = args.size() > 1 && args[1].getKind() == TemplateArgument::Type
                      ? args[1].getAsType()->getAsCXXRecordDecl()
                      : nullptr;
    if (!alloc || !alloc->getIdentifier() || alloc->getName() != "allocator") return nullptr;
  }
  return spec;
}

// The member function `name` of `record` taking `arity` arguments, the first a count (size, resize,
// assign).
CXXMethodDecl* find_method(const CXXRecordDecl* record, ASTContext& context, const char* name, unsigned arity) {
  for (NamedDecl* d : record->lookup(&context.Idents.get(name)))
    if (auto* m = dyn_cast<CXXMethodDecl>(d);
        m && m->getNumParams() == arity && (arity == 0 || m->getParamDecl(0)->getType()->isIntegerType()))
      return m;
  return nullptr;
}

// `const T& max(const T&, const T&)` (or min) of the library that declares the list form
// `list_form`, for T: the unit's specialization, or one made here when the unit instantiates none
// (adjc only prints its calls and applies the max/min rule to them).
FunctionDecl* two_argument_overload(const FunctionDecl* list_form, QualType t, ASTContext& context) {
  const FunctionTemplateDecl* primary = list_form->getPrimaryTemplate();
  if (!primary) return nullptr;
  for (NamedDecl* d : primary->getDeclContext()->lookup(list_form->getDeclName())) {
    auto* overload = dyn_cast<FunctionTemplateDecl>(d);
    if (!overload || overload->getTemplateParameters()->size() != 1) continue;
    FunctionDecl* pattern = overload->getTemplatedDecl();
    if (pattern->getNumParams() != 2 || !pattern->getParamDecl(0)->getType()->isLValueReferenceType()) continue;
    TemplateArgument arg(t);
    void* position = nullptr;
    if (FunctionDecl* existing = overload->findSpecialization(arg, position)) return existing;
    QualType ref = context.getLValueReferenceType(t.withConst());
    QualType type = context.getFunctionType(ref, {ref, ref}, FunctionProtoType::ExtProtoInfo());
    SourceLocation at = pattern->getLocation();
    auto* f = FunctionDecl::Create(context, pattern->getDeclContext(), at, at, pattern->getDeclName(), type,
                                   context.getTrivialTypeSourceInfo(type, at), SC_None);
    std::vector<ParmVarDecl*> params;
    for (const ParmVarDecl* p : pattern->parameters())
      params.push_back(ParmVarDecl::Create(context, f, at, at, p->getIdentifier(), ref,
                                           context.getTrivialTypeSourceInfo(ref, at), SC_None, nullptr));
    f->setParams(params);
    f->setFunctionTemplateSpecialization(overload, TemplateArgumentList::CreateCopy(context, arg), position);
    return f;
  }
  return nullptr;
}

// Whether `e` names a container that generated code can print and index: a variable or a member.
const Expr* named_container(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
    e = c->getArg(0)->IgnoreParenImpCasts();
  if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr()->IgnoreParenImpCasts();
  if (!is_container(e->getType())) return nullptr;
  return isa<DeclRefExpr>(e) || isa<MemberExpr>(e) ? e : nullptr;
}

class Rewrite : public AstRewrite {
 public:
  using AstRewrite::AstRewrite;

  Stmt* visit(Stmt* s) {
    if (!s) return s;
    if (auto* range = dyn_cast<CXXForRangeStmt>(s)) {
      // Lowered by lower_containers.cpp into a counted loop over the range: only the body, and the
      // elements of a braced list, are rewritten here.
      Expr* init = range->getRangeInit();
      if (VarDecl* values = list_array(init)) {
        cast<VarDecl>(range->getRangeStmt()->getSingleDecl())->setInit(array_ref(values, init));
      } else if (!is_container(init->getType())) {
        for (Stmt*& c : init->children()) c = visit(c);
      } else if (!named_container(init)) {
        fail(init->getBeginLoc(), Diag::range_for_over_unnamed_container);
      }
      range->setBody(visit(range->getBody()));
      return s;
    }
    // A braced list passed to a function or a function object (an operator such as a vector's `=`
    // is reported with the container).
    if (auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXMemberCallExpr>(s)) {
      auto* op = dyn_cast<CXXOperatorCallExpr>(s);
      for (const Expr* a : call->arguments())
        if (is_initializer_list(a->getType()) && !list_array(a) && (!op || op->getOperator() == OO_Call))
          return braced_call(call);
    }
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(s)) {
      for (unsigned i = 0; i < op->getNumArgs(); ++i)
        if (is_container(op->getArg(i)->getType())) return operator_call(op);
    }
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && list_array(mc->getImplicitObjectArgument()))
      return list_member_call(mc);
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && is_container(mc->getImplicitObjectArgument()->getType()))
      return member_call(mc);
    if (auto* ref = dyn_cast<DeclRefExpr>(s); ref && list_array(ref)) {
      fail(ref->getLocation(), Diag::unsupported_initializer_list_used_other_range,
           {ref->getDecl()->getNameAsString()});
      return s;
    }
    if (auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXOperatorCallExpr>(s) && !isa<CXXMemberCallExpr>(s)) {
      // A container passed whole to a user function (by value or reference): the callee is
      // differentiated with it as a parameter. Library functions do not get them.
      const FunctionDecl* callee = call->getDirectCallee();
      for (unsigned i = 0; i < call->getNumArgs(); ++i) {
        Expr* a = call->getArg(i);
        if (!is_container(a->getType())) {
          call->setArg(i, cast<Expr>(visit(a)));
          continue;
        }
        if (!named_container(a)) fail(a->getBeginLoc(), Diag::unsupported_vector_array_argument_not_variable);
        else if (!callee || is_library(callee))
          fail(a->getBeginLoc(), Diag::unsupported_passing_vector_array_library_function,
               {(callee ? callee->getQualifiedNameAsString() : std::string("?"))});
      }
      return s;
    }
    if (auto* e = dyn_cast<Expr>(s); e && (isa<DeclRefExpr>(e) || isa<MemberExpr>(e)) && is_container(e->getType())) {
      fail(e->getExprLoc(), Diag::unsupported_vector_array_used_whole_copied, {spelled(e)});
      return s;
    }
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      // A local container's initialiser is lowered by lower.cpp, which reports the forms it does not model.
      if (std::any_of(ds->decl_begin(), ds->decl_end(), [](Decl* d) {
            auto* vd = dyn_cast<VarDecl>(d);
            return vd && number_list(vd->getType());
          }))
        declare_list_arrays(ds);
      for (Decl* d : ds->decls())
        if (auto* vd = dyn_cast<VarDecl>(d); vd && vd->getInit()) {
          if (is_container(vd->getType())) {
            if (auto* c = dyn_cast<CXXConstructExpr>(vd->getInit()->IgnoreImplicit())) {
              if (!c->getConstructor()->isCopyOrMoveConstructor())  // copies: lower.cpp reports them
                for (unsigned i = 0; i < c->getNumArgs(); ++i) c->setArg(i, cast<Expr>(visit(c->getArg(i))));
            } else if (!isa<InitListExpr>(vd->getInit()->IgnoreImplicit())) {
              visit(vd->getInit());
            } else {
              for (Stmt*& c : vd->getInit()->IgnoreImplicit()->children()) c = visit(c);
            }
            continue;
          }
          vd->setInit(cast<Expr>(visit(vd->getInit())));
        }
      return s;
    }
    if (isa<LambdaExpr>(s)) return s;  // its body is differentiated as a function of its own
    if (visit_region(s, [&](Stmt* held) { visit(held); })) return s;
    for (Stmt*& c : s->children()) c = visit(c);
    return s;
  }

 private:
  // The local arrays that stand for local std::initializer_lists of numbers, by the list's declaration.
  std::map<const VarDecl*, VarDecl*> list_arrays_;

  static bool number_list(QualType t) {
    if (!is_initializer_list(t)) return false;
    auto* spec = cast<ClassTemplateSpecializationDecl>(t.getNonReferenceType()->getAsCXXRecordDecl());
    QualType element = spec->getTemplateArgs()[0].getAsType().getCanonicalType();
    return element->isArithmeticType() && !element->isBooleanType();
  }

  // `auto&& r = {a, b, c};`, `std::initializer_list<double> r = {a, b}`: a std::initializer_list of
  // numbers is a constant array, so the local becomes the array `const T r[N] = {a, b, c}` (its
  // uses: list_array, list_member_call). Any other initialiser (a copy of another list) is reported.
  void declare_list_arrays(DeclStmt* ds) {
    std::vector<Decl*> decls;
    for (Decl* d : ds->decls()) {
      auto* vd = dyn_cast<VarDecl>(d);
      if (!vd || !number_list(vd->getType())) {
        decls.push_back(d);
        continue;
      }
      const Expr* init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
      if (auto* m = dyn_cast_or_null<MaterializeTemporaryExpr>(init)) init = m->getSubExpr()->IgnoreImplicit();
      auto* given = dyn_cast_or_null<CXXStdInitializerListExpr>(init);
      auto* list = given ? dyn_cast<InitListExpr>(given->getSubExpr()->IgnoreImplicit()) : nullptr;
      if (!list || !list->getType()->isConstantArrayType()) {
        fail(vd->getLocation(), Diag::unsupported_initializer_list_initialised_other_braced, {vd->getNameAsString()});
        decls.push_back(d);
        continue;
      }
      auto* values = VarDecl::Create(context_, vd->getDeclContext(), vd->getBeginLoc(), vd->getLocation(),
                                     vd->getIdentifier(), list->getType(),
                                     context_.getTrivialTypeSourceInfo(list->getType(), vd->getLocation()), SC_None);
      values->setInit(const_cast<InitListExpr*>(list));
      list_arrays_[vd] = values;
      decls.push_back(values);
    }
    ds->setDeclGroup(DeclGroupRef::Create(context_, decls.data(), decls.size()));
  }

  // The array a named std::initializer_list `e` stands for, or nullptr.
  VarDecl* list_array(const Expr* e) {
    e = e->IgnoreParenImpCasts();
    if (auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      e = c->getArg(0)->IgnoreParenImpCasts();
    auto* ref = dyn_cast<DeclRefExpr>(e);
    auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    auto found = vd ? list_arrays_.find(vd) : list_arrays_.end();
    return found == list_arrays_.end() ? nullptr : found->second;
  }

  Expr* array_ref(VarDecl* values, const Expr* use) {
    return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), values, false,
                               use->getExprLoc(), values->getType(), VK_LValue);
  }

  // `r.begin()`, `r.end()`, `r.size()` of a list that is the array `r`: `r`, `r + N`, `N`.
  Stmt* list_member_call(CXXMemberCallExpr* mc) {
    VarDecl* values = list_array(mc->getImplicitObjectArgument());
    const uint64_t n = context_.getAsConstantArrayType(values->getType())->getSize().getZExtValue();
    const std::string name = mc->getMethodDecl()->getNameAsString();
    if (name == "size") return int_literal(n, mc->getType());
    if (name != "begin" && name != "end") {
      fail(mc->getExprLoc(), Diag::unsupported_initializer_list_member, {name});
      return mc;
    }
    QualType pointer = context_.getArrayDecayedType(values->getType());
    Expr* first = ImplicitCastExpr::Create(context_, pointer, CK_ArrayToPointerDecay, array_ref(values, mc), nullptr,
                                           VK_PRValue, FPOptionsOverride());
    if (name == "begin") return first;
    return BinaryOperator::Create(context_, first, int_literal(n, context_.getPointerDiffType()), BO_Add, pointer,
                                  VK_PRValue, OK_Ordinary, mc->getExprLoc(), FPOptionsOverride());
  }

  std::string spelled(const Expr* e) {
    e = e->IgnoreParenImpCasts();
    if (auto* r = dyn_cast<DeclRefExpr>(e)) return r->getDecl()->getNameAsString();
    if (auto* m = dyn_cast<MemberExpr>(e)) return m->getMemberDecl()->getNameAsString();
    return "?";
  }

  std::string class_name(QualType t) {
    return "std::" + container_decl(t)->getName().str();
  }

  Stmt* operator_call(CXXOperatorCallExpr* op) {
    const Expr* object = op->getArg(0);
    if (op->getOperator() == OO_Subscript && is_container(object->getType())) {
      if (!named_container(object)) {
        fail(op->getBeginLoc(), Diag::unsupported_indexing_vector_array_not_variable);
        return op;
      }
      Expr* index = cast<Expr>(visit(op->getArg(1)));
      return container_subscript(context_, object, index);
    }
    for (unsigned i = 0; i < op->getNumArgs(); ++i)
      if (is_container(op->getArg(i)->getType())) {
        fail(op->getBeginLoc(), Diag::unsupported_container_operator,
             {std::string(getOperatorSpelling(op->getOperator())), class_name(op->getArg(i)->getType()),
              spelled(op->getArg(i))});
        break;
      }
    return op;
  }

  Stmt* member_call(CXXMemberCallExpr* mc) {
    const Expr* object = mc->getImplicitObjectArgument();
    std::string name = mc->getMethodDecl()->getNameAsString();
    // The size of a container built in place from integers (`std::vector<double>(3).size()`): a
    // value without derivative that the forward computes as written.
    if ((name == "size" || name == "empty") && sized_temporary(object, context_)) return mc;
    if (!named_container(object)) {
      fail(mc->getBeginLoc(), Diag::unsupported_calling_vector_array_not_variable, {name});
      return mc;
    }
    if (name == "size" || name == "empty") return mc;
    if (name == "data") {
      Expr* first = container_subscript(context_, object, int_literal(0));
      auto* data = UnaryOperator::Create(context_, first, UO_AddrOf, mc->getType(), VK_PRValue, OK_Ordinary,
                                         mc->getBeginLoc(), false, FPOptionsOverride());
      unit_.container_data.insert(data);
      return data;
    }
    if (name == "front") return container_subscript(context_, object, int_literal(0));
    if (name == "back") {
      Expr* size = container_call(context_, unit_, object, "size", {}, false);
      Expr* last = BinaryOperator::Create(context_, size, int_literal(1, size->getType()), BO_Sub, size->getType(),
                                          VK_PRValue, OK_Ordinary, mc->getBeginLoc(), FPOptionsOverride());
      return container_subscript(context_, object, last);
    }
    if (((name == "push_back" || name == "emplace_back") && mc->getNumArgs() == 1) || refill_call(mc) ||
        fill_call(mc)) {
      for (unsigned i = 0; i < mc->getNumArgs(); ++i) mc->setArg(i, cast<Expr>(visit(mc->getArg(i))));
      return mc;
    }
    if (name == "at" && mc->getNumArgs() == 1) {
      Expr* element = container_subscript(context_, object, cast<Expr>(visit(mc->getArg(0))));
      unit_.container_at.insert(element);
      return element;
    }
    fail(mc->getExprLoc(), Diag::unsupported_container_member_function,
         {class_name(object->getType()), name, class_name(object->getType()), spelled(object)});
    return mc;
  }

  // `std::max({a, b, c})`, `std::min({...})` of numbers: the nested two-argument calls
  // `std::max(std::max(a, b), c)`, which return the first largest (smallest) element as the
  // list forms do and which the max/min rule differentiates. A std::initializer_list passed to
  // anything else is reported.
  Stmt* braced_call(CallExpr* call) {
    const FunctionDecl* callee = call->getDirectCallee();
    std::string name = callee ? callee->getQualifiedNameAsString() : std::string("?");
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(call); op && op->getOperator() == OO_Call) {
      // A function object (`std::ranges::max`): named by the object.
      if (auto* object = dyn_cast<DeclRefExpr>(op->getArg(0)->IgnoreImplicit()))
        name = object->getDecl()->getQualifiedNameAsString();
    }
    bool selection = callee && !isa<CXXOperatorCallExpr>(call) && callee->isInStdNamespace() &&
                     callee->getIdentifier() && (callee->getName() == "max" || callee->getName() == "min");
    if (!selection || call->getNumArgs() != 1) {
      fail(call->getBeginLoc(), Diag::unsupported_passing_braced_list_initializer_list, {name});
      return call;
    }
    name = "std::" + callee->getName().str();
    auto* given = dyn_cast<CXXStdInitializerListExpr>(call->getArg(0)->IgnoreImplicit());
    auto* list = given ? dyn_cast<InitListExpr>(given->getSubExpr()->IgnoreImplicit()) : nullptr;
    if (!list || list->getNumInits() == 0) {
      fail(call->getBeginLoc(), Diag::min_max_needs_braced_list, {name, name});
      return call;
    }
    QualType t = call->getType().getCanonicalType().getUnqualifiedType();
    if (!t->isArithmeticType()) {
      fail(call->getBeginLoc(), Diag::unsupported_min_max_braced_list_type,
           {name, call->getType().getAsString(context_.getPrintingPolicy())});
      return call;
    }
    SourceLocation at = call->getBeginLoc();
    // The elements, converted to T explicitly where the list converts them: generated code prints
    // no implicit conversion, and the reverse must compare the values the forward compared.
    for (unsigned i = 0; i < list->getNumInits(); ++i) {
      auto* e = cast<Expr>(visit(list->getInit(i)));
      if (!context_.hasSameUnqualifiedType(e->IgnoreImpCasts()->getType(), t))
        e = CStyleCastExpr::Create(context_, t, VK_PRValue, CK_NoOp, e, nullptr, FPOptionsOverride(),
                                   context_.getTrivialTypeSourceInfo(t, at), at, at);
      list->setInit(i, e);
    }
    if (list->getNumInits() == 1) return list->getInit(0);
    FunctionDecl* pair = two_argument_overload(callee, t, context_);
    if (!pair) {
      fail(at, Diag::min_max_braced_list_no_two_argument, {name, name, name, name});
      return call;
    }
    auto argument = [&](Expr* e) -> Expr* {  // bound to `const T&`, as a call's argument is
      if (auto* read = dyn_cast<ImplicitCastExpr>(e); read && read->getCastKind() == CK_LValueToRValue &&
                                                      context_.hasSameUnqualifiedType(read->getSubExpr()->getType(), t))
        return read->getSubExpr();
      return new (context_) MaterializeTemporaryExpr(t.withConst(), e, true);
    };
    Expr* chosen = argument(list->getInit(0));
    for (unsigned i = 1; i < list->getNumInits(); ++i) {
      auto* ref = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), pair, false, at,
                                      pair->getType(), VK_LValue);
      Expr* function =
          ImplicitCastExpr::Create(context_, context_.getPointerType(pair->getType()), CK_FunctionToPointerDecay, ref,
                                   nullptr, VK_PRValue, FPOptionsOverride());
      chosen = CallExpr::Create(context_, function, {chosen, argument(list->getInit(i))}, t.withConst(), VK_LValue, at,
                                FPOptionsOverride());
    }
    return ImplicitCastExpr::Create(context_, t, CK_LValueToRValue, chosen, nullptr, VK_PRValue, FPOptionsOverride());
  }

  Expr* int_literal(uint64_t v, QualType t = QualType()) {
    if (t.isNull()) t = context_.getSizeType();
    return IntegerLiteral::Create(context_, llvm::APInt(context_.getIntWidth(t), v), t, SourceLocation());
  }
};

}  // namespace

bool is_container(QualType t) { return container_decl(t) != nullptr; }

bool is_initializer_list(QualType t) {
  auto* record = t.isNull() ? nullptr : t.getNonReferenceType()->getAsCXXRecordDecl();
  return record && record->isInStdNamespace() && record->getIdentifier() && record->getName() == "initializer_list";
}

bool is_vector(QualType t) {
  const ClassTemplateSpecializationDecl* d = container_decl(t);
  return d && d->getName() == "vector";
}

QualType container_element(QualType t) { return container_decl(t)->getTemplateArgs()[0].getAsType(); }

bool is_allocator_of(const Expr* e, QualType vector) {
  if (!is_vector(vector)) return false;
  QualType allocator = container_decl(vector)->getTemplateArgs()[1].getAsType().getCanonicalType();
  return e->getType().getCanonicalType().getUnqualifiedType() == allocator;
}

uint64_t array_size(QualType t) { return container_decl(t)->getTemplateArgs()[1].getAsIntegral().getZExtValue(); }

bool rewrite_containers(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, Diagnostics& diags) {
  Rewrite r(unit, context, diags);
  r.visit(const_cast<Stmt*>(fn->getBody()));
  return r.ok;
}

const Expr* container_data_object(const Expr* e, const UnitFacts& unit) {
  if (!unit.container_data.count(e)) return nullptr;
  return cast<ArraySubscriptExpr>(cast<UnaryOperator>(e)->getSubExpr())->getBase();
}

const CXXMemberCallExpr* push_back_call(const Expr* e) {
  auto* mc = dyn_cast<CXXMemberCallExpr>(e);
  if (!mc || !is_vector(mc->getImplicitObjectArgument()->getType()) || mc->getNumArgs() != 1) return nullptr;
  std::string name = mc->getMethodDecl()->getNameAsString();
  return name == "push_back" || name == "emplace_back" ? mc : nullptr;
}

const CXXMemberCallExpr* refill_call(const Expr* e) {
  auto* mc = dyn_cast<CXXMemberCallExpr>(e);
  if (!mc || !is_vector(mc->getImplicitObjectArgument()->getType())) return nullptr;
  std::string name = mc->getMethodDecl()->getNameAsString();
  unsigned n = mc->getNumArgs();
  bool sized = n >= 1 && mc->getArg(0)->getType()->isIntegerType();
  if ((name == "resize" && (n == 1 || n == 2) && sized) || (name == "assign" && n == 2 && sized) ||
      (name == "clear" && n == 0))
    return mc;
  return nullptr;
}

const CXXMemberCallExpr* fill_call(const Expr* e) {
  auto* mc = dyn_cast<CXXMemberCallExpr>(e);
  QualType t = mc ? mc->getImplicitObjectArgument()->getType() : QualType();
  if (!mc || !is_container(t) || is_vector(t) || mc->getNumArgs() != 1) return nullptr;
  return mc->getMethodDecl()->getName() == "fill" ? mc : nullptr;
}

Expr* container_call(ASTContext& context, const UnitFacts& unit, const Expr* object, const char* name,
                     llvm::ArrayRef<Expr*> args, bool sizing) {
  QualType t = object->getType();
  const CXXRecordDecl* record = t->getAsCXXRecordDecl();
  CXXMethodDecl* m = find_method(record, context, name, args.size());
  assert(m && "std::vector and std::array declare size, resize and assign");
  auto* callee = MemberExpr::CreateImplicit(context, const_cast<Expr*>(object), false, m, context.BoundMemberTy,
                                            VK_PRValue, OK_Ordinary);
  QualType result = m->getReturnType();
  auto* call = CXXMemberCallExpr::Create(context, callee, args, result.getNonReferenceType(), VK_PRValue,
                                         object->getBeginLoc(), FPOptionsOverride());
  if (sizing) unit.sizing_calls.insert(call);
  return call;
}

Expr* container_subscript(ASTContext& context, const Expr* object, const Expr* index) {
  QualType element = container_element(object->getType());
  if (object->getType().isConstQualified() || object->getType().getNonReferenceType().isConstQualified())
    element.addConst();
  return new (context) ArraySubscriptExpr(const_cast<Expr*>(object), const_cast<Expr*>(index), element, VK_LValue,
                                          OK_Ordinary, object->getBeginLoc());
}

bool sized_temporary(const Expr* e, const ASTContext& context) {
  for (const Expr* inner = nullptr; inner != e; ) {
    inner = e;
    e = e->IgnoreParenImpCasts();
    if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    if (auto* f = dyn_cast<CXXFunctionalCastExpr>(e)) e = f->getSubExpr();
  }
  auto plain = [&](const Expr* a) {
    return isa<CXXDefaultArgExpr>(a) || (a->getType()->isArithmeticType() && !a->HasSideEffects(context));
  };
  if (!is_container(e->getType())) return false;
  if (auto* c = dyn_cast<CXXConstructExpr>(e)) return std::all_of(c->arg_begin(), c->arg_end(), plain);
  auto* list = dyn_cast<InitListExpr>(e);
  return list && std::all_of(list->begin(), list->end(), [&](const Stmt* a) { return plain(cast<Expr>(a)); });
}

bool is_sizing_call(const CallExpr* call, const UnitFacts& unit) { return unit.sizing_calls.count(call) > 0; }

void keep_local_vectors(const FunctionIR& ir, TapePlan& plan) {
  for (auto& v : ir.vars)
    if (v->kind == VarKind::Local && is_vector(v->type)) plan[v.get()].kept = true;
}

}  // namespace adjc
