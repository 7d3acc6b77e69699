// The analysis passes: lowering to the IR, activity, and the tape plan (passes.hpp).
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "passes.hpp"

namespace adjc {

using namespace clang;

void Diagnostics::error(SourceLocation where, const std::string& message) {
  failed_ = true;
  unsigned id = engine_.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  engine_.Report(where, id) << message;
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

// Parens, implicit casts, cleanups, and copies of value-class handles (copying one is the value).
const Expr* strip(const Expr* e) {
  while (true) {
    e = e->IgnoreParenImpCasts();
    if (auto* c = dyn_cast<ExprWithCleanups>(e)) e = c->getSubExpr();
    else if (auto* c = dyn_cast<ConstantExpr>(e)) e = c->getSubExpr();
    else if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (auto* c = dyn_cast<CXXConstructExpr>(e);
             c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor() && is_value_class(c->getType()))
      e = c->getArg(0);
    else return e;
  }
}

bool is_floating(QualType t) { return t->isRealFloatingType(); }

namespace {
std::set<const Type*>& value_classes() {
  static std::set<const Type*> types;
  return types;
}
}  // namespace

void find_value_classes(ASTContext& context) {
  std::function<void(const DeclContext*)> walk = [&](const DeclContext* dc) {
    for (const Decl* d : dc->decls()) {
      if (auto* inner = dyn_cast<DeclContext>(d); inner && (isa<NamespaceDecl>(d) || isa<LinkageSpecDecl>(d)))
        walk(inner);
      auto* f = dyn_cast<FunctionDecl>(d);
      if (!f || !f->getIdentifier() || f->getName() != "accumulate_adjoint" || f->getNumParams() != 2) continue;
      QualType into = f->getParamDecl(0)->getType();
      if (into->isLValueReferenceType() && into->getPointeeType()->isRecordType())
        value_classes().insert(into->getPointeeType().getCanonicalType().getUnqualifiedType().getTypePtr());
    }
  };
  walk(context.getTranslationUnitDecl());
}

bool is_value_class(QualType t) {
  if (t.isNull()) return false;
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  return value_classes().count(t.getTypePtr()) > 0;
}

bool is_adjoint_value(QualType t) { return is_floating(t) || is_value_class(t); }

bool is_empty_value(const Expr* e) {
  e = strip(e);
  if (!is_value_class(e->getType())) return false;
  if (auto* cast = dyn_cast<CXXFunctionalCastExpr>(e)) e = strip(cast->getSubExpr());
  if (auto* c = dyn_cast<CXXConstructExpr>(e)) return c->getNumArgs() == 0;
  if (auto* list = dyn_cast<InitListExpr>(e))  // `V{}` of an aggregate: every member its default
    return std::all_of(list->inits().begin(), list->inits().end(),
                       [](const Expr* i) { return isa<ImplicitValueInitExpr>(i) || isa<CXXDefaultInitExpr>(i); });
  return false;
}

static bool pointee_differentiable(QualType t) {
  t = t.getCanonicalType();
  return t->isRealFloatingType() || t->isRecordType();
}

bool is_differentiable(QualType t) {
  t = t.getCanonicalType();
  if (t->isRealFloatingType() || t->isRecordType()) return true;
  if (t->isPointerType() || t->isReferenceType()) return pointee_differentiable(t->getPointeeType());
  return false;
}

bool is_written_param(QualType t) {
  t = t.getCanonicalType();
  if (!t->isPointerType() && !t->isReferenceType()) return false;
  QualType p = t->getPointeeType();
  return pointee_differentiable(p) && !p.isConstQualified();
}

std::vector<bool> all_differentiable(const FunctionDecl* fn) {
  std::vector<bool> active;
  for (const AdParam& p : ad_params(fn)) active.push_back(is_differentiable(p.type));
  return active;
}

// The object parameter of non-static member functions.
static const CXXMethodDecl* with_object(const FunctionDecl* fn) {
  auto* m = dyn_cast<CXXMethodDecl>(fn);
  return m && m->isInstance() ? m : nullptr;
}

std::vector<AdParam> ad_params(const FunctionDecl* fn) {
  std::vector<AdParam> out;
  if (const CXXMethodDecl* m = with_object(fn)) out.push_back({m->getThisType(), nullptr});
  for (const ParmVarDecl* p : fn->parameters()) out.push_back({p->getType(), p});
  return out;
}

std::vector<AdArg> ad_args(const CallExpr* call) {
  std::vector<AdArg> out;
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    auto* callee = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParens());
    if (with_object(mc->getMethodDecl())) out.push_back({mc->getImplicitObjectArgument(), !callee || !callee->isArrow()});
    for (const Expr* a : call->arguments()) out.push_back({a});
    return out;
  }
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(call); op && op->getDirectCallee() && with_object(op->getDirectCallee())) {
    out.push_back({op->getArg(0), true});
    for (unsigned i = 1; i < op->getNumArgs(); ++i) out.push_back({op->getArg(i)});
    return out;
  }
  for (const Expr* a : call->arguments()) out.push_back({a});
  return out;
}

std::string base_name(const FunctionDecl* fn) {
  if (fn->getIdentifier()) return fn->getName().str();
  switch (fn->getOverloadedOperator()) {
    case OO_Plus: return "operator_plus";
    case OO_Minus: return "operator_minus";
    case OO_Star: return "operator_star";
    case OO_Slash: return "operator_slash";
    case OO_Call: return "operator_call";
    case OO_Subscript: return "operator_subscript";
    default: return "";
  }
}

bool derivative_free(const FunctionDecl* callee) {
  if (is_differentiable(callee->getReturnType())) return false;
  for (const AdParam& p : ad_params(callee))
    if (is_written_param(p.type)) return false;
  return true;
}

MathFn math_function(const CallExpr* call) {
  const FunctionDecl* f = call->getDirectCallee();
  if (!f || !f->getIdentifier() || isa<CXXMethodDecl>(f)) return MathFn::None;
  const DeclContext* dc = f->getDeclContext()->getRedeclContext();
  while (dc->isInlineNamespace()) dc = dc->getParent()->getRedeclContext();
  bool std_or_c = dc->isTranslationUnit() || dc->isStdNamespace() ||
                  (dc->isNamespace() && cast<NamespaceDecl>(dc)->getName() == "__gnu_cxx");
  if (!std_or_c) return MathFn::None;
  std::string name = f->getName().str();
  static const std::map<std::string, MathFn> table = {
      {"exp", MathFn::Exp},   {"log", MathFn::Log},   {"sqrt", MathFn::Sqrt}, {"tanh", MathFn::Tanh},
      {"pow", MathFn::Pow},   {"sin", MathFn::Sin},   {"cos", MathFn::Cos},   {"fabs", MathFn::Fabs},
      {"fmax", MathFn::Fmax}, {"fmin", MathFn::Fmin}, {"erf", MathFn::Erf},   {"abs", MathFn::Fabs}};
  auto it = table.find(name);
  if (it == table.end() && name.size() > 1 && name.back() == 'f') it = table.find(name.substr(0, name.size() - 1));
  if (it == table.end()) return MathFn::None;
  if (it->second == MathFn::Fabs && name == "abs" && !is_floating(call->getType())) return MathFn::None;
  return it->second;
}

bool is_write_once(const Var* region) {
  if (!region || !region->decl) return false;
  for (const auto* attr : region->decl->specific_attrs<AnnotateAttr>())
    if (attr->getAnnotation() == "adjoint_write_once") return true;
  return false;
}

// Parameter types equal up to references and cv-qualifiers (of the type and of a pointee).
static bool same_type(QualType a, QualType b) {
  auto plain = [](QualType t) {
    t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
    if (t->isPointerType()) return t->getPointeeType().getUnqualifiedType().getTypePtr();
    return t.getTypePtr();
  };
  if (a->isPointerType() != b->isPointerType()) return false;
  if (plain(a) == plain(b)) return true;
  return !a->isPointerType() && QualType(plain(a), 0)->isArithmeticType() && QualType(plain(b), 0)->isArithmeticType();
}

const FunctionDecl* custom_pullback(const FunctionDecl* callee, const CustomPullbacks& custom) {
  std::string name = base_name(callee);
  if (name.empty()) return nullptr;
  const auto& table = with_object(callee) ? custom.members : custom.free;
  std::vector<AdParam> params = ad_params(callee);
  auto [first, last] = table.equal_range(name + "_pullback");
  for (auto it = first; it != last; ++it) {
    const FunctionDecl* pullback = it->second;
    // f's parameters, d_result for a floating or value-class result, one adjoint per differentiable parameter.
    size_t expected = params.size() + (is_adjoint_value(callee->getReturnType()) ? 1 : 0);
    for (const AdParam& p : params) expected += is_differentiable(p.type) ? 1 : 0;
    bool match = pullback->getNumParams() == expected;
    for (size_t i = 0; match && i < params.size(); ++i) match = same_type(params[i].type, pullback->getParamDecl(i)->getType());
    if (match) return pullback;
  }
  return nullptr;
}

static bool has_differentiable_param(const FunctionDecl* callee) {
  for (const AdParam& p : ad_params(callee))
    if (is_differentiable(p.type)) return true;
  return false;
}

bool hoisted_callee(const FunctionDecl* callee, const CustomPullbacks& custom) {
  return callee_kind(callee, custom) != CalleeKind::Plain || (derivative_free(callee) && has_differentiable_param(callee));
}

CalleeKind callee_kind(const FunctionDecl* callee, const CustomPullbacks& custom) {
  if (!has_differentiable_param(callee) || derivative_free(callee)) return CalleeKind::Plain;
  if (custom_pullback(callee, custom)) return CalleeKind::Custom;
  if (callee->getDefinition() && callee->getDefinition()->hasBody()) return CalleeKind::User;
  return CalleeKind::Plain;
}

Var* FunctionIR::var(const Expr* e) const {
  if (isa<CXXThisExpr>(strip(e))) return self;
  auto* ref = dyn_cast<DeclRefExpr>(strip(e));
  if (!ref) return nullptr;
  auto* vd = dyn_cast<VarDecl>(ref->getDecl());
  if (!vd) return nullptr;
  auto it = var_of.find(vd);
  return it == var_of.end() ? nullptr : it->second;
}

