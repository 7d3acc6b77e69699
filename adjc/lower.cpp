// Lowering: clang AST -> IR; rejects what adjc cannot differentiate. Its first and last steps (the
// signature, the body) and the variables and nodes it makes; the rest, by construct: lowering.hpp.
#include "lowering.hpp"

#include <regex>
#include <set>

namespace adjc {

using namespace clang;

// The function's parameters and result as variables (after the checks of the whole function).
void Lowering::lower_signature() {
  const FunctionDecl* fn = ir_.fn;
  check_function(ir_, context_, diags_);
  names_["result"] = 1;  // `_d_result` is the seed
  for (const ParmVarDecl* p : fn->parameters()) {
    if (p->getName().empty() || generated_name(p->getName().str())) continue;
    names_[p->getName().str()] = 1;
  }
  int index = 0;
  std::set<std::string> taken;
  for (const AdParam& p : ad_params(fn)) {
    std::string name = !p.decl                   ? unique_name("self")
                       : p.decl->getName().empty() ? "_param" + std::to_string(index)
                       : generated_name(p.decl->getName().str()) ? unique_name(p.decl->getName().str())
                                                                 : p.decl->getName().str();
    // The parameters a pack expands to (`T... y`) share one name.
    if (!taken.insert(name).second) name = unique_name(name);
    if (p.type->isRValueReferenceType() && p.type->getPointeeType()->isArithmeticType())
      fail(p.decl->getLocation(), Diag::unsupported_parameter_number_rvalue_reference_function, {name});
    Var* v = make_var(name, p.type, VarKind::Param, p.decl, p.decl ? p.decl->getLocation() : fn->getLocation());
    v->param_index = index++;
    v->param_type = p.type;
    v->differentiable = is_differentiable(p.type);
    if (v->pointer) v->root = v;
    if (!p.decl) ir_.self = v;
    ir_.params.push_back(v);
  }
  QualType rt = result_type(fn);
  if (!rt->isVoidType()) {
    // A struct result is memory, written member by member through a declaration of its own.
    if (is_plain_struct(rt, ir_.unit)) ret_decl_ = synthesized("_ret", rt.getUnqualifiedType(), fn->getLocation());
    ir_.ret = make_var("_ret", rt, VarKind::Return, ret_decl_, fn->getLocation());
    ir_.returns_value = has_result_adjoint(rt, ir_.unit);
  }
}

// The body's statements as nodes, after the copies of addressed parameters and read globals.
void Lowering::lower_body() {
  ir_.body = make(NodeKind::Block, ir_.fn->getBody());
  define_copies();
  lower_compound(cast<CompoundStmt>(ir_.fn->getBody()), ir_.body);
}

void Lowering::fail(SourceLocation where, Diag id, std::vector<std::string> args) {
  diags_.error(where, id, std::move(args));
  ir_.valid = false;
}

Node* Lowering::make(NodeKind kind, const Stmt* stmt) {
  ir_.nodes.push_back(std::make_unique<Node>());
  Node* n = ir_.nodes.back().get();
  n->kind = kind;
  n->stmt = stmt;
  n->loc = stmt ? stmt->getBeginLoc() : SourceLocation();
  n->loops = loops_;
  return n;
}

// Names generated code gives its own variables: adjoints `_d_x`, `_darg0`, `_dsum_x`; temporaries
// `_t0`, `_r0`, `_a0`, `_b0`, `_s0`, `_k0`, `_L0`, `_exit0`, `_sums0_0`, `_continue0`, `_saved`;
// and `result`, whose adjoint would be the seed `_d_result`.
bool Lowering::generated_name(const std::string& name) {
  static const std::regex temporary("_(d_.*|darg\\d+|dsum_.*|[trabskL]\\d+|exit\\d*|sums\\d+_\\d+|continue\\d+|saved)");
  return name == "result" || std::regex_match(name, temporary);
}

// The name a variable is given in generated code: its own, unless generated code could use it
// (`_t0` becomes `v_t0`; `result` becomes `result_1`, as `result` is taken from the start).
std::string Lowering::unique_name(const std::string& wanted) {
  const std::string base = wanted[0] == '_' && generated_name(wanted) ? "v" + wanted : wanted;
  int& uses = names_[base];
  if (uses == 0) {
    uses = 1;
    return base;
  }
  std::string name;
  do name = base + "_" + std::to_string(uses++);
  while (names_.count(name));
  names_[name] = 1;
  return name;
}

Var* Lowering::make_var(const std::string& name, QualType type, VarKind kind, const VarDecl* decl, SourceLocation loc) {
  ir_.vars.push_back(std::make_unique<Var>());
  Var* v = ir_.vars.back().get();
  v->index = int(ir_.vars.size()) - 1;
  v->name = kind == VarKind::Param ? name : unique_name(name);
  v->kind = kind;
  v->decl = decl;
  v->parallel = parallel_;
  // A member typedef (`std::vector<double>::size_type`, a call's result) is spelled by its
  // canonical type: generated code declares it outside the class.
  if (auto* td = type->getAs<TypedefType>(); td && isa<CXXRecordDecl>(td->getDecl()->getDeclContext()))
    type = type.getCanonicalType();
  QualType t = type.getCanonicalType();
  if (kind == VarKind::Return || kind == VarKind::CallResult) check_result_type(type, kind, loc);
  // Generated functions pass parameters on by value, which would run the copy constructor.
  if (kind == VarKind::Param && !t->isReferenceType() && held_in_place(t))
    fail(loc, own_copy_message(t, "parameter '" + name + "' by value", Diag::own_copy_parameter_by_value));
  const std::string what = kind == VarKind::Param    ? "parameter '" + name + "'"
                           : kind == VarKind::Local  ? "local variable '" + name + "'"
                           : kind == VarKind::Return ? "the result"
                                                     : "the result of a call";
  modelled_class(what, type, loc);
  // A library value without derivative (std::optional<int>): a parameter, or a default-constructed
  // local, that the body never changes (check_unchanged), so the reverse sweep reads what the
  // forward read, with nothing taped.
  if ((kind == VarKind::Param || kind == VarKind::Local) && is_inert_library_class(t, ir_.unit)) {
    if (decl) check_unchanged(what, decl, loc);
    v->type = type.getNonReferenceType();
    if (decl) ir_.var_of[decl] = v;
    return v;
  }
  if (is_library_class(t, ir_.unit)) {
    std::string hint = std_function_hint(t);
    fail(loc, Diag::library_class_variable,
         {what, type.getAsString(),
          (hint.empty() ? ", a library class adjc does not differentiate; pass its elements as a pointer and "
                          "a length (such as 'const double* x, int n')"
                        : hint)});
  }
  if (is_value_class(t, ir_.unit)) {
    // A handle: by value or const reference, it is a value with an adjoint of its own type.
    if (t->isReferenceType() && !t->getPointeeType().isConstQualified())
      fail(loc, Diag::value_class_by_non_const_reference, {name});
    v->type = type.getNonReferenceType();
    v->value = true;
    if (decl) ir_.var_of[decl] = v;
    return v;
  }
  set_kind_of_storage(v, name, type, kind, loc);
  if (decl) ir_.var_of[decl] = v;
  return v;
}

// A result: the forward sweep assigns a call's result to a temporary and returns results by moving
// them, so its type must be one adjc can copy and assign.
void Lowering::check_result_type(QualType type, VarKind kind, SourceLocation loc) {
  QualType t = type.getCanonicalType();
  const std::string producing = kind == VarKind::Return ? "returning" : "calling a function that returns";
  auto* record = t->getAsCXXRecordDecl();
  if (is_container(t))
    fail(loc, Diag::unsupported_container_result,
         {producing, type.getAsString(), t.getNonReferenceType().getUnqualifiedType().getAsString()});
  else if (!own_copy_operation(t).empty()) fail(loc, own_copy_message(t, producing + " a value"));
  else if (record && !is_plain_struct(t, ir_.unit) && !is_value_class(t, ir_.unit) && !is_library_class(t, ir_.unit))
    fail(loc, Diag::unsupported_struct_members_other_numbers_arrays, {producing, type.getAsString()});
  else if (record && record->hasDefinition() && !copy_assignable(record))
    fail(loc, Diag::unsupported_struct_copy_assigned_moved, {producing, type.getAsString()});
}

// How `v` (`name` in the source; of `type`, not a value class or inert library class) is held: a reference is memory of
// its referent's type, a pointer, an array or struct or an addressed number is memory, a floating
// value a scalar with an adjoint; other types are reported.
void Lowering::set_kind_of_storage(Var* v, const std::string& name, QualType type, VarKind kind, SourceLocation loc) {
  const VarDecl* decl = v->decl;
  QualType t = type.getCanonicalType();
  if (t->isReferenceType()) {
    v->reference = true;
    v->memory = true;
    type = type->getPointeeType();
    t = type.getCanonicalType();
  }
  v->type = type;
  // A const local array is declared non-const: the generated code assigns its initialiser
  // element by element.
  if (kind == VarKind::Local && t->isArrayType()) {
    Qualifiers dropped;
    v->type = context_.getUnqualifiedArrayType(type, dropped);
  }
  if (kind == VarKind::Local && t->isPointerType() && t->getPointeeType().isConstQualified() &&
      t->getPointeeType()->isAnyCharacterType()) {
    // A local C string (`const char* s = "name"`): read-only characters, a value without derivative.
  } else if (t->isPointerType()) {
    // A parameter of rows of constants (`const double* const* rows`): data without derivative,
    // read as `rows[i][j]`. Both levels const: the function can neither write the numbers nor
    // re-point a row (at an array with a derivative).
    if (QualType inner = t->getPointeeType(); inner->isPointerType()) {
      QualType element = inner->getPointeeType();
      if (kind != VarKind::Param || !inner.isConstQualified() || !element.isConstQualified() ||
          !element->isArithmeticType())
        fail(loc, Diag::unsupported_pointer_to_pointer_variable, {name, name});
    }
    if (is_value_class(t->getPointeeType(), ir_.unit)) fail(loc, Diag::unsupported_pointers_value_classes, {name});
    v->pointer = true;
  } else if (t->isArrayType() || t->isRecordType()) {
    v->memory = true;
  } else if (t->isArithmeticType() && decl && addressed_.count(decl)) {
    v->memory = true;  // passed by address: a one-element region
  } else if (t->isRealFloatingType()) {
    v->floating = !v->reference;
  } else if (!t->isIntegralOrEnumerationType() && !t->isBooleanType()) {
    fail(loc, Diag::unsupported_variable_type, {type.getAsString(), name});
  }
}

// Reports `what`, a library value without derivative, when the function's body may change it.
void Lowering::check_unchanged(const std::string& what, const VarDecl* decl, SourceLocation loc) {
  if (may_modify(ir_.fn->getBody(), decl))
    fail(loc, Diag::unsupported_library_class_changed_used_other,
         {what, decl->getType().getNonReferenceType().getUnqualifiedType().getAsString()});
}

// Whether adjc models the class `type` is or holds (`unmodelled_class`); reports `what` of that type when not.
bool Lowering::modelled_class(const std::string& what, QualType type, SourceLocation loc) {
  const std::string why = unmodelled_class(type, ir_.unit);
  if (!why.empty()) fail(loc, Diag::unmodelled_class_variable, {what, type.getAsString(), why});
  return why.empty();
}

void Lowering::add(Node* block, Node* n) {
  n->parent = block;
  block->children.push_back(n);
}

// A DeclRefExpr naming `vd` (the left side of a declaration's initialisation).
const Expr* Lowering::new_ref(const VarDecl* vd) {
  return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd), false,
                             vd->getLocation(), vd->getType().getNonReferenceType(), VK_LValue);
}

