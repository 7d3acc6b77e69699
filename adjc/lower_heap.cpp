// Heap arrays: a local pointer given `new T[n]`, `new T(v)` or `new T` (T arithmetic, or a struct
// that may be the element of a local array), or the C library's `(T*)malloc(k * sizeof(T))` or
// `(T*)calloc(k, sizeof(T))`, is memory of its own, like a local array of n elements (one for `new
// T(v)`), and `delete`/`delete[]`/`free` of it is dropped: the reverse sweep frees it, and its
// adjoint, when it is done reading it (lowering.hpp).
// `p = (T*)realloc(p, k * sizeof(T))` is a new heap array of k elements, the first copied from p.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include <functional>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

namespace {

// The local pointer variable `e` names, or nullptr.
const VarDecl* local_pointer(const Expr* e) {
  auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return vd && vd->getType()->isPointerType() && vd->isLocalVarDecl() && !isa<ParmVarDecl>(vd) ? vd : nullptr;
}

// `p = (T*)realloc(...)` as a statement: p's declaration, or nullptr.
const VarDecl* reallocated(const Stmt* s) {
  auto* b = dyn_cast<BinaryOperator>(s);
  if (!b || b->getOpcode() != BO_Assign) return nullptr;
  const Expr* rhs = allocation(b->getRHS());
  const CallExpr* call = rhs ? c_allocation(rhs) : nullptr;
  return call && c_memory_function(call) == "realloc" ? local_pointer(b->getLHS()) : nullptr;
}

}  // namespace

// The number of `element`s `bytes` counts: k for `k * sizeof(T)` or `sizeof(T) * k`, 1 for
// `sizeof(T)`, N for `sizeof(T[N])` (`sizeof a` of an array); nullptr for any other byte count.
const Expr* Lowering::element_count(const Expr* bytes, QualType element) {
  auto elements_of_size = [&](const Expr* e) -> uint64_t {
    auto* size = dyn_cast<UnaryExprOrTypeTraitExpr>(e->IgnoreParenImpCasts());
    if (!size || size->getKind() != UETT_SizeOf) return 0;
    QualType t = size->getTypeOfArgument().getCanonicalType();
    if (context_.hasSameUnqualifiedType(t, element)) return 1;
    auto* array = context_.getAsConstantArrayType(t);
    return array && context_.hasSameUnqualifiedType(array->getElementType(), element) ? array->getSize().getZExtValue()
                                                                                      : 0;
  };
  if (uint64_t n = elements_of_size(bytes)) return int_literal(int(n), context_.LongTy);
  auto* product = dyn_cast<BinaryOperator>(bytes->IgnoreParenImpCasts());
  if (!product || product->getOpcode() != BO_Mul) return nullptr;
  if (elements_of_size(product->getRHS()) == 1) return product->getLHS()->IgnoreParenImpCasts();
  if (elements_of_size(product->getLHS()) == 1) return product->getRHS()->IgnoreParenImpCasts();
  return nullptr;
}

