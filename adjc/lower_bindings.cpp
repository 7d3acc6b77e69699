// Lowering of structured bindings, by editing the body's AST before it is lowered (as
// find_aliases does) (lowering.hpp).
//
// `auto [a, b] = s;` declares a hidden variable `e` (a copy of s, or with `auto&` a reference to
// it) and names its members: a is `e.x`, b is `e.y`, or `e[0]`, `e[1]` over an array, or `e.first`,
// `e.second` over a pair of numbers. The hidden variable is given a name and stays a declaration of
// its own, and each use of a binding becomes that member or element of it, so a copy is a local
// struct or array and a reference an alias (find_aliases) like any other.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

void Lowering::lower_bindings(Stmt* body) {
  walk_statements(body, body, [&](Stmt* s, const Stmt* parent) {
    if (auto* ds = dyn_cast<DeclStmt>(s))
      for (Decl* d : ds->decls())
        if (auto* dd = dyn_cast<DecompositionDecl>(d)) {
          if (isa<CompoundStmt>(parent)) lower_binding(dd, body);
          else fail(dd->getLocation(), binding_outside_block(parent));
        }
    return true;
  });
}

// The diagnostic of a structured binding declared in the header of statement `s`.
Message Lowering::binding_outside_block(const Stmt* s) {
  if (isa<CXXForRangeStmt>(s)) return {Diag::unsupported_binding_in_range_for, {}};
  const std::string what = isa<IfStmt>(s) ? "an 'if'" : isa<SwitchStmt>(s) ? "a 'switch'" : "a 'for'";
  return {Diag::unsupported_binding_in_init_statement, {what}};
}

// One structured binding declared in a block: its hidden variable named after the bindings
// (`_a_b`), each use of a binding in `body` the member or element of it the binding names.
void Lowering::lower_binding(DecompositionDecl* dd, Stmt* body) {
  QualType type = dd->getType().getNonReferenceType();
  const bool pair = is_number_pair(type);
  const ConstantArrayType* array = context_.getAsConstantArrayType(type);
  std::string name;
  for (const BindingDecl* b : dd->bindings()) name += "_" + b->getName().str();
  dd->setDeclName(&context_.Idents.get(name));
  for (const BindingDecl* b : dd->bindings())
    if (b->getHoldingVar() && !pair)
      return fail(dd->getLocation(), Diag::unsupported_structured_binding_over_tuple_like,
                  {type.getUnqualifiedType().getAsString()});
  if (array && !array->getElementType()->isArithmeticType())
    return fail(dd->getLocation(), Diag::unsupported_structured_binding_over_array,
                {array->getElementType().getAsString()});
  // A copy of an array (`auto [u, v] = arr;`, an element-wise copy loop in clang's AST): the copy
  // from a braced list of the source's elements, as `double e[2] = {arr[0], arr[1]};` is.
  if (auto* loop = dyn_cast_or_null<ArrayInitLoopExpr>(dd->getInit())) {
    std::vector<Expr*> elements;
    for (uint64_t k = 0; k < array->getSize().getZExtValue(); ++k)
      elements.push_back(new (context_) ArraySubscriptExpr(
          loop->getCommonExpr()->getSourceExpr(), const_cast<Expr*>(int_literal(int(k), QualType())),
          array->getElementType(), VK_LValue, OK_Ordinary, dd->getLocation()));
    auto* list = new (context_) InitListExpr(context_, dd->getLocation(), elements, dd->getLocation());
    list->setType(type);
    dd->setInit(list);
  }
  // The member each binding names: clang's member access for a struct, `first` and `second` (which
  // clang reaches through `get<i>`) for a number pair.
  auto* record = type->getAsRecordDecl();
  std::vector<const FieldDecl*> members;
  for (const BindingDecl* b : dd->bindings()) {
    if (array) continue;
    auto* access = dyn_cast_or_null<MemberExpr>(b->getBinding() ? b->getBinding()->IgnoreImpCasts() : nullptr);
    auto* field = pair     ? record_fields(record)[members.size()]
                  : access ? dyn_cast<FieldDecl>(access->getMemberDecl())
                           : nullptr;
    if (!field)
      return fail(dd->getLocation(), Diag::unsupported_structured_binding_over_type,
                  {type.getUnqualifiedType().getAsString()});
    members.push_back(field);
  }
  unsigned index = 0;
  for (BindingDecl* b : dd->bindings()) {
    // What the binding names, with the hidden variable at the use's location.
    auto place = [&, k = index](const DeclRefExpr* use) -> Expr* {
      auto* object = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), dd, false,
                                         use->getLocation(), type, VK_LValue);
      QualType t = b->getType().getNonReferenceType();
      if (array)
        return new (context_) ArraySubscriptExpr(object, const_cast<Expr*>(int_literal(int(k), QualType())), t,
                                                 VK_LValue, OK_Ordinary, use->getLocation());
      auto* f = const_cast<FieldDecl*>(members[k]);
      return MemberExpr::Create(context_, object, false, use->getLocation(), NestedNameSpecifierLoc(), SourceLocation(),
                                f, DeclAccessPair::make(f, f->getAccess()),
                                DeclarationNameInfo(f->getDeclName(), use->getLocation()), nullptr, t, VK_LValue,
                                OK_Ordinary, NOUR_None);
    };
    replace_uses(body, b, place);
    ++index;
  }
}

}  // namespace adjc