const Expr* Lowering::int_literal(int value, QualType t) {
  if (t.isNull()) t = context_.IntTy;
  return IntegerLiteral::Create(context_, llvm::APInt(context_.getIntWidth(t), value), t, SourceLocation());
}

// A local the lowering introduces (`_branch`, a struct temporary, a struct result), declared in the
// function so that the printer and the analyses see an ordinary variable.
VarDecl* Lowering::synthesized(const std::string& name, QualType type, SourceLocation at) {
  auto* vd = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at, &context_.Idents.get(name), type,
                             context_.getTrivialTypeSourceInfo(type, at), SC_None);
  vd->setImplicit();
  return vd;
}

// `vd` read as a value.
const Expr* Lowering::rvalue(const VarDecl* vd) {
  return ImplicitCastExpr::Create(context_, vd->getType(), CK_LValueToRValue, const_cast<Expr*>(new_ref(vd)), nullptr,
                                  VK_PRValue, FPOptionsOverride());
}

// A synthesised local `name` of `type` declared in `block` (hoisted to function scope like every local).
const VarDecl* Lowering::new_local(const std::string& name, QualType type, SourceLocation at, Node* block) {
  VarDecl* vd = synthesized(name, type, at);
  Var* v = make_var(name, type, VarKind::Local, vd, at);
  v->block = block;
  return vd;
}

// The definition of local `vd` (its declaration's initialisation): `vd = value` in `block`; a local
// pointer takes the region `value` points into.
void Lowering::define(const VarDecl* vd, const Expr* value, const Stmt* stmt, Node* block) {
  Var* v = ir_.var_of.at(vd);
  if (v->pointer && !point_at(v, value))
    return fail(vd->getLocation(), Diag::local_pointer_target_unknown, {v->source_name()});
  size_t before = block->children.size();
  lower_assign(stmt, new_ref(vd), BO_Assign, value, block);
  if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
    Node* n = block->children.back();
    n->definition = true;
    n->loc = vd->getLocation();
    v->definition = n;
  }
}

}  // namespace adjc