Var* memory_root(const FunctionIR& ir, const Expr* e) {
  e = strip(e);
  if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e)) {
    Var* v = ir.var(e);
    if (!v) return nullptr;
    if (v->memory) return v;
    if (v->pointer) return v->root;
    return nullptr;
  }
  if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) return memory_root(ir, sub->getBase());
  if (auto* m = dyn_cast<MemberExpr>(e)) return memory_root(ir, m->getBase());
  if (auto* u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == UO_Deref || u->getOpcode() == UO_AddrOf) return memory_root(ir, u->getSubExpr());
    return nullptr;
  }
  if (auto* b = dyn_cast<BinaryOperator>(e)) {
    if ((b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) && b->getType()->isPointerType())
      return memory_root(ir, b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
  }
  return nullptr;
}

std::set<const Var*> counter_indexed_regions(const FunctionIR& ir, const Node* loop) {
  std::set<const Var*> indexed, other;
  std::function<void(const Expr*)> expr = [&](const Expr* e) {
    if (!e) return;
    e = strip(e);
    if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) {
      auto* base = dyn_cast<DeclRefExpr>(strip(sub->getBase()));
      auto* index = dyn_cast<DeclRefExpr>(strip(sub->getIdx()));
      Var* v = base ? ir.var(base) : nullptr;
      if (v && v->kind == VarKind::Param && v->pointer && index && ir.var(index) == loop->counter) {
        indexed.insert(v);
        return;
      }
    }
    if (e->getType()->isPointerType() || e->getType()->isRecordType() || e->getType()->isArrayType() ||
        isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e))
      if (Var* root = memory_root(ir, e)) other.insert(root);
    for (const Stmt* child : e->children())
      if (auto* c = dyn_cast_or_null<Expr>(child)) expr(c);
  };
  std::function<void(const Node*)> node = [&](const Node* n) {
    if (!n) return;
    expr(n->lhs);
    expr(n->rhs);
    expr(n->call);
    expr(n->cond);
    expr(n->start);
    expr(n->end);
    if (n->kind == NodeKind::Assign && n->memory_root && !n->lhs) other.insert(n->memory_root);
    for (const Node* c : n->children) node(c);
    node(n->then_node);
    node(n->else_node);
    node(n->body);
    node(n->inc);
  };
  node(loop->body);
  std::set<const Var*> out;
  for (const Var* v : indexed)
    if (!other.count(v)) out.insert(v);
  return out;
}

static bool is_memory_read(const Expr* e) {
  return isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e) ||
         (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref);
}

bool reads_varied(const FunctionIR& ir, const Activity& act, const Expr* e) {
  e = strip(e);
  if (auto* call = dyn_cast<CallExpr>(e)) {
    auto it = ir.call_result.find(call);
    if (it != ir.call_result.end()) return act.of(it->second) && is_adjoint_value(call->getType());
  }
  QualType t = e->getType();
  if (is_value_class(t)) return isa<DeclRefExpr>(e) ? act.of(ir.var(e)) : act.of(memory_root(ir, e));
  if (t->isPointerType() || t->isRecordType()) return act.of(memory_root(ir, e));
  if (!is_floating(t)) return false;
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    Var* v = ir.var(ref);
    return act.of(v);
  }
  if (is_memory_read(e)) return act.of(memory_root(ir, e));
  for (const Stmt* child : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(child); ce && reads_varied(ir, act, ce)) return true;
  return false;
}

bool arg_varied(const FunctionIR& ir, const Activity& act, QualType param, const Expr* arg) {
  if (!is_differentiable(param)) return false;
  QualType t = param.getCanonicalType();
  // A value class, or the object of one of its member functions.
  if (is_value_class(t) || (t->isPointerType() && is_value_class(t->getPointeeType()))) return reads_varied(ir, act, arg);
  if (t->isReferenceType() || t->isPointerType() || t->isRecordType()) return act.of(memory_root(ir, arg));
  return reads_varied(ir, act, arg);
}

bool call_active(const FunctionIR& ir, const Activity& act, const Node* node) {
  std::vector<AdParam> params = ad_params(node->call->getDirectCallee());
  std::vector<AdArg> args = ad_args(node->call);
  for (size_t i = 0; i < args.size() && i < params.size(); ++i)
    if (arg_varied(ir, act, params[i].type, args[i].expr)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Lowering: clang AST -> IR

namespace {

bool same_base(const Expr* a, const Expr* b) {
  a = strip(a);
  b = strip(b);
  if (auto* ra = dyn_cast<DeclRefExpr>(a))
    if (auto* rb = dyn_cast<DeclRefExpr>(b)) return ra->getDecl() == rb->getDecl();
  if (auto* ma = dyn_cast<MemberExpr>(a))
    if (auto* mb = dyn_cast<MemberExpr>(b))
      return ma->getMemberDecl() == mb->getMemberDecl() && same_base(ma->getBase(), mb->getBase());
  return false;
}

// Whether `stmt` writes the variable `decl` (assignment, ++/--, address taken).
bool writes_variable(const Stmt* stmt, const VarDecl* decl) {
  bool found = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || found) return;
    auto target = [&](const Expr* e) {
      auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      return ref && ref->getDecl() == decl;
    };
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && target(b->getLHS())) found = true;
    if (auto* u = dyn_cast<UnaryOperator>(s);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf) && target(u->getSubExpr()))
      found = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(stmt);
  return found;
}

class Lowering {
 public:
  Lowering(FunctionIR& ir, ASTContext& context, Diagnostics& diags, const CustomPullbacks& custom)
      : ir_(ir), context_(context), diags_(diags), custom_(custom) {}

  void run() {
    const FunctionDecl* fn = ir_.fn;
    if (auto* m = dyn_cast<CXXMethodDecl>(fn)) {
      if (m->isVirtual()) fail(fn->getLocation(), "virtual member functions cannot be differentiated");
      if (isa<CXXConstructorDecl>(m) || isa<CXXDestructorDecl>(m) || isa<CXXConversionDecl>(m))
        fail(fn->getLocation(), "constructors, destructors and conversions cannot be differentiated");
      if (is_value_class(context_.getRecordType(m->getParent())))
        fail(fn->getLocation(), "member function '" + m->getNameAsString() + "' of value class '" +
                                    m->getParent()->getNameAsString() + "' needs a custom pullback (adjoint::custom_derivatives::"
                                    "class_functions::" + base_name(m) + "_pullback)");
    }
    if (base_name(fn).empty()) fail(fn->getLocation(), "operator '" + fn->getNameAsString() + "' cannot be differentiated");
    // A template is differentiated per specialization (its instantiated body); the pattern itself
    // has no types to differentiate.
    if (fn->isTemplated()) fail(fn->getLocation(), "uninstantiated templates cannot be differentiated");
    if (fn->isVariadic()) fail(fn->getLocation(), "variadic functions cannot be differentiated");
    for (const ParmVarDecl* p : fn->parameters()) {
      if (p->getName().empty()) continue;
      names_[p->getName().str()] = 1;
    }
    int index = 0;
    for (const AdParam& p : ad_params(fn)) {
      std::string name = p.decl ? (p.decl->getName().empty() ? "_param" + std::to_string(index) : p.decl->getName().str())
                                : unique_name("self");
      Var* v = make_var(name, p.type, VarKind::Param, p.decl, p.decl ? p.decl->getLocation() : fn->getLocation());
      v->param_index = index++;
      v->param_type = p.type;
      v->differentiable = is_differentiable(p.type);
      if (v->pointer) v->root = v;
      if (!p.decl) ir_.self = v;
      ir_.params.push_back(v);
    }
    QualType rt = fn->getReturnType();
    if (!rt->isVoidType()) {
      ir_.ret = make_var("_ret", rt, VarKind::Return, nullptr, fn->getLocation());
      ir_.returns_value = is_adjoint_value(rt);
    }
    ir_.body = make(NodeKind::Block, fn->getBody());
    lower_compound(cast<CompoundStmt>(fn->getBody()), ir_.body);
    int order = 0;
    number(ir_.body, order);
  }

 private:
  FunctionIR& ir_;
  ASTContext& context_;
  Diagnostics& diags_;
  const CustomPullbacks& custom_;
  std::map<std::string, int> names_;
  std::vector<Node*> loops_;
  Node* parallel_ = nullptr;
  int next_id_ = 1;

  void fail(SourceLocation where, const std::string& message) {
    diags_.error(where, message);
    ir_.valid = false;
  }

  void number(Node* n, int& order) {
    if (!n) return;
    n->order = order++;
    for (Node* c : n->children) number(c, order);
    number(n->then_node, order);
    number(n->else_node, order);
    number(n->body, order);
    number(n->inc, order);
  }

  Node* make(NodeKind kind, const Stmt* stmt) {
    ir_.nodes.push_back(std::make_unique<Node>());
    Node* n = ir_.nodes.back().get();
    n->kind = kind;
    n->stmt = stmt;
    n->loc = stmt ? stmt->getBeginLoc() : SourceLocation();
    n->loops = loops_;
    return n;
  }

