// std::vector and std::array in differentiated code (containers.hpp): the subset adjc models,
// rewritten into the array forms the passes lower, and a diagnostic naming anything else.
#include "containers.hpp"

#include <clang/AST/DeclTemplate.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <set>

#include "classify.hpp"

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

// The member function `name` of `record` taking `arity` arguments.
CXXMethodDecl* find_method(const CXXRecordDecl* record, ASTContext& context, const char* name, unsigned arity,
                           bool is_const) {
  for (NamedDecl* d : record->lookup(&context.Idents.get(name)))
    if (auto* m = dyn_cast<CXXMethodDecl>(d); m && m->getNumParams() == arity && m->isConst() == is_const &&
                                              (arity == 0 || m->getParamDecl(0)->getType()->isIntegerType()))
      return m;
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

const char* kUnnamed = "have the function write into a 'std::vector<T>&' parameter instead";

const char* kSupported =
    "adjc supports operator[], at(), size(), empty(), data(), front(), back(), push_back(), resize(), "
    "assign(n, value), clear() and range-for on them (docs/adjc.md, \"std::vector and std::array\")";

class Rewrite {
 public:
  Rewrite(const UnitFacts& unit, ASTContext& context, Diagnostics& diags)
      : unit_(unit), context_(context), diags_(diags) {}
  bool ok = true;

  Stmt* visit(Stmt* s) {
    if (!s) return s;
    if (auto* range = dyn_cast<CXXForRangeStmt>(s)) {
      // Lowered by lower.cpp into a counted loop: only the body is rewritten here.
      if (!is_container(range->getRangeInit()->getType())) return s;
      if (!named_container(range->getRangeInit()))
        fail(range->getRangeInit()->getBeginLoc(),
             "a range-for over a std::vector or std::array must name a variable or a member");
      range->setBody(visit(range->getBody()));
      return s;
    }
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(s)) {
      for (unsigned i = 0; i < op->getNumArgs(); ++i)
        if (is_container(op->getArg(i)->getType())) return operator_call(op);
    }
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(s); mc && is_container(mc->getImplicitObjectArgument()->getType()))
      return member_call(mc);
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
        if (!named_container(a))
          fail(a->getBeginLoc(), "a std::vector or std::array argument that is not a variable or a member (such as "
                                 "a function's result) is not supported; " + std::string(kUnnamed));
        else if (!callee || is_library(callee))
          fail(a->getBeginLoc(), "passing a std::vector or std::array to library function '" +
                                     (callee ? callee->getQualifiedNameAsString() : std::string("?")) +
                                     "' is not supported; " + kSupported);
      }
      return s;
    }
    if (auto* e = dyn_cast<Expr>(s); e && (isa<DeclRefExpr>(e) || isa<MemberExpr>(e)) && is_container(e->getType())) {
      fail(e->getExprLoc(), "std::vector or std::array '" + spelled(e) +
                                "' used as a whole (copied, assigned or converted), which is not supported; " +
                                kSupported);
      return s;
    }
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      // A local container's initialiser is lowered by lower.cpp, which reports the forms it does not model.
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
    // An OpenMP loop: its statement, a loop rewritten in place (the captures and the directive's
    // helper expressions are not what lowering reads).
    if (auto* omp = dyn_cast<OMPExecutableDirective>(s)) {
      if (omp->hasAssociatedStmt()) visit(omp->getInnermostCapturedStmt()->getCapturedStmt());
      return s;
    }
    if (auto* captured = dyn_cast<CapturedStmt>(s)) {
      visit(captured->getCapturedStmt());
      return s;
    }
    for (Stmt*& c : s->children()) c = visit(c);
    return s;
  }

 private:
  const UnitFacts& unit_;
  ASTContext& context_;
  Diagnostics& diags_;

  void fail(SourceLocation at, const std::string& message) {
    diags_.error(at, message);
    ok = false;
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
        fail(op->getBeginLoc(), "indexing a std::vector or std::array that is not a variable or a member (such as "
                                "a function's result) is not supported; " + std::string(kUnnamed));
        return op;
      }
      Expr* index = cast<Expr>(visit(op->getArg(1)));
      return container_subscript(context_, object, index);
    }
    for (unsigned i = 0; i < op->getNumArgs(); ++i)
      if (is_container(op->getArg(i)->getType())) {
        fail(op->getBeginLoc(), "operator" + std::string(getOperatorSpelling(op->getOperator())) + " on " +
                                    class_name(op->getArg(i)->getType()) + " '" + spelled(op->getArg(i)) +
                                    "' is not supported (a copy or comparison of the whole container); " + kSupported);
        break;
      }
    return op;
  }

  Stmt* member_call(CXXMemberCallExpr* mc) {
    const Expr* object = mc->getImplicitObjectArgument();
    std::string name = mc->getMethodDecl()->getNameAsString();
    if (!named_container(object)) {
      fail(mc->getBeginLoc(), "calling '" + name + "' on a std::vector or std::array that is not a variable or a "
                              "member (such as a function's result) is not supported; " + std::string(kUnnamed));
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
    if (((name == "push_back" || name == "emplace_back") && mc->getNumArgs() == 1) || refill_call(mc)) {
      for (unsigned i = 0; i < mc->getNumArgs(); ++i) mc->setArg(i, cast<Expr>(visit(mc->getArg(i))));
      return mc;
    }
    if (name == "at" && mc->getNumArgs() == 1) {
      Expr* element = container_subscript(context_, object, cast<Expr>(visit(mc->getArg(0))));
      unit_.container_at.insert(element);
      return element;
    }
    fail(mc->getExprLoc(), "'" + class_name(object->getType()) + "::" + name + "' is not supported on " +
                               class_name(object->getType()) + " '" + spelled(object) + "' in differentiated code; " +
                               kSupported);
    return mc;
  }

  Expr* int_literal(uint64_t v, QualType t = QualType()) {
    if (t.isNull()) t = context_.getSizeType();
    return IntegerLiteral::Create(context_, llvm::APInt(context_.getIntWidth(t), v), t, SourceLocation());
  }
};

}  // namespace

bool is_container(QualType t) { return container_decl(t) != nullptr; }

bool is_vector(QualType t) {
  const ClassTemplateSpecializationDecl* d = container_decl(t);
  return d && d->getName() == "vector";
}

QualType container_element(QualType t) { return container_decl(t)->getTemplateArgs()[0].getAsType(); }

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

Expr* container_call(ASTContext& context, const UnitFacts& unit, const Expr* object, const char* name,
                     llvm::ArrayRef<Expr*> args, bool sizing) {
  QualType t = object->getType();
  const CXXRecordDecl* record = t->getAsCXXRecordDecl();
  CXXMethodDecl* m = find_method(record, context, name, args.size(), !sizing);
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

bool is_sizing_call(const CallExpr* call, const UnitFacts& unit) { return unit.sizing_calls.count(call) > 0; }

void keep_local_vectors(FunctionIR& ir) {
  for (auto& v : ir.vars)
    if (v->kind == VarKind::Local && is_vector(v->type)) v->kept = true;
}

}  // namespace adjc
