// Heap arrays: a local pointer given `new T[n]`, `new T(v)` or `new T` (T arithmetic) is memory of
// its own, like a local array of n elements (one for `new T(v)`), and `delete`/`delete[]` of it
// is dropped: the reverse sweep frees it, and its adjoint, when it is done reading it (lowering.hpp).
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

namespace {

const CXXNewExpr* new_expression(const Expr* e) {
  if (!e) return nullptr;
  if (auto* full = dyn_cast<ExprWithCleanups>(e)) e = full->getSubExpr();
  return dyn_cast<CXXNewExpr>(e->IgnoreParenImpCasts());
}

// The local pointer variable `e` names, or nullptr.
const VarDecl* local_pointer(const Expr* e) {
  auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return vd && vd->getType()->isPointerType() && vd->isLocalVarDecl() && !isa<ParmVarDecl>(vd) ? vd : nullptr;
}

const char* kHeapHint = "(docs/adjc.md, \"Heap arrays\")";

}  // namespace

// The local pointers given a `new` where they are declared, or in an assignment `p = new ...`.
void Lowering::find_heap_arrays(const Stmt* s) {
  if (!s || isa<LambdaExpr>(s)) return;  // a lambda's body is a function of its own
  if (auto* ds = dyn_cast<DeclStmt>(s))
    for (const Decl* d : ds->decls())
      if (auto* vd = dyn_cast<VarDecl>(d); vd && vd->getType()->isPointerType() && new_expression(vd->getInit()))
        heap_.insert(vd);
  if (auto* b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == BO_Assign && new_expression(b->getRHS()))
    if (const VarDecl* vd = local_pointer(b->getLHS())) heap_.insert(vd);
  for (const Stmt* c : s->children()) find_heap_arrays(c);
}

// `T* p = new ...;` or `T* p = nullptr;` (assigned its `new` later): the heap array's variable,
// memory rather than a pointer into another region.
void Lowering::lower_heap_decl(const VarDecl* vd, const Stmt* stmt, Node* block) {
  SourceLocation at = vd->getLocation();
  Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, at);
  v->block = block;
  v->pointer = false;
  v->memory = true;
  v->heap = true;
  if (vd->getType()->getPointeeType().isConstQualified())
    return fail(at, "heap array '" + v->source_name() + "' of const elements is not supported (its adjoint is "
                    "written); declare it '" + vd->getType()->getPointeeType().getUnqualifiedType().getAsString() +
                    "* " + v->source_name() + "'");
  const Expr* init = vd->getInit();
  if (const CXXNewExpr* alloc = new_expression(init)) return lower_allocation(vd, alloc, stmt, block);
  if (!init || !init->isNullPointerConstant(context_, Expr::NPC_ValueDependentIsNotNull))
    fail(at, "pointer '" + v->source_name() + "', which is given a 'new' later, must be declared 'nullptr' " +
                 kHeapHint);
}

// `p = new T[n]`, `new T[n]()`, `new T[n]{}`, `new T(v)`, `new T{v}`, `new T`: the element count
// `_n = n` (1 for one object), after which the forward allocates n value-initialised elements
// (Node::allocates), then `p[0] = v` for an object given a value.
void Lowering::lower_allocation(const VarDecl* vd, const CXXNewExpr* alloc, const Stmt* stmt, Node* block) {
  SourceLocation at = alloc->getBeginLoc();
  Var* v = ir_.var_of.at(vd);
  const std::string name = v->source_name();
  QualType element = alloc->getAllocatedType();
  if (alloc->getNumPlacementArgs() > 0)
    return fail(at, "placement 'new' into '" + name + "' is not supported; allocate with 'new T[n]' " + kHeapHint);
  if (!element->isArithmeticType())
    return fail(at, "'new' of type '" + element.getAsString() + "' ('" + name +
                        "') is not supported, only of numbers; use a local struct, or one array per member " +
                        kHeapHint);
  if (v->heap_size)
    return fail(at, "a second 'new' into '" + name + "' is not supported; give each allocation a pointer of its own " +
                        kHeapHint);
  if (!loops_.empty())
    return fail(at, "'new' inside a loop ('" + name + "') is not supported; allocate before the loop and reuse the "
                    "array " + kHeapHint);
  // The initialiser: none or value-initialisation (zero), or one object's value.
  const Expr* value = nullptr;
  if (const Expr* init = alloc->getInitializer()) {
    init = init->IgnoreImplicit();
    if (auto* list = dyn_cast<InitListExpr>(init); list && list->getNumInits() == 1 && !alloc->isArray())
      value = list->getInit(0);
    else if (auto* list = dyn_cast<InitListExpr>(init); list && list->getNumInits() > 0)
      return fail(at, "'new " + element.getAsString() + "[n]{...}' with values ('" + name +
                          "') is not supported; allocate with 'new " + element.getAsString() +
                          "[n]()' and assign the elements " + kHeapHint);
    else if (!isa<InitListExpr, ImplicitValueInitExpr, CXXScalarValueInitExpr>(init))
      value = alloc->getInitializer();
  }
  QualType count_type = context_.LongTy;
  const Expr* count = alloc->isArray() ? *alloc->getArraySize() : int_literal(1, count_type);
  const VarDecl* size = new_local("_n_" + vd->getName().str(), count_type, at, block);
  define(size, count, stmt, block);
  Var* n = ir_.var_of.at(size);
  if (!n->definition) return;
  n->definition->allocates = v;
  v->heap_size = n;
  if (!value) return;
  auto* first = new (context_) ArraySubscriptExpr(const_cast<Expr*>(rvalue(vd)), const_cast<Expr*>(int_literal(0)),
                                                  element, VK_LValue, OK_Ordinary, at);
  lower_assign(stmt, first, BO_Assign, value, block);
}

// `delete p;`, `delete[] p;` of a heap array (or of a local pointer to it): nothing in the forward
// sweep, whose reverse still reads the array; the reverse frees it at its end.
void Lowering::lower_delete(const CXXDeleteExpr* del) {
  const Expr* arg = del->getArgument();
  SourceLocation at = del->getBeginLoc();
  Var* root = memory_root(ir_, arg);
  if (root && root->heap) return;
  std::string spelled = "?";
  if (auto* ref = dyn_cast<DeclRefExpr>(strip(arg, ir_.unit))) spelled = ref->getDecl()->getNameAsString();
  if (root && root->kind == VarKind::Param)
    return fail(at, "'delete' of parameter '" + root->source_name() +
                        "' is not supported: the reverse sweep reads its memory after the function returns; free it "
                        "in the caller " + kHeapHint);
  fail(at, "'delete' of '" + spelled + "', which is not a heap array this function allocates with 'new', is not "
           "supported; delete only what 'T* p = new T[n];' allocated here " + kHeapHint);
}

}  // namespace adjc