  std::string unique_name(const std::string& base) {
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

  Var* make_var(const std::string& name, QualType type, VarKind kind, const VarDecl* decl, SourceLocation loc) {
    ir_.vars.push_back(std::make_unique<Var>());
    Var* v = ir_.vars.back().get();
    v->index = int(ir_.vars.size()) - 1;
    v->name = kind == VarKind::Param ? name : unique_name(name);
    v->kind = kind;
    v->decl = decl;
    v->parallel = parallel_;
    QualType t = type.getCanonicalType();
    if (is_value_class(t)) {
      // A handle: by value or const reference, it is a value with an adjoint of its own type.
      if (t->isReferenceType() && !t->getPointeeType().isConstQualified())
        fail(loc, "value class '" + name + "' passed by non-const reference; pass it by value or const reference");
      v->type = type.getNonReferenceType();
      v->value = true;
      if (decl) ir_.var_of[decl] = v;
      return v;
    }
    if (t->isReferenceType()) {
      v->reference = true;
      v->memory = true;
      type = type->getPointeeType();
      t = type.getCanonicalType();
    }
    v->type = type;
    if (t->isPointerType()) {
      if (t->getPointeeType()->isPointerType())
        fail(loc, "pointers to pointers are not supported ('" + name + "')");
      if (is_value_class(t->getPointeeType()))
        fail(loc, "pointers to value classes are not supported ('" + name + "'); use the value");
      v->pointer = true;
    } else if (t->isArrayType() || t->isRecordType()) {
      v->memory = true;
    } else if (t->isRealFloatingType()) {
      v->floating = !v->reference;
    } else if (!t->isIntegralOrEnumerationType() && !t->isBooleanType()) {
      fail(loc, "variables of type '" + type.getAsString() + "' are not supported ('" + name + "')");
    }
    if (decl) ir_.var_of[decl] = v;
    return v;
  }

  // Expressions adjc can print and differentiate; reports anything else.
  void check_expr(const Expr* e) {
    if (!e) return;
    e = strip(e);
    SourceLocation at = e->getExprLoc();
    // Values of a value class change only through calls; anything else (`c ? a : b`, a
    // construction from raw data) would carry a derivative adjc cannot see.
    if (is_empty_value(e)) return;
    if (is_value_class(e->getType()) && !isa<DeclRefExpr>(e) && !isa<MemberExpr>(e) && !isa<ArraySubscriptExpr>(e) &&
        !isa<CallExpr>(e) && !is_empty_value(e))
      return fail(at, std::string("unsupported expression of value class '") + e->getType().getAsString() + "' (" +
                          e->getStmtClassName() + "); use a function with a custom pullback");
    if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e) || isa<CXXBoolLiteralExpr>(e) ||
        isa<CharacterLiteral>(e) || isa<CXXNullPtrLiteralExpr>(e) || isa<UnaryExprOrTypeTraitExpr>(e))
      return;
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl* d = ref->getDecl();
      if (isa<EnumConstantDecl>(d) || isa<FunctionDecl>(d)) return;
      auto* vd = dyn_cast<VarDecl>(d);
      if (vd && !ir_.var_of.count(vd) && !vd->hasGlobalStorage())
        fail(at, "variable '" + vd->getName().str() + "' is not supported here");
      if (vd && vd->hasGlobalStorage() && !ir_.var_of.count(vd) && is_floating(vd->getType()) &&
          !vd->getType().isConstQualified())
        fail(at, "non-const global variable '" + vd->getName().str() + "' cannot be differentiated");
      return;
    }
    if (auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->isAssignmentOp()) return fail(at, "assignments inside expressions are not supported; write them as statements");
      if (b->getOpcode() == BO_Comma) return fail(at, "the comma operator is not supported");
      check_expr(b->getLHS());
      check_expr(b->getRHS());
      return;
    }
    if (auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->isIncrementDecrementOp())
        return fail(at, "'++'/'--' inside expressions is not supported; write them as statements");
      if (u->getOpcode() == UO_AddrOf && !memory_root(ir_, u->getSubExpr()))
        return fail(at, "taking the address of a scalar is not supported");
      if (u->getOpcode() == UO_Real || u->getOpcode() == UO_Imag || u->getOpcode() == UO_Extension)
        return fail(at, "unsupported operator");
      return check_expr(u->getSubExpr());
    }
    if (auto* c = dyn_cast<ConditionalOperator>(e)) {
      check_expr(c->getCond());
      check_expr(c->getTrueExpr());
      check_expr(c->getFalseExpr());
      return;
    }
    if (auto* cast = dyn_cast<ExplicitCastExpr>(e)) {
      if (!isa<CStyleCastExpr>(e) && !isa<CXXStaticCastExpr>(e) && !isa<CXXFunctionalCastExpr>(e))
        return fail(at, std::string("unsupported cast '") + e->getStmtClassName() + "'");
      QualType to = cast->getType(), from = cast->getSubExpr()->getType();
      if (!to->isArithmeticType() || !from->isArithmeticType())
        return fail(at, "casts other than between arithmetic types are not supported");
      return check_expr(cast->getSubExpr());
    }
    if (isa<CXXThisExpr>(e)) return;
    if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return check_expr(d->getExpr());
    if (auto* call = dyn_cast<CallExpr>(e)) {
      const FunctionDecl* callee = call->getDirectCallee();
      if (!callee) return fail(at, "calls through function pointers are not supported");
      if (auto* op = dyn_cast<CXXOperatorCallExpr>(call); op && op->isAssignmentOp())
        return fail(at, "assignments inside expressions are not supported; write them as statements");
      if (auto* m = dyn_cast<CXXMethodDecl>(callee)) {
        if (m->isVirtual() && !m->hasAttr<FinalAttr>() && !m->getParent()->hasAttr<FinalAttr>())
          return fail(at, "virtual calls are not supported");
        if (m->getAccess() != AS_public && callee_kind(callee, custom_) != CalleeKind::Plain)
          return fail(at, "member function '" + m->getNameAsString() + "' of '" + m->getParent()->getNameAsString() +
                              "' must be public: adjc's generated code calls it from outside the class");
      }
      if (callee_kind(callee, custom_) != CalleeKind::Plain && base_name(callee).empty())
        return fail(at, "overloaded operator '" + callee->getNameAsString() + "' is not supported");
      for (AdArg a : ad_args(call)) {
        if (a.address && !isa<CXXThisExpr>(strip(a.expr)) && !memory_root(ir_, a.expr) && !ir_.var(a.expr) &&
            !isa<CallExpr>(strip(a.expr)))
          return fail(a.expr->getBeginLoc(), "member call on an unsupported object");
        check_expr(a.expr);
      }
      return;
    }
    if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) {
      if (!memory_root(ir_, e)) return fail(at, "indexing memory that is not a parameter or local array is not supported");
      check_expr(sub->getBase());
      check_expr(sub->getIdx());
      return;
    }
    if (auto* m = dyn_cast<MemberExpr>(e)) {
      if (!isa<FieldDecl>(m->getMemberDecl())) return fail(at, "only data members are supported");
      if (m->getMemberDecl()->getAccess() != AS_public)
        return fail(at, "member '" + m->getMemberDecl()->getNameAsString() +
                            "' must be public: adjc's generated code reads it from outside the class");
      if (!memory_root(ir_, e)) return fail(at, "member access on an unsupported object");
      return check_expr(m->getBase());
    }
    fail(at, std::string("unsupported expression (") + e->getStmtClassName() + ")");
  }

  // Hoists calls to user functions (and functions with custom pullbacks) out of `e` into Call
  // nodes of `block`, innermost first.
  void hoist_calls(const Expr* e, Node* block, const Stmt* stmt) {
    if (!e) return;
    e = strip(e);
    for (const Stmt* c : e->children())
      if (auto* ce = dyn_cast_or_null<Expr>(c)) hoist_calls(ce, block, stmt);
    auto* call = dyn_cast<CallExpr>(e);
    if (!call || !call->getDirectCallee() || math_function(call) != MathFn::None) return;
    if (!hoisted_callee(call->getDirectCallee(), custom_)) return;
    Node* n = make(NodeKind::Call, stmt);
    n->loc = call->getBeginLoc();
    n->call = call;
    if (!call->getType()->isVoidType()) {
      n->result = make_var("_" + base_name(call->getDirectCallee()), call->getType(), VarKind::CallResult,
                           nullptr, call->getBeginLoc());
      n->result->assignments = 1;
      n->result->definition = n;
      n->result->block = block;
      ir_.call_result[call] = n->result;
    }
    ir_.hoisted.insert(call);
    add(block, n);
  }

  void add(Node* block, Node* n) {
    n->parent = block;
    block->children.push_back(n);
  }

  void lower_compound(const CompoundStmt* cs, Node* block) {
    for (const Stmt* s : cs->body()) lower_stmt(s, block);
  }

  Node* lower_scope(const Stmt* s) {
    Node* block = make(NodeKind::Block, s);
    if (auto* cs = dyn_cast<CompoundStmt>(s)) lower_compound(cs, block);
    else lower_stmt(s, block);
    return block;
  }

  // `lhs op rhs` as an Assign node (rhs nullptr for ++/--).
  void lower_assign(const Stmt* stmt, const Expr* lhs, BinaryOperatorKind op, const Expr* rhs, Node* block) {
    check_expr(rhs);
    hoist_calls(rhs, block, stmt);
    Node* n = make(NodeKind::Assign, stmt);
    n->lhs = lhs;
    n->op = op;
    n->rhs = rhs;
    const Expr* target = lhs->IgnoreParens();
    Var* v = ir_.var(target);
    if (v && !v->memory) {
      if (v->counter) return fail(target->getExprLoc(), "the counter of a for loop is modified in its body");
      if (v->pointer) {
        if (v->kind == VarKind::Param)
          return fail(target->getExprLoc(), "reassigning pointer parameter '" + v->name + "' is not supported; use a local pointer");
        if (rhs && (op == BO_Assign) && (!v->base || !same_base(pointer_base(rhs), v->base)))
          return fail(target->getExprLoc(), "local pointer '" + v->name + "' must keep pointing into the same array");
      }
      n->target = v;
      v->assignments++;
    } else {
      check_expr(lhs);
      n->memory_root = memory_root(ir_, target);
      if (!n->memory_root) return fail(target->getExprLoc(), "assignment to an unsupported lvalue");
      if (n->memory_root->kind == VarKind::Param && !n->memory_root->reference && !n->memory_root->pointer)
        return fail(target->getExprLoc(), "writing to by-value struct parameter '" + n->memory_root->name + "' is not supported");
    }
    QualType t = lhs->getType();
    if (is_value_class(t) && !(v && v->value))
      return fail(target->getExprLoc(), "assigning a value class into memory (a member or an array) is not supported; use a local");
    if (is_floating(t) && op != BO_Assign && op != BO_AddAssign && op != BO_SubAssign && op != BO_MulAssign &&
        op != BO_DivAssign)
      return fail(stmt->getBeginLoc(), "unsupported compound assignment on a floating value");
    if (!is_adjoint_value(t) && !t->isIntegralOrEnumerationType() && !t->isBooleanType() && !t->isPointerType())
      return fail(stmt->getBeginLoc(), "assignment of type '" + t.getAsString() + "' is not supported");
    add(block, n);
  }

  // The pointer expression a pointer-valued `e` offsets (a pointer parameter, member, or array).
  const Expr* pointer_base(const Expr* e) {
    e = strip(e);
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      Var* v = ir_.var(ref);
      if (v && v->pointer && v->kind != VarKind::Param) return v->base;
      return v ? e : nullptr;
    }
    if (isa<MemberExpr>(e)) return e;
    if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub))
      return pointer_base(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
      if (auto* sub = dyn_cast<ArraySubscriptExpr>(strip(u->getSubExpr()))) return pointer_base(sub->getBase());
    return nullptr;
  }

  void lower_decl(const VarDecl* vd, const Stmt* stmt, Node* block) {
    SourceLocation at = vd->getLocation();
    if (vd->isStaticLocal() || vd->hasGlobalStorage()) return fail(at, "static local variables are not supported");
    if (vd->getType()->isReferenceType()) return fail(at, "local references are not supported; use a pointer");
    const Expr* init = vd->getInit();
    if (init && is_empty_value(init)) init = nullptr;  // `V x;`, `V x{}`: an empty handle, as every local starts
    if (init && (isa<InitListExpr>(strip(init)) || isa<CXXConstructExpr>(strip(init))))
      return fail(at, "initialiser lists and constructors are not supported; assign the members");
    Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, at);
    v->block = block;
    if (v->memory && init) return fail(at, "initialising arrays or structs where they are declared is not supported");
    if (v->pointer) {
      if (!init) return fail(at, "local pointer '" + v->name + "' must be initialised where it is declared");
      v->base = pointer_base(init);
      v->root = memory_root(ir_, init);
      if (!v->base || !v->root) return fail(at, "local pointer '" + v->name + "' must point into a parameter or local array");
    }
    if (!init) return;
    size_t before = block->children.size();
    lower_assign(stmt, new_ref(vd), BO_Assign, init, block);
    if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
      block->children.back()->definition = true;
      block->children.back()->loc = at;
      v->definition = block->children.back();
    }
  }

  // A DeclRefExpr naming `vd` (the left side of a declaration's initialisation).
  const Expr* new_ref(const VarDecl* vd) {
    return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd), false,
                               vd->getLocation(), vd->getType().getNonReferenceType(), VK_LValue);
  }

  void lower_expr_stmt(const Expr* e, Node* block) {
    const Stmt* stmt = e;
    e = strip(e);
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) {
      BinaryOperatorKind op = b->getOpcode();
      return lower_assign(stmt, b->getLHS(), op, b->getRHS(), block);
    }
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
      return lower_assign(stmt, u->getSubExpr(), u->isIncrementOp() ? BO_AddAssign : BO_SubAssign, nullptr, block);
    // `x = y` for a value class: its copy or move assignment.
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(e); op && op->getOperator() == OO_Equal && is_value_class(op->getType())) {
      auto* m = dyn_cast_or_null<CXXMethodDecl>(op->getDirectCallee());
      if (m && (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()))
        return lower_assign(stmt, op->getArg(0), BO_Assign, op->getArg(1), block);
    }
    if (auto* call = dyn_cast<CallExpr>(e)) {
      check_expr(call);
      for (AdArg a : ad_args(call)) hoist_calls(a.expr, block, stmt);
      const FunctionDecl* callee = call->getDirectCallee();
      if (!callee) return;
      if (math_function(call) == MathFn::None && callee_kind(callee, custom_) != CalleeKind::Plain) {
        Node* n = make(NodeKind::Call, stmt);
        n->call = call;
        ir_.hoisted.insert(call);
        return add(block, n);
      }
      std::vector<AdParam> params = ad_params(callee);
      std::vector<AdArg> args = ad_args(call);
      for (size_t i = 0; i < args.size() && i < params.size(); ++i)
        if (is_written_param(params[i].type) && memory_root(ir_, args[i].expr))
          return fail(call->getBeginLoc(), "call to '" + callee->getNameAsString() +
                                               "' which has no body and no custom pullback writes memory adjc cannot differentiate");
      Node* n = make(NodeKind::Call, stmt);  // a plain call: forward only
      n->call = call;
      return add(block, n);
    }
    fail(e->getExprLoc(), std::string("unsupported statement (") + e->getStmtClassName() + ")");
  }

  void lower_stmt(const Stmt* s, Node* block) {
    if (!s || isa<NullStmt>(s)) return;
    SourceLocation at = s->getBeginLoc();
    if (auto* cs = dyn_cast<CompoundStmt>(s)) {
      Node* inner = make(NodeKind::Block, s);
      lower_compound(cs, inner);
      return add(block, inner);
    }
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls()) {
        if (auto* vd = dyn_cast<VarDecl>(d)) lower_decl(vd, s, block);
        else if (!isa<TypedefNameDecl>(d) && !isa<StaticAssertDecl>(d)) fail(d->getLocation(), "unsupported declaration");
      }
      return;
    }
    if (auto* e = dyn_cast<Expr>(s)) return lower_expr_stmt(e, block);
    if (auto* is = dyn_cast<IfStmt>(s)) {
      if (is->getInit() || is->getConditionVariable() || is->isConsteval())
        return fail(at, "if statements with initialisers or condition variables are not supported");
      check_expr(is->getCond());
      Node* n = make(NodeKind::If, s);
      n->cond = is->getCond();
      n->then_node = lower_scope(is->getThen());
      n->then_node->parent = n;
      if (is->getElse()) {
        n->else_node = lower_scope(is->getElse());
        n->else_node->parent = n;
      }
      return add(block, n);
    }
    if (auto* fs = dyn_cast<ForStmt>(s)) return lower_for(fs, block, false);
    if (auto* ws = dyn_cast<WhileStmt>(s)) {
      if (ws->getConditionVariable()) return fail(at, "while conditions declaring variables are not supported");
      return lower_loop(s, LoopForm::While, ws->getCond(), ws->getBody(), nullptr, block);
    }
    if (auto* ds = dyn_cast<DoStmt>(s)) return lower_loop(s, LoopForm::Do, ds->getCond(), ds->getBody(), nullptr, block);
    if (isa<BreakStmt>(s) || isa<ContinueStmt>(s)) {
      if (loops_.empty()) return fail(at, "break/continue outside a loop");
      Node* n = make(NodeKind::Jump, s);
      n->jump = isa<BreakStmt>(s) ? JumpKind::Break : JumpKind::Continue;
      n->target_loop = loops_.back();
      if (n->target_loop->parallel) return fail(at, "break/continue in an OpenMP parallel loop");
      n->id = next_id_++;
      loops_.back()->jumps.push_back(n);
      return add(block, n);
    }
    if (auto* rs = dyn_cast<ReturnStmt>(s)) {
      if (!loops_.empty()) return fail(at, "return inside a loop is not supported; break out of the loop first");
      if (const Expr* value = rs->getRetValue()) {
        lower_return_value(s, value, block);
      }
      Node* n = make(NodeKind::Jump, s);
      n->jump = JumpKind::Return;
      n->id = next_id_++;
      ir_.returns.push_back(n);
      return add(block, n);
    }
    // `parallel for simd` too: the generated loops are plain loops the compiler may vectorise.
    if (isa<OMPParallelForDirective, OMPParallelForSimdDirective>(s)) {
      auto* omp = cast<OMPLoopDirective>(s);
      for (const OMPClause* c : omp->clauses()) {
        auto* sched = dyn_cast<OMPScheduleClause>(c);
        if (!sched || sched->getScheduleKind() != OMPC_SCHEDULE_static)
          return fail(c->getBeginLoc(), "only '#pragma omp parallel for' (optionally schedule(static)) is supported");
      }
      if (parallel_) return fail(at, "nested OpenMP parallel loops are not supported");
      auto* fs = dyn_cast<ForStmt>(omp->getInnermostCapturedStmt()->getCapturedStmt());
      if (!fs) return fail(at, "unsupported OpenMP loop");
      return lower_for(fs, block, true);
    }
    if (isa<OMPExecutableDirective>(s)) return fail(at, "only '#pragma omp parallel for' loops are supported");
    if (isa<SwitchStmt>(s)) return fail(at, "switch statements are not supported; use if/else");
    if (isa<GotoStmt>(s) || isa<LabelStmt>(s)) return fail(at, "goto is not supported");
    fail(at, std::string("unsupported statement (") + s->getStmtClassName() + ")");
  }

  // The return value's assignment (`_ret = value`).
  void lower_return_value(const Stmt* stmt, const Expr* value, Node* block) {
    check_expr(value);
    hoist_calls(value, block, stmt);
    Node* n = make(NodeKind::Assign, stmt);
    n->target = ir_.ret;
    n->rhs = value;
    ir_.ret->assignments++;
    add(block, n);
  }

  void lower_for(const ForStmt* fs, Node* block, bool parallel) {
    SourceLocation at = fs->getBeginLoc();
    if (fs->getConditionVariable()) return fail(at, "for conditions declaring variables are not supported");
    // Canonical: for (int i = start; cond; i++ / ++i / i-- / --i / i += k / i -= k), i not written in the body.
    const VarDecl* counter = nullptr;
    long step = 0;
    if (auto* ds = dyn_cast_or_null<DeclStmt>(fs->getInit()); ds && ds->isSingleDecl())
      if (auto* vd = dyn_cast<VarDecl>(ds->getSingleDecl());
          vd && vd->getType()->isIntegerType() && vd->getInit() && !vd->getType().isConstQualified())
        if (const Expr* inc = fs->getInc()) {
          auto refers = [&](const Expr* e) {
            auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
            return r && r->getDecl() == vd;
          };
          if (auto* u = dyn_cast<UnaryOperator>(inc); u && u->isIncrementDecrementOp() && refers(u->getSubExpr()))
            step = u->isIncrementOp() ? 1 : -1;
          if (auto* c = dyn_cast<CompoundAssignOperator>(inc);
              c && (c->getOpcode() == BO_AddAssign || c->getOpcode() == BO_SubAssign) && refers(c->getLHS()))
            if (auto* lit = dyn_cast<IntegerLiteral>(c->getRHS()->IgnoreParenImpCasts()); lit && lit->getValue() != 0)
              step = (c->getOpcode() == BO_AddAssign ? 1 : -1) * long(lit->getValue().getZExtValue());
          if (step != 0 && !writes_variable(fs->getBody(), vd) && !writes_variable(fs->getCond(), vd)) counter = vd;
        }
    if (parallel) {
      auto* cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
      auto* lhs = cond ? dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) : nullptr;
      if (!counter || step != 1 || !cond || cond->getOpcode() != BO_LT || !lhs || lhs->getDecl() != counter)
        return fail(at, "OpenMP parallel loops must have the form 'for (int i = start; i < end; i++)'");
    }
    if (!counter) {
      lower_stmt(fs->getInit(), block);
      return lower_loop(fs, LoopForm::For, fs->getCond(), fs->getBody(), fs->getInc(), block);
    }
    check_expr(counter->getInit());
    Node* n = make(NodeKind::Loop, fs);
    n->form = LoopForm::For;
    n->parallel = parallel;
    n->id = next_id_++;
    Node* saved_parallel = parallel_;
    if (parallel) {
      parallel_ = n;
      ir_.parallel_loops.push_back(n);
    }
    Var* v = make_var(counter->getName().str(), counter->getType(), VarKind::Local, counter, counter->getLocation());
    v->counter = true;
    n->counter = v;
    n->start = counter->getInit();
    n->step = step;
    n->cond = fs->getCond();
    if (auto* cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
        cond && cond->getOpcode() == BO_LT && step > 0)
      if (auto* lhs = dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()); lhs && lhs->getDecl() == counter)
        n->end = cond->getRHS();
    check_expr(n->cond);
    loops_.push_back(n);
    n->body = lower_scope(fs->getBody());
    n->body->parent = n;
    loops_.pop_back();
    parallel_ = saved_parallel;
    add(block, n);
  }

  void lower_loop(const Stmt* s, LoopForm form, const Expr* cond, const Stmt* body, const Expr* inc, Node* block) {
    if (parallel_) return fail(s->getBeginLoc(), "loops inside an OpenMP parallel loop must be canonical for loops");
    Node* n = make(NodeKind::Loop, s);
    n->form = form;
    n->cond = cond;
    n->id = next_id_++;
    check_expr(cond);
    loops_.push_back(n);
    n->body = lower_scope(body);
    n->body->parent = n;
    if (inc) {
      n->inc = make(NodeKind::Block, inc);
      n->inc->parent = n;
      lower_expr_stmt(inc, n->inc);
    }
    loops_.pop_back();
    add(block, n);
  }
};

}  // namespace