// The local pointers given an allocation where they are declared, or in an assignment `p = new
// ...`. A statement `p = (T*)realloc(p, ...)` of the block that declares p becomes the declaration
// of a new heap array `p` of that block, which the block's later statements name instead of p.
void Lowering::find_heap_arrays(const Stmt* s) {
  if (!s || isa<LambdaExpr>(s)) return;  // a lambda's body is a function of its own
  if (auto* cs = dyn_cast<CompoundStmt>(s)) {
    std::set<const VarDecl*> declared;
    for (auto it = const_cast<CompoundStmt*>(cs)->body_begin(); it != const_cast<CompoundStmt*>(cs)->body_end(); ++it) {
      if (auto* ds = dyn_cast<DeclStmt>(*it))
        for (const Decl* d : ds->decls())
          if (auto* vd = dyn_cast<VarDecl>(d)) declared.insert(vd);
      const VarDecl* old = reallocated(*it);
      if (!old || !declared.count(old)) continue;
      // Declared nullptr and not named since: realloc of a null pointer allocates, as malloc.
      auto named_since = [&] {
        bool named = false;
        auto names_old = [&](const Stmt* s) {
          if (auto* ref = dyn_cast<DeclRefExpr>(s); ref && ref->getDecl() == old) named = true;
          return !named;
        };
        for (auto before = it - 1; !named; --before) {
          if (auto* ds = dyn_cast<DeclStmt>(*before);
              ds && std::find(ds->decl_begin(), ds->decl_end(), old) != ds->decl_end())
            break;
          walk_statements(*before, names_old);
        }
        return named;
      };
      if (null_pointer(old->getInit()) && !heap_.count(old) && !named_since()) {
        heap_.insert(old);
        realloc_from_null_.insert(old);
        continue;
      }
      VarDecl* next = redeclare_in_rest_of_block(const_cast<CompoundStmt*>(cs), it, old);
      reallocated_[next] = old;
      declared.insert(next);
    }
  }
  if (auto* ds = dyn_cast<DeclStmt>(s))
    for (const Decl* d : ds->decls())
      if (auto* vd = dyn_cast<VarDecl>(d); vd && vd->getType()->isPointerType() && allocation(vd->getInit()))
        heap_.insert(vd);
  if (auto* b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == BO_Assign && allocation(b->getRHS()) &&
                                             !reallocated(b))
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
    return fail(
        at, Diag::unsupported_heap_array_const_elements,
        {v->source_name(), vd->getType()->getPointeeType().getUnqualifiedType().getAsString(), v->source_name()});
  const Expr* init = vd->getInit();
  if (const Expr* alloc = allocation(init)) return lower_allocation(vd, alloc, stmt, block);
  if (!null_pointer(init)) fail(at, Diag::heap_pointer_not_declared_null, {v->source_name()});
}

