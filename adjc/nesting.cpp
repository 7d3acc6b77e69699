// Nested requests by staged generation (nesting.hpp): which requests wait for a later stage, and
// the calls of an earlier stage's derivatives made direct.
#include "nesting.hpp"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Sema/Sema.h>

#include <functional>
#include <map>
#include <regex>

#include "walk.hpp"

namespace adjc {

using namespace clang;

namespace {

// The function whose body `call` is written in, else nullptr.
const FunctionDecl* enclosing_function(const CallExpr* call, ASTContext& context) {
  for (DynTypedNodeList parents = context.getParents(*call); !parents.empty(); parents = context.getParents(parents[0]))
    if (auto* f = parents[0].get<FunctionDecl>()) return f;
  return nullptr;
}

// The functions an expression or body names: called, referred to, constructed, or the call
// operators of the lambdas and function objects it holds.
class NamedFunctions : public RecursiveASTVisitor<NamedFunctions> {
 public:
  std::vector<const FunctionDecl*> found;
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitDeclRefExpr(DeclRefExpr* e) {
    if (auto* f = dyn_cast<FunctionDecl>(e->getDecl())) found.push_back(f);
    add_call_operators(e->getType());
    return true;
  }
  bool VisitMemberExpr(MemberExpr* e) {
    if (auto* f = dyn_cast<FunctionDecl>(e->getMemberDecl())) found.push_back(f);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr* e) {
    found.push_back(e->getConstructor());
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr* e) {
    found.push_back(e->getCallOperator());
    return true;
  }

 private:
  void add_call_operators(QualType t) {
    if (auto* r = t.getNonReferenceType()->getAsCXXRecordDecl(); r && r->hasDefinition())
      for (const CXXMethodDecl* m : r->methods())
        if (m->getOverloadedOperator() == OO_Call) found.push_back(m);
  }
};

}  // namespace

std::set<const CallExpr*> waiting_requests(const std::vector<const CallExpr*>& requests, ASTContext& context) {
  std::set<const FunctionDecl*> holding;  // functions a request is written in
  for (const CallExpr* call : requests)
    if (const FunctionDecl* f = enclosing_function(call, context)) holding.insert(f->getCanonicalDecl());
  std::map<const FunctionDecl*, bool> reaches;  // memo: reaches a holding function
  std::function<bool(const FunctionDecl*)> reaches_request = [&](const FunctionDecl* f) {
    f = f->getCanonicalDecl();
    if (holding.count(f)) return true;
    auto [it, fresh] = reaches.emplace(f, false);
    if (!fresh) return it->second;  // done, or on the path (a recursion)
    const FunctionDecl* def = f->getDefinition();
    if (!def || !def->getBody() || context.getSourceManager().isInSystemHeader(def->getLocation())) return false;
    NamedFunctions named;
    named.TraverseStmt(const_cast<Stmt*>(def->getBody()));
    for (const FunctionDecl* g : named.found)
      if (reaches_request(g)) return reaches[f] = true;
    return false;
  };
  // A function declared without a body under the name of a first derivative (`f_darg0`) of a
  // function another request names: that request defines it in this stage (Clad's users declare
  // it to call it, and may differentiate it in turn).
  std::set<std::string> requested;
  for (const CallExpr* call : requests) {
    NamedFunctions named;
    named.TraverseStmt(const_cast<Expr*>(call->getArg(0)));
    for (const FunctionDecl* g : named.found) requested.insert(g->getQualifiedNameAsString());
  }
  auto generated_in_this_stage = [&](const FunctionDecl* g) {
    static const std::regex derivative_name("(.+)_darg[0-9]+");
    std::smatch m;
    const std::string name = g->getQualifiedNameAsString();
    return !g->isDefined() && std::regex_match(name, m, derivative_name) && requested.count(m[1].str());
  };
  std::set<const CallExpr*> waiting;
  for (const CallExpr* call : requests) {
    NamedFunctions named;
    named.TraverseStmt(const_cast<Expr*>(call->getArg(0)));
    for (const FunctionDecl* g : named.found)
      if (reaches_request(g) || generated_in_this_stage(g)) waiting.insert(call);
  }
  return waiting;
}

const FunctionDecl* derivative_object_function(QualType t) {
  auto* s = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t.getNonReferenceType()->getAsCXXRecordDecl());
  if (!s || s->getName() != "derivative_function" || s->getQualifiedNameAsString() != "adjoint::derivative_function")
    return nullptr;
  const TemplateArgument& a = s->getTemplateArgs()[0];
  return a.getKind() == TemplateArgument::Declaration ? dyn_cast<FunctionDecl>(a.getAsDecl()) : nullptr;
}