std::unique_ptr<FunctionIR> lower(const FunctionDecl* fn, ASTContext& context, Diagnostics& diags,
                                  const CustomPullbacks& custom) {
  auto ir = std::make_unique<FunctionIR>();
  ir->fn = fn;
  Lowering(*ir, context, diags, custom).run();
  return ir;
}

// ---------------------------------------------------------------------------------------------
// Activity

namespace {

template <class F>
void for_each_node(Node* n, F&& f) {
  if (!n) return;
  f(n);
  for (Node* c : n->children) for_each_node(c, f);
  for_each_node(n->then_node, f);
  for_each_node(n->else_node, f);
  for_each_node(n->body, f);
  for_each_node(n->inc, f);
}

}  // namespace

Activity analyze_activity(const FunctionIR& ir, const std::vector<bool>& active, Diagnostics* diags,
                          SourceLocation request) {
  Activity act;
  act.varied.assign(ir.vars.size(), 0);
  for (auto& v : ir.vars)
    if (v->kind == VarKind::Param && active[v->param_index] && v->differentiable) act.varied[v->index] = 1;
  bool changed = true;
  auto mark = [&](Var* v) {
    if (v && !act.varied[v->index]) act.varied[v->index] = changed = 1;
  };
  while (changed) {
    changed = false;
    for_each_node(ir.body, [&](Node* n) {
      if (n->kind == NodeKind::Assign) {
        bool varied_rhs = n->rhs && reads_varied(ir, act, n->rhs);
        if (!varied_rhs) return;
        if (n->target && (n->target->floating || n->target->value)) mark(n->target);
        if (n->memory_root && is_floating(n->lhs->getType())) mark(n->memory_root);
      } else if (n->kind == NodeKind::Call && ir.hoisted.count(n->call) && call_active(ir, act, n)) {
        if (n->result && (n->result->floating || n->result->value)) mark(n->result);
        std::vector<AdParam> params = ad_params(n->call->getDirectCallee());
        std::vector<AdArg> args = ad_args(n->call);
        for (size_t i = 0; i < args.size() && i < params.size(); ++i)
          if (is_written_param(params[i].type)) mark(memory_root(ir, args[i].expr));
      }
    });
  }
  if (diags) {
    for (auto& v : ir.vars)
      if (v->kind == VarKind::Param && v->differentiable && !v->floating && !v->value && act.varied[v->index] &&
          !active[v->param_index])
        diags->error(request, "parameter '" + v->name + "' of '" + ir.fn->getNameAsString() +
                                  "' receives values that depend on the differentiated parameters; "
                                  "add it to the gradient request");
  }
  return act;
}