// `p = new T[n]`, `new T[n]()`, `new T[n]{}`, `new T(v)`, `new T{v}`, `new T`, `(T*)malloc(n *
// sizeof(T))`, `(T*)calloc(n, sizeof(T))`, `(T*)realloc(old, n * sizeof(T))`: the element count
// `_n = n` (1 for one object), after which the forward allocates n value-initialised elements
// (Node::allocates), then `p[0] = v` for an object given a value, or realloc's copy of the first
// min(_n_old, n) elements of old.
void Lowering::lower_allocation(const VarDecl* vd, const Expr* allocation, const Stmt* stmt, Node* block) {
  SourceLocation at = allocation->getBeginLoc();
  const CXXNewExpr* alloc = dyn_cast<CXXNewExpr>(allocation);
  const CallExpr* c_call = alloc ? nullptr : c_allocation(allocation);
  const std::string what = alloc ? "'new'" : "'" + c_memory_function(c_call) + "'";
  const VarDecl* old = nullptr;  // realloc's source
  if (c_call && c_memory_function(c_call) == "realloc" && !realloc_from_null_.count(vd)) {
    auto found = reallocated_.find(vd);
    if (found == reallocated_.end() || !heap_.count(vd))
      return fail(at, Diag::unsupported_realloc_form, {vd->getName().str()});
    old = found->second;
    if (local_pointer(c_call->getArg(0)) != old)
      return fail(c_call->getArg(0)->getExprLoc(), Diag::unsupported_realloc_of_other_pointer, {vd->getName().str()});
  }
  Var* v = ir_.var_of.at(vd);
  const std::string name = v->source_name();
  QualType element = alloc ? alloc->getAllocatedType() : allocation->getType()->getPointeeType().getUnqualifiedType();
  if (alloc && alloc->getNumPlacementArgs() > 0) return fail(at, Diag::unsupported_placement_new_into, {name});
  if (element->isRecordType() && !is_value_class(element, ir_.unit)) {
    if (!struct_elements(what + " of struct '" + name + "'", element, at)) return;
  } else if (!element->isArithmeticType()) {
    return fail(at, Diag::unsupported_heap_element_type, {what, element.getAsString(), name});
  }
  if (v->heap_size) return fail(at, Diag::unsupported_second_allocation, {what, name});
  if (!loops_.empty()) return fail(at, Diag::unsupported_allocation_in_loop, {what, name});
  // The initialiser: none or value-initialisation (zero), or one object's value.
  const Expr* value = nullptr;
  if (const Expr* init = alloc ? alloc->getInitializer() : nullptr) {
    init = init->IgnoreImplicit();
    if (element->isRecordType() && !alloc->isArray())  // one struct: its members, as a local struct's
      value = init;
    else if (auto* list = dyn_cast<InitListExpr>(init); list && list->getNumInits() == 1 && !alloc->isArray())
      value = list->getInit(0);
    else if (auto* list = dyn_cast<InitListExpr>(init); list && list->getNumInits() > 0)
      return fail(at, Diag::unsupported_new_array_with_values, {element.getAsString(), name, element.getAsString()});
    else if (!isa<InitListExpr, ImplicitValueInitExpr, CXXScalarValueInitExpr>(init))
      value = alloc->getInitializer();
  }
  QualType count_type = context_.LongTy;
  const Expr* count = nullptr;
  if (alloc) {
    count = alloc->isArray() ? *alloc->getArraySize() : int_literal(1, count_type);
  } else if (c_memory_function(c_call) == "calloc") {
    auto* each = dyn_cast_or_null<IntegerLiteral>(element_count(c_call->getArg(1), element));
    if (each && each->getValue() == 1) count = c_call->getArg(0)->IgnoreParenImpCasts();
  } else {
    count = element_count(c_call->getArg(c_memory_function(c_call) == "realloc" ? 1 : 0), element);
  }
  if (!count) {
    const std::string form = c_memory_function(c_call) == "calloc" ? "calloc(k, sizeof(" + element.getAsString() + "))"
                                                                    : "k * sizeof(" + element.getAsString() + ")";
    return fail(at, Diag::unsupported_allocation_byte_count, {what, name, element.getAsString(), form});
  }
  const VarDecl* size = new_local("_n_" + vd->getName().str(), count_type, at, block);
  define(size, count, stmt, block);
  Var* n = ir_.var_of.at(size);
  if (!n->definition) return;
  n->definition->allocates = v;
  v->heap_size = n;
  if (old) {
    Var* from = ir_.var_of.at(old);
    if (!from->heap_size || from->heap_size->block != block)
      return fail(at, Diag::realloc_outside_allocating_block, {name});
    // min(_n_old, _n): the elements realloc keeps.
    const Expr* ns[] = {rvalue(from->heap_size->decl), rvalue(size)};
    auto* fewer = BinaryOperator::Create(context_, const_cast<Expr*>(ns[0]), const_cast<Expr*>(ns[1]), BO_LT,
                                         context_.BoolTy, VK_PRValue, OK_Ordinary, at, FPOptionsOverride());
    auto* kept = new (context_) ConditionalOperator(fewer, at, const_cast<Expr*>(rvalue(from->heap_size->decl)), at,
                                                    const_cast<Expr*>(rvalue(size)), count_type, VK_PRValue,
                                                    OK_Ordinary);
    return assign_elements(const_cast<Expr*>(rvalue(vd)), const_cast<Expr*>(rvalue(old)), nullptr, kept, stmt, block);
  }
  if (!value) return;
  auto* first = new (context_) ArraySubscriptExpr(const_cast<Expr*>(rvalue(vd)), const_cast<Expr*>(int_literal(0)),
                                                  element, VK_LValue, OK_Ordinary, at);
  assign_member(first, value, stmt, block);
}

// `delete p;`, `delete[] p;`, `free(p)` (`what`) of a heap array (or of a local pointer to it):
// nothing in the forward sweep, whose reverse still reads the array; the reverse frees it at its end.
void Lowering::lower_delete(const Expr* arg, SourceLocation at, const std::string& what) {
  Var* root = memory_root(ir_, arg);
  if (root && root->heap) return;
  std::string spelled = "?";
  if (auto* ref = dyn_cast<DeclRefExpr>(strip(arg, ir_.unit))) spelled = ref->getDecl()->getNameAsString();
  if (root && root->kind == VarKind::Param)
    return fail(at, Diag::unsupported_free_of_parameter, {what, root->source_name()});
  fail(at, Diag::unsupported_free_of_non_heap_array, {what, spelled});
}

}  // namespace adjc