bool resolve_derivative_calls(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, Diagnostics& diags) {
  bool ok = true;
  auto direct = [&](Stmt*& s) {
    // A derivative object's initialiser (the source text's function) is not differentiated: lowering
    // drops the variable, whose execute calls name the function.
    if (auto* decls = dyn_cast<DeclStmt>(s))
      for (Decl* d : decls->decls())
        if (auto* vd = dyn_cast<VarDecl>(d); vd && derivative_object_function(vd->getType())) vd->setInit(nullptr);
    auto* call = dyn_cast<CXXMemberCallExpr>(s);
    const FunctionDecl* target = call && call->getMethodDecl()->getName() == "execute"
                                     ? derivative_object_function(call->getObjectType())
                                     : nullptr;
    if (!target) return true;
    std::vector<Expr*> args;
    for (Expr* a : call->arguments()) {
      // `execute` takes its arguments by forwarding reference: past the temporaries it binds.
      if (auto* m = dyn_cast<MaterializeTemporaryExpr>(a)) a = m->getSubExpr();
      args.push_back(a);
    }
    auto* f = const_cast<FunctionDecl*>(target);
    Expr* callee = DeclRefExpr::Create(context, NestedNameSpecifierLoc(), SourceLocation(), f, false,
                                       call->getExprLoc(), f->getType(), VK_LValue);
    ExprResult made = ExprError();
    if (Sema* sema = unit.custom.sema) {
      Sema::SFINAETrap trap(*sema);  // a call that does not fit is reported below, as adjc's error
      made = sema->BuildCallExpr(nullptr, callee, call->getBeginLoc(), args, call->getEndLoc());
      if (trap.hasErrorOccurred()) made = ExprError();
    }
    if (made.isInvalid()) {
      diags.error(call->getBeginLoc(), Diag::nested_call_not_resolved, {f->getNameAsString()});
      ok = false;
      return true;
    }
    s = made.get();
    return false;
  };
  for (Stmt*& s : fn->getBody()->children()) rewrite_statements(s, direct, [](Stmt*&) {});
  return ok;
}

std::string fresh_name(ASTContext& context, const std::string& stem, size_t index, std::set<std::string>& used) {
  std::string name = stem + "_" + std::to_string(index);
  while (context.Idents.find(name) != context.Idents.end() || used.count(name))
    name = stem + "_" + std::to_string(++index);
  used.insert(name);
  return name;
}

namespace {

// Where the code an earlier stage generated starts in the unit's text (its marker), else npos:
// the user's own code before it may declare any name.
size_t generated_start(const SourceManager& sm) {
  return sm.getBufferData(sm.getMainFileID()).find("\n// ---- generated by adjc");
}

// Whether `d`'s first parameters are `fn`'s (a member function's object first, as a pointer):
// what every function generated for `fn` takes, whose name other functions' may share (each
// operator()'s derivative is `operator_call_darg0`).
bool generated_for(const NamedDecl* d, const FunctionDecl* fn) {
  auto* g = dyn_cast<FunctionDecl>(d);
  const unsigned object = with_object(fn) ? 1 : 0;
  if (!g || g->getNumParams() < fn->getNumParams() + object) return false;
  ASTContext& context = fn->getASTContext();
  if (object) {
    QualType self = g->getParamDecl(0)->getType();
    const CXXRecordDecl* record = self->isPointerType() ? self->getPointeeCXXRecordDecl() : nullptr;
    if (!record || record->getCanonicalDecl() != with_object(fn)->getParent()->getCanonicalDecl()) return false;
  }
  for (unsigned i = 0; i < fn->getNumParams(); ++i)
    if (!context.hasSameUnqualifiedType(g->getParamDecl(i + object)->getType(), fn->getParamDecl(i)->getType()))
      return false;
  return true;
}

}  // namespace

bool declared_beside(const FunctionDecl* fn, const std::string& name) {
  ASTContext& context = fn->getASTContext();
  auto it = context.Idents.find(name);
  if (it == context.Idents.end()) return false;
  SourceManager& sm = context.getSourceManager();
  const size_t generated = generated_start(sm);
  if (generated == StringRef::npos) return false;
  // Generated functions are free functions in the namespace around `fn`, also for a member
  // function (`operator_call_forward(const F* self, ...)` beside `struct F`).
  const DeclContext* beside = fn->getDeclContext()->getEnclosingNamespaceContext()->getRedeclContext();
  for (const NamedDecl* d : beside->lookup(DeclarationName(it->getValue()))) {
    SourceLocation at = sm.getExpansionLoc(d->getLocation());
    if (sm.isInMainFile(at) && sm.getFileOffset(at) > generated && generated_for(d, fn)) return true;
  }
  return false;
}

bool generated_earlier(const ASTContext& context, const std::string& text) {
  const SourceManager& sm = context.getSourceManager();
  const StringRef unit = sm.getBufferData(sm.getMainFileID());
  // `text` on lines of its own, not inside a namespace it does not open (the line before it does
  // not open one): `ns::f`'s declaration holds `f`'s.
  for (size_t at = generated_start(sm); at != StringRef::npos && (at = unit.find(text, at + 1)) != StringRef::npos;)
    if (unit[at - 1] == '\n' && unit[at - 2] != '{') return true;
  return false;
}

}  // namespace adjc