// ---------------------------------------------------------------------------------------------
// Tape plan

void variables_read(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  if (!e) return;
  e = strip(e);
  if (auto* call = dyn_cast<CallExpr>(e)) {
    auto it = ir.call_result.find(call);
    if (it != ir.call_result.end()) return out.push_back(it->second);
  }
  if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e)) {
    if (Var* v = ir.var(e)) out.push_back(v);
    return;
  }
  if (is_memory_read(e) || e->getType()->isPointerType())
    if (Var* root = memory_root(ir, e)) out.push_back(root);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) variables_read(ir, ce, out);
}

void needed_values(const FunctionIR& ir, const Activity& act, const Expr* e, std::vector<const Expr*>& out) {
  e = strip(e);
  if (!reads_varied(ir, act, e)) return;
  if (auto* u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == UO_Minus || u->getOpcode() == UO_Plus) needed_values(ir, act, u->getSubExpr(), out);
    return;
  }
  if (auto* b = dyn_cast<BinaryOperator>(e)) {
    const Expr *l = b->getLHS(), *r = b->getRHS();
    bool lv = reads_varied(ir, act, l), rv = reads_varied(ir, act, r);
    switch (b->getOpcode()) {
      case BO_Add:
      case BO_Sub:
        needed_values(ir, act, l, out);
        needed_values(ir, act, r, out);
        return;
      case BO_Mul:
        if (rv) out.push_back(l);
        if (lv) out.push_back(r);
        needed_values(ir, act, l, out);
        needed_values(ir, act, r, out);
        return;
      case BO_Div:
        if (rv) out.push_back(l);
        out.push_back(r);
        needed_values(ir, act, l, out);
        needed_values(ir, act, r, out);
        return;
      default:
        return;
    }
  }
  if (auto* c = dyn_cast<ConditionalOperator>(e)) {
    out.push_back(c->getCond());
    needed_values(ir, act, c->getTrueExpr(), out);
    needed_values(ir, act, c->getFalseExpr(), out);
    return;
  }
  if (auto* call = dyn_cast<CallExpr>(e)) {
    if (math_function(call) == MathFn::None) return;
    for (const Expr* a : call->arguments()) {
      out.push_back(a);
      needed_values(ir, act, a, out);
    }
    return;
  }
  if (auto* cast = dyn_cast<ExplicitCastExpr>(e)) needed_values(ir, act, cast->getSubExpr(), out);
}

bool declared_in(const Var* v, const Node* block) {
  for (const Node* b = v->block; b; b = b->parent)
    if (b == block) return true;
  return false;
}

namespace {

// What a definition `e` reads: variables by value (a pointer's value is an address; arrays and
// structs are only read through their memory) and the regions of its memory reads.
struct DefinitionReads {
  std::vector<Var*> values, regions;
};
void definition_reads(const FunctionIR& ir, const Expr* e, DefinitionReads& out) {
  if (!e) return;
  e = strip(e);
  if (auto* call = dyn_cast<CallExpr>(e); call && ir.call_result.count(call))
    return out.values.push_back(ir.call_result.at(call));
  if (is_memory_read(e))
    if (Var* root = memory_root(ir, e)) out.regions.push_back(root);
  if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e)) {
    if (Var* v = ir.var(e); v && !v->memory) out.values.push_back(v);
    return;
  }
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) definition_reads(ir, ce, out);
}

// Whether `e` reads an arithmetic value from the memory of `region` (not an address: `&m[k]`
// and pointer members read none of m's values).
bool reads_value_of(const FunctionIR& ir, const Expr* e, const Var* region) {
  if (!e) return false;
  e = strip(e);
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
    const Expr* place = strip(u->getSubExpr());
    if (auto* s = dyn_cast<ArraySubscriptExpr>(place))
      return reads_value_of(ir, s->getBase(), region) || reads_value_of(ir, s->getIdx(), region);
    if (auto* m = dyn_cast<MemberExpr>(place)) return reads_value_of(ir, m->getBase(), region);
    return false;
  }
  if (is_memory_read(e) && e->getType()->isArithmeticType() && memory_root(ir, e) == region) return true;
  for (const Stmt* c : e->children())
    if (reads_value_of(ir, dyn_cast_or_null<Expr>(c), region)) return true;
  return false;
}

// Variables an lvalue's address depends on: indices and pointer variables.
void address_vars(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  e = strip(e);
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    // Pointer parameters cannot be reassigned, so only local pointers' values matter.
    if (Var* v = ir.var(ref); v && v->pointer && v->kind != VarKind::Param) out.push_back(v);
    return;
  }
  if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) {
    address_vars(ir, s->getBase(), out);
    variables_read(ir, s->getIdx(), out);
    return;
  }
  if (auto* m = dyn_cast<MemberExpr>(e)) return address_vars(ir, m->getBase(), out);
  if (auto* u = dyn_cast<UnaryOperator>(e)) return address_vars(ir, u->getSubExpr(), out);
  if (auto* b = dyn_cast<BinaryOperator>(e)) {
    bool left_pointer = b->getLHS()->getType()->isPointerType();
    address_vars(ir, left_pointer ? b->getLHS() : b->getRHS(), out);
    variables_read(ir, left_pointer ? b->getRHS() : b->getLHS(), out);
  }
}

// Address variables of every memory read in `e`.
void memory_addresses(const FunctionIR& ir, const Expr* e, std::vector<Var*>& out) {
  if (!e) return;
  e = strip(e);
  if (is_memory_read(e)) address_vars(ir, e, out);
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) memory_addresses(ir, ce, out);
}

// Whether a and b run in a common loop; for a variable private to each iteration of `within`,
// only loops inside that iteration count.
bool shares_loop(const Node* a, const Node* b, const Node* within = nullptr) {
  size_t depth = within ? within->loops.size() + 1 : 0;
  return a->loops.size() > depth && b->loops.size() > depth && a->loops[depth] == b->loops[depth];
}

// Whether `n` (any node) passes memory of `region` to a call other than a math function, which
// could write it where the tape plan cannot see.
bool passes_region_to_call(const FunctionIR& ir, const Node* n, const Var* region) {
  std::function<bool(const Expr*)> visit = [&](const Expr* e) {
    if (!e) return false;
    if (auto* call = dyn_cast<CallExpr>(e); call && math_function(call) == MathFn::None)
      for (const Expr* a : call->arguments())
        if (memory_root(ir, a) == region) return true;
    for (const Stmt* c : e->children())
      if (visit(dyn_cast_or_null<Expr>(c))) return true;
    return false;
  };
  return visit(n->lhs) || visit(n->rhs) || visit(n->cond) || visit(n->call) || visit(n->start) || visit(n->end);
}

// Whether node `n` lies in `block` (or is it).
bool encloses(const Node* block, const Node* n) {
  for (; n; n = n->parent)
    if (n == block) return true;
  return false;
}

bool inside(const Node* n, const Node* loop) {
  return std::find(n->loops.begin(), n->loops.end(), loop) != n->loops.end();
}

bool same_expr(const Expr* a, const Expr* b, const ASTContext& context) {
  if (!a || !b) return a == b;
  llvm::FoldingSetNodeID ia, ib;
  strip(a)->Profile(ia, context, true);
  strip(b)->Profile(ib, context, true);
  return ia == ib;
}

// Whether `e` has the same value in every iteration of `loop`: no calls, no memory reads, and no
// variable that the loop assigns.
bool invariant_in(const FunctionIR& ir, const Expr* e, const Node* loop, const std::vector<Node*>& all) {
  std::function<bool(const Expr*)> pure = [&](const Expr* x) {
    if (!x) return true;
    if (isa<CallExpr>(x) || is_memory_read(strip(x))) return false;
    for (const Stmt* c : x->children())
      if (!pure(dyn_cast_or_null<Expr>(c))) return false;
    return true;
  };
  if (!pure(e)) return false;
  std::vector<Var*> vars;
  variables_read(ir, e, vars);
  for (Var* v : vars) {
    if (v->memory) return false;
    for (const Node* n : all)
      if (inside(n, loop) && ((n->kind == NodeKind::Assign && n->target == v) ||
                              (n->kind == NodeKind::Loop && n->counter == v)))
        return false;
    if (v == loop->counter) return false;
  }
  return true;
}

bool is_counter_of(const FunctionIR& ir, const Expr* e, const Node* loop) {
  auto* r = dyn_cast<DeclRefExpr>(strip(e));
  return r && ir.var(r) == loop->counter;
}

// `P[i]` or `P[X + i]` / `P[i + X]` with i the counter of `loop` and P a pointer variable: P and X.
bool counter_access(const FunctionIR& ir, const Expr* e, const Node* loop, const Expr*& pointer,
                    const Expr*& offset) {
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(e));
  if (!sub) return false;
  auto* base = dyn_cast<DeclRefExpr>(strip(sub->getBase()));
  Var* p = base ? ir.var(base) : nullptr;
  if (!p || !p->pointer) return false;
  const Expr* idx = strip(sub->getIdx());
  pointer = base;
  offset = nullptr;
  if (is_counter_of(ir, idx, loop)) return true;
  auto* add = dyn_cast<BinaryOperator>(idx);
  if (!add || add->getOpcode() != BO_Add) return false;
  if (is_counter_of(ir, add->getRHS(), loop)) offset = add->getLHS();
  else if (is_counter_of(ir, add->getLHS(), loop)) offset = add->getRHS();
  return offset != nullptr;
}

// The subscripts `...[...]` of `region` in the assignments `nodes`, appended to `out`; false when
// the region is also mentioned otherwise (a pointer passed on, dereferenced, or offset).
bool region_subscripts(const FunctionIR& ir, const std::vector<const Node*>& nodes, const Var* region,
                       std::vector<const Expr*>& out) {
  bool only_subscripts = true;
  std::function<void(const Expr*)> visit = [&](const Expr* e) {
    if (!e) return;
    e = strip(e);
    if (isa<ArraySubscriptExpr>(e) && memory_root(ir, e) == region) {
      out.push_back(e);
      return visit(cast<ArraySubscriptExpr>(e)->getIdx());
    }
    if (isa<DeclRefExpr>(e) && memory_root(ir, e) == region) only_subscripts = false;
    for (const Stmt* c : e->children()) visit(dyn_cast_or_null<Expr>(c));
  };
  for (const Node* n : nodes) {
    if (n->kind != NodeKind::Assign) return false;
    visit(n->lhs);
    visit(n->rhs);
  }
  return only_subscripts;
}

// How an access of a region maps iterations of a loop with counter c to elements, when each
// iteration gets elements of its own: `P[X + c]` (one element; P and X the same in every
// iteration), or a row of length S: `R[c * S + j]`, or `p[j]` with `p = R + c * S` defined in
// the loop, where j counts an inner loop `for (j = k; j < S; j++)` from a constant k >= 0.
struct IterationElements {
  const Var* pointer = nullptr;      // P (one element per iteration), nullptr for a row
  const Expr* offset = nullptr;      // X
  const Expr* row_length = nullptr;  // S
};

// `c * S` or `S * c` with c the counter of `loop`: S.
const Expr* row_start(const FunctionIR& ir, const Expr* e, const Node* loop) {
  auto* mul = dyn_cast<BinaryOperator>(strip(e));
  if (!mul || mul->getOpcode() != BO_Mul) return nullptr;
  if (is_counter_of(ir, mul->getLHS(), loop)) return mul->getRHS();
  if (is_counter_of(ir, mul->getRHS(), loop)) return mul->getLHS();
  return nullptr;
}

// Whether `e` is the counter of a loop inside `loop` that runs from a constant >= 0 while below
// `row_length`.
bool indexes_row(const FunctionIR& ir, const Expr* e, const Node* loop, const Expr* row_length,
                 const std::vector<Node*>& all) {
  auto* r = dyn_cast<DeclRefExpr>(strip(e));
  Var* j = r ? ir.var(r) : nullptr;
  if (!j || !j->counter) return false;
  for (const Node* inner : all) {
    if (inner->kind != NodeKind::Loop || inner->counter != j || !inside(inner, loop)) continue;
    Expr::EvalResult start;
    return inner->end && same_expr(inner->end, row_length, ir.fn->getASTContext()) &&
           inner->start->EvaluateAsInt(start, ir.fn->getASTContext()) && !start.Val.getInt().isNegative();
  }
  return false;
}

std::optional<IterationElements> iteration_elements(const FunctionIR& ir, const Expr* access, const Node* loop,
                                                    const std::vector<Node*>& all) {
  if (!loop->counter) return std::nullopt;
  const Expr *pointer, *offset;
  if (counter_access(ir, access, loop, pointer, offset)) {
    if (!invariant_in(ir, pointer, loop, all) || (offset && !invariant_in(ir, offset, loop, all))) return std::nullopt;
    return IterationElements{ir.var(pointer), offset, nullptr};
  }
  auto* sub = dyn_cast<ArraySubscriptExpr>(strip(access));
  auto* base = sub ? dyn_cast<DeclRefExpr>(strip(sub->getBase())) : nullptr;
  Var* p = base ? ir.var(base) : nullptr;
  if (!p || !p->pointer) return std::nullopt;
  const Expr* length = nullptr;
  const Expr* index = sub->getIdx();
  if (p->kind == VarKind::Param) {  // R[c * S + j]
    auto* add = dyn_cast<BinaryOperator>(strip(index));
    if (!add || add->getOpcode() != BO_Add) return std::nullopt;
    if ((length = row_start(ir, add->getLHS(), loop))) index = add->getRHS();
    else if ((length = row_start(ir, add->getRHS(), loop))) index = add->getLHS();
  } else if (p->assignments == 1 && p->definition && inside(p->definition, loop)) {  // p = R + c * S; p[j]
    auto* add = dyn_cast<BinaryOperator>(strip(p->definition->rhs));
    if (add && add->getOpcode() == BO_Add && add->getLHS()->getType()->isPointerType() &&
        isa<DeclRefExpr>(strip(add->getLHS())) && ir.var(strip(add->getLHS()))->kind == VarKind::Param)
      length = row_start(ir, add->getRHS(), loop);
  }
  if (!length || !invariant_in(ir, length, loop, all) || !indexes_row(ir, index, loop, length, all))
    return std::nullopt;
  return IterationElements{nullptr, nullptr, length};
}

// Whether every access of `region` in nodes a and b gives each iteration of every loop they share
// elements of its own, the same way (so one iteration never reads what another wrote).
// Whether every one of `accesses` gives each iteration of `loop` elements of its own, all the same
// way (one P and X, or one row length).
bool same_iteration_elements(const FunctionIR& ir, const std::vector<const Expr*>& accesses, const Node* loop,
                             const std::vector<Node*>& all) {
  const ASTContext& context = ir.fn->getASTContext();
  std::optional<IterationElements> first;
  for (const Expr* e : accesses) {
    std::optional<IterationElements> each = iteration_elements(ir, e, loop, all);
    if (!each) return false;
    if (!first) first = each;
    else if (each->pointer != first->pointer || !same_expr(each->offset, first->offset, context) ||
             !same_expr(each->row_length, first->row_length, context))
      return false;
  }
  return true;
}

bool disjoint_iterations(const FunctionIR& ir, const Node* a, const Node* b, const Var* region,
                         const std::vector<Node*>& all) {
  std::vector<const Expr*> accesses;
  if (!region_subscripts(ir, {a, b}, region, accesses) || accesses.empty()) return false;
  for (size_t depth = 0; depth < a->loops.size() && depth < b->loops.size() && a->loops[depth] == b->loops[depth];
       ++depth)
    if (!same_iteration_elements(ir, accesses, a->loops[depth], all)) return false;
  return true;
}

// Whether the reverse of `n`, an assignment `m[...] = f(x)` with f exp, tanh or sqrt (whose
// derivatives are functions of f's value), may read f(x) from m[...] instead of calling f again.
// It may when m[...] is certain to hold exactly what `n` wrote once the reverse sweep reaches `n`:
// the target has the call's type (no rounding between them); every write to the region that can
// run after `n` (later in program order, or in a later iteration of a loop they share, `n`
// itself included, unless each iteration of those loops has elements of its own) is taped, so its
// reverse has restored the region before; no call receives the
// region; and `n` is not in a parallel loop (the plan does not follow other threads' writes).
// Distinct parameters are assumed not to alias, as everywhere in adjc.
bool result_in_target(const FunctionIR& ir, const Node* n, const std::vector<Node*>& all) {
  if (n->kind != NodeKind::Assign || !n->active || n->target || !n->memory_root || n->op != BO_Assign || !n->rhs)
    return false;
  auto* call = dyn_cast<CallExpr>(strip(n->rhs));
  if (!call) return false;
  MathFn m = math_function(call);
  if (m != MathFn::Exp && m != MathFn::Tanh && m != MathFn::Sqrt) return false;
  if (call->getType().getCanonicalType().getUnqualifiedType() !=
      n->lhs->getType().getCanonicalType().getUnqualifiedType())
    return false;
  for (const Node* loop : n->loops)
    if (loop->parallel) return false;
  for (const Node* w : all) {
    if (passes_region_to_call(ir, w, n->memory_root)) return false;
    // Writes in later iterations of the loops they share touch other elements when every
    // iteration has elements of its own.
    if (w->kind == NodeKind::Assign && w->memory_root == n->memory_root && !w->save &&
        (w->order > n->order || (shares_loop(w, n) && !disjoint_iterations(ir, n, w, n->memory_root, all))))
      return false;
  }
  return true;
}

struct ReadSite {
  const Node* node;
  Var* var;
};

// Bulk saves: a straight loop `for (i = s; i < E; i++)` (assignments only, no jumps, not in a
// parallel loop) whose one saved write `P[X + i] = ...` is the loop's only write to its region,
// and that touches the region only as P[X + i] (P, X and E the same in every iteration). Then
// iteration i overwrites exactly the element P[X + i] held before the loop, and its reverse reads
// no other iteration's element, so one push of P[X + s .. X + E) before the loop and one pop
// restore what a push and a pop per iteration would: before the reverse loop when the reverse
// reads the old values (reads at or before the write), after it when it reads the new ones.
void plan_bulk_saves(const FunctionIR& ir, const std::vector<Node*>& all, const std::vector<ReadSite>& reads) {
  for (Node* loop : all) {
    if (loop->kind != NodeKind::Loop || !loop->counter || loop->step != 1 || !loop->jumps.empty() ||
        loop->parallel || loop->inc)
      continue;
    bool in_parallel = false;
    for (const Node* l : loop->loops) in_parallel |= l->parallel;
    if (in_parallel || !loop->end || !invariant_in(ir, loop->end, loop, all)) continue;
    // Nothing else in the loop pushes: its only saved node is the write.
    std::vector<Node*> saved;
    bool straight = true;
    for (Node* n : loop->body->children) {
      straight &= n->kind == NodeKind::Assign;
      if (n->save) saved.push_back(n);
    }
    for (auto& v : ir.vars) straight &= !(v->iteration == loop && v->read_in_reverse && !v->recompute);
    if (!straight || saved.size() != 1) continue;
    Node* write = saved[0];
    if (!write->memory_root || !write->lhs || !is_floating(write->lhs->getType())) continue;
    const Var* region = write->memory_root;
    const Expr *pointer, *offset;
    if (!counter_access(ir, write->lhs, loop, pointer, offset) || !invariant_in(ir, pointer, loop, all) ||
        (offset && !invariant_in(ir, offset, loop, all)))
      continue;
    // Every access of the region is the write's P[X + i] (the body has no inner loop, so no row
    // form); any other mention of it (another index, the pointer passed on, a second write)
    // disqualifies the loop.
    std::vector<const Node*> body(loop->body->children.begin(), loop->body->children.end());
    std::vector<const Expr*> accesses;
    bool only_counter = region_subscripts(ir, body, region, accesses) && same_iteration_elements(ir, accesses, loop, all);
    for (const Node* n : body) only_counter &= n == write || n->memory_root != region;
    if (!only_counter) continue;
    bool reads_old = false, reads_new = write->result_in_target;
    for (const ReadSite& r : reads)
      if (r.var == region && inside(r.node, loop)) (r.node->order <= write->order ? reads_old : reads_new) = true;
    if (reads_old && reads_new) continue;
    write->bulk = true;
    loop->bulk_write = write;
    loop->bulk_pointer = pointer;
    loop->bulk_offset = offset;
    loop->bulk_restore_first = reads_old;
  }
}

// The assignments of `block` and of the blocks inside it; false when it holds anything else.
bool straight_assignments(const Node* block, std::vector<const Node*>& out) {
  for (const Node* c : block->children) {
    if (c->kind == NodeKind::Block) {
      if (!straight_assignments(c, out)) return false;
    } else if (c->kind == NodeKind::Assign) {
      out.push_back(c);
    } else {
      return false;
    }
  }
  return true;
}

// Vectorised reverse loops. The reverse of a straight counted loop (assignments only, not parallel)
// may run its iterations in any order, and so be marked `omp simd`, when they share nothing but
// sums into the adjoints of outer scalars that the loop reads:
//  - it pops nothing per iteration (a bulk save's pop_n is outside the loop), so primal memory
//    stays as it is while the reverse loop runs, and its locals are recomputed, not taped;
//  - every region with an adjoint is accessed only as P[X + i], so each iteration accumulates into
//    its own adjoint elements (distinct parameters do not alias, as everywhere in adjc);
//  - outer scalars it writes are only accumulated (`s += ...`) and not read in it: the reverse
//    only reads their adjoints;
//  - the outer floating scalars it reads get sums: each is a local, or an assigned parameter (whose
//    adjoint is a local accumulator), and private to the enclosing parallel loop's thread, as the
//    adjoints of regions are (no atomics, which `omp simd` does not allow).
// Only loops with such sums are marked: other straight loops vectorise without being told.
void plan_simd_reverse(FunctionIR& ir, const Activity& full, const std::vector<Node*>& all) {
  for (Node* loop : all) {
    if (loop->kind != NodeKind::Loop || !loop->reverse || !loop->counter || !loop->jumps.empty() || loop->parallel ||
        loop->inc)
      continue;
    std::vector<const Node*> body;
    if (!straight_assignments(loop->body, body)) continue;
    const Node* parallel = nullptr;
    for (const Node* l : loop->loops)
      if (l->parallel) parallel = l;
    bool independent = true;
    std::vector<Var*> read;
    std::set<const Var*> accumulated;
    for (const Node* n : body) {
      independent &= !n->save || n->bulk;
      variables_read(ir, n->rhs, read);
      if (n->target && !declared_in(n->target, loop->body)) {
        independent &= n->op == BO_AddAssign || n->op == BO_SubAssign;
        accumulated.insert(n->target);
      } else if (!n->target) {
        variables_read(ir, n->lhs, read);
      }
    }
    for (auto& v : ir.vars)
      if (declared_in(v.get(), loop->body))
        independent &= (!v->read_in_reverse || v->recompute) && !v->value && !v->memory;
    std::vector<Var*> sums;
    std::set<const Var*> regions;
    for (Var* v : read) {
      if (v->memory || v->pointer) {
        if (Var* root = v->memory ? v : v->root) regions.insert(root);
        continue;
      }
      if (v == loop->counter || declared_in(v, loop->body) || !full.of(v)) continue;
      if (accumulated.count(v) || !v->floating || (v->kind == VarKind::Param && v->assignments == 0) ||
          v->parallel != parallel) {
        independent = false;
      } else if (std::find(sums.begin(), sums.end(), v) == sums.end()) {
        sums.push_back(v);
      }
    }
    std::set<const Var*> partitioned;
    if (parallel) partitioned = counter_indexed_regions(ir, parallel);
    for (const Var* region : regions) {
      if (!full.of(region)) continue;
      independent &= !parallel || region->parallel == parallel || partitioned.count(region);
      // The body has no inner loop, so every access is P[X + i].
      std::vector<const Expr*> accesses;
      independent &= region_subscripts(ir, body, region, accesses) && same_iteration_elements(ir, accesses, loop, all);
    }
    if (independent && !sums.empty()) {
      loop->simd_reverse = true;
      loop->simd_sums = sums;
    }
  }
}

}  // namespace

void plan_tape(FunctionIR& ir, const Activity& full, const CustomPullbacks& custom, Diagnostics& diags) {
  std::vector<ReadSite> reads;
  std::vector<Node*> all;
  for_each_node(ir.body, [&](Node* n) { all.push_back(n); });

  // Rejections that depend on activity: casts of active values to integers, calls of functions
  // with no derivative. A condition's value carries no derivative (the reverse replays the
  // recorded branch), so a call there needs none when it writes nothing.
  std::function<void(const Expr*, bool)> check = [&](const Expr* e, bool condition) {
    if (!e) return;
    if (auto* c = dyn_cast<CastExpr>(e);
        c && (c->getCastKind() == CK_FloatingToIntegral || c->getCastKind() == CK_FloatingToBoolean) &&
        reads_varied(ir, full, c->getSubExpr()))
      diags.error(e->getExprLoc(), "non-differentiable cast of an active floating value to '" +
                                       c->getType().getAsString() + "'");
    if (auto* call = dyn_cast<CallExpr>(e); call && call->getDirectCallee() && math_function(call) == MathFn::None &&
                                            !ir.hoisted.count(call)) {
      const FunctionDecl* callee = call->getDirectCallee();
      std::vector<AdParam> params = ad_params(callee);
      std::vector<AdArg> args = ad_args(call);
      bool writes = false;
      for (const AdParam& p : params) writes |= is_written_param(p.type);
      bool needs_derivative = !derivative_free(callee) && (writes || !condition);
      for (size_t i = 0; i < args.size() && i < params.size() && needs_derivative; ++i)
        if (arg_varied(ir, full, params[i].type, args[i].expr)) {
          std::string where = with_object(callee) ? "class_functions::" : "";
          diags.error(call->getBeginLoc(), "call to '" + callee->getQualifiedNameAsString() +
                                               "' which has no body and no custom pullback (define "
                                               "adjoint::custom_derivatives::" + where +
                                               base_name(callee) + "_pullback)");
          break;
        }
    }
    for (const Stmt* c : e->children()) check(dyn_cast_or_null<Expr>(c), condition);
  };

  for (Node* n : all) {
    std::vector<Var*> vars;
    if (n->kind == NodeKind::Assign) {
      check(n->rhs, false);
      Var* written = n->target ? n->target : n->memory_root;
      bool floating = n->target ? n->target->floating || n->target->value : is_floating(n->lhs->getType());
      n->active = floating && full.of(written);
      if (!n->active) continue;
      if (n->lhs) address_vars(ir, n->lhs, vars);
      std::vector<const Expr*> values;
      if (n->rhs) needed_values(ir, full, n->rhs, values);
      for (const Expr* v : values) variables_read(ir, v, vars);
      memory_addresses(ir, n->rhs, vars);
      if ((n->op == BO_MulAssign || n->op == BO_DivAssign) && n->rhs) {
        vars.push_back(written);
        variables_read(ir, n->rhs, vars);
      }
    } else if (n->kind == NodeKind::Call) {
      for (AdArg a : ad_args(n->call)) check(a.expr, false);
      if (!ir.hoisted.count(n->call)) continue;
      n->active = call_active(ir, full, n) && !derivative_free(n->call->getDirectCallee());
      if (!n->active) continue;
      for (AdArg a : ad_args(n->call)) variables_read(ir, a.expr, vars);
    } else if (n->kind == NodeKind::If || n->kind == NodeKind::Loop) {
      check(n->cond, true);
    }
    for (Var* v : vars) {
      v->read_in_reverse = true;
      reads.push_back({n, v});
    }
  }

  // Locals the reverse sweep recomputes from their definition instead of taping.
  std::set<Var*> written_regions;
  for (Node* n : all) {
    if (n->kind == NodeKind::Assign && n->memory_root) written_regions.insert(n->memory_root);
    if (n->kind == NodeKind::Call && ir.hoisted.count(n->call)) {
      std::vector<AdParam> params = ad_params(n->call->getDirectCallee());
      std::vector<AdArg> args = ad_args(n->call);
      for (size_t i = 0; i < args.size() && i < params.size(); ++i)
        if (is_written_param(params[i].type))
          if (Var* r = memory_root(ir, args[i].expr)) written_regions.insert(r);
    }
  }
  // A local defined once in a loop is recomputed at the start of its block's reverse, so its
  // definition must give there what it gave in the forward: nothing it reads (a variable, or memory
  // of a region) is written later in the block, by an assignment (a loop's initialisation and
  // increment included: only loops that declare their counter are lowered with none) or through a
  // call. What it reads is then read in the reverse there, so it is kept, taped or recomputed in
  // turn, and later overwrites of the memory it reads are taped.
  auto written_later = [&](const Node* definition, const Node* block, auto&& writes) {
    for (const Node* n : all)
      if (n->order > definition->order && encloses(block, n) && writes(n)) return true;
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& vp : ir.vars) {
      Var* v = vp.get();
      if (v->kind != VarKind::Local || v->memory || v->counter || v->assignments != 1 || !v->definition ||
          v->definition->loops.empty() || !v->read_in_reverse || v->recompute)
        continue;
      const Node* definition = v->definition;
      DefinitionReads deps;
      definition_reads(ir, definition->rhs, deps);
      bool stable = true;
      for (Var* d : deps.values)
        stable &= d->kind != VarKind::CallResult && !(d->kind == VarKind::Param && d->assignments > 0) &&
                  !written_later(definition, v->block, [&](const Node* n) {
                    return n->kind == NodeKind::Assign && n->target == d;
                  });
      for (Var* r : deps.regions)
        stable &= !written_later(definition, v->block, [&](const Node* n) {
          return (n->kind == NodeKind::Assign && n->memory_root == r) || passes_region_to_call(ir, n, r);
        });
      if (!stable) continue;
      v->recompute = changed = true;
      // Parameters' values are the reverse's own arguments.
      for (Var* d : deps.values)
        if (d->kind != VarKind::Param) {
          d->read_in_reverse = true;
          reads.push_back({definition, d});
        }
      for (Var* r : deps.regions) {
        r->read_in_reverse = true;
        reads.push_back({definition, r});
      }
    }
  }

  for (auto& vp : ir.vars) {
    Var* v = vp.get();
    Node* loop = v->block ? v->block->parent : nullptr;
    if ((v->kind == VarKind::Local || v->kind == VarKind::CallResult) && !v->memory && !v->counter && loop &&
        loop->kind == NodeKind::Loop && loop->body == v->block && loop->jumps.empty())
      v->iteration = loop;
  }

  // Saves: an overwrite is taped when reverse code that runs after it (in reverse order) reads the
  // old value: a read at or before it in program order, or anywhere in a loop they share — unless
  // each iteration of the loops they share reads and writes elements of its own (rows of a matrix).
  for (Node* n : all) {
    if (n->kind == NodeKind::Assign) {
      Var* written = n->target ? n->target : n->memory_root;
      if (!written || written->recompute || written->kind == VarKind::Return) continue;
      for (const ReadSite& r : reads)
        if (r.var == written &&
            (r.node->order <= n->order || (shares_loop(r.node, n, written->iteration) &&
                                           !(!n->target && disjoint_iterations(ir, n, r.node, written, all))))) {
          n->save = true;
          break;
        }
    } else if (n->kind == NodeKind::Call && ir.hoisted.count(n->call)) {
      for (const ReadSite& r : reads)
        if (n->result && r.var == n->result &&
            (r.node->order <= n->order || shares_loop(r.node, n, n->result->iteration))) {
          n->save = true;
          break;
        }
      const FunctionDecl* callee = n->call->getDirectCallee();
      const bool custom_callee = callee_kind(callee, custom) == CalleeKind::Custom;
      std::vector<AdParam> params = ad_params(callee);
      std::vector<AdArg> args = ad_args(n->call);
      for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
        if (!is_written_param(params[i].type)) continue;
        Var* region = memory_root(ir, args[i].expr);
        if (is_write_once(region)) continue;  // the user's contract: no call overwrites what it wrote
        for (const ReadSite& r : reads)
          // A custom pullback reads memory as its call left it, so a call in a loop also destroys
          // what its own earlier iterations' pullbacks read (generated callees restore it from
          // their tape).
          if (r.var == region && (r.node != n || custom_callee) &&
              (r.node->order < n->order || shares_loop(r.node, n))) {
            diags.error(n->loc, "'" + region->name + "' is overwritten by the call to '" + callee->getNameAsString() +
                                    "' but the derivative needs its earlier value; copy it first");
            break;
          }
        // The reverse evaluates the arguments again for the pullback, before the callee's reverse
        // has restored what the call wrote: an argument read from that memory would be the new value.
        for (const AdArg& a : args)
          if (reads_value_of(ir, a.expr, region)) {
            diags.error(a.expr->getBeginLoc(), "an argument reads '" + region->name + "', which the call to '" +
                                                   callee->getNameAsString() +
                                                   "' overwrites; copy the value into a local first");
            break;
          }
      }
    }
  }

  for (Node* n : all) n->result_in_target = result_in_target(ir, n, all);
  plan_bulk_saves(ir, all, reads);

  for (auto& vp : ir.vars) {
    Var* v = vp.get();
    bool assigned_param = v->kind == VarKind::Param && v->assignments > 0;
    v->kept = v->read_in_reverse && !v->recompute && !v->counter && !v->iteration &&
              (v->kind == VarKind::Local || v->kind == VarKind::CallResult || assigned_param) &&
              (!v->memory || written_regions.count(v));
  }

  // Which nodes have reverse code.
  std::function<bool(Node*)> mark = [&](Node* n) -> bool {
    if (!n) return false;
    bool r = false;
    switch (n->kind) {
      case NodeKind::Assign: r = n->active || n->save; break;
      case NodeKind::Call: r = n->active || n->save; break;
      case NodeKind::Jump: r = true; break;
      case NodeKind::Block:
        for (Node* c : n->children) r |= mark(c);
        break;
      case NodeKind::If:
        r = mark(n->then_node);
        r |= mark(n->else_node);
        break;
      case NodeKind::Loop:
        r = mark(n->body);
        r |= mark(n->inc);
        break;
    }
    n->reverse = r;
    return r;
  };
  mark(ir.body);
  plan_simd_reverse(ir, full, all);

  for (Node* loop : ir.parallel_loops)
    for_each_node(loop->body, [&](Node* n) {
      if (n->kind == NodeKind::Call && n->active)
        diags.error(n->loc, "calls of differentiated functions inside an OpenMP parallel loop are not supported");
    });
}

}  // namespace adjc
