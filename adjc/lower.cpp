// Lowering: clang AST -> IR; rejects what adjc cannot differentiate (passes.hpp).
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include <functional>
#include <set>

#include "containers.hpp"
#include "passes.hpp"

namespace adjc {

using namespace clang;

namespace {

bool same_base(const Expr* a, const Expr* b) {
  a = strip(a);
  b = strip(b);
  if (a == b) return true;
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
    check_function(ir_, context_, diags_);
    for (const ParmVarDecl* p : fn->parameters()) {
      if (p->getName().empty()) continue;
      names_[p->getName().str()] = 1;
    }
    int index = 0;
    for (const AdParam& p : ad_params(fn)) {
      std::string name = p.decl
                             ? (p.decl->getName().empty() ? "_param" + std::to_string(index) : p.decl->getName().str())
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
    find_split_structs(fn->getBody());
    ir_.body = make(NodeKind::Block, fn->getBody());
    lower_compound(cast<CompoundStmt>(fn->getBody()), ir_.body);
    int order = 0;
    for_each_node(ir_.body, [&](Node* n) { n->order = order++; });
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
  std::set<Node*> returns_from_;       // loops a `return` inside leaves
  const VarDecl* returned_ = nullptr;  // `_returned`, set by a return inside a loop
  std::set<const VarDecl*> split_;      // local structs split into one variable per member
  std::set<const VarDecl*> objects_;    // local structs whose member functions are called: one object
  std::set<const VarDecl*> addressed_;  // floating locals passed by address or non-const reference

  void fail(SourceLocation where, const std::string& message) {
    diags_.error(where, message);
    ir_.valid = false;
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
    // A member typedef (`std::vector<double>::size_type`, a call's result) is spelled by its
    // canonical type: generated code declares it outside the class.
    if (auto* td = type->getAs<TypedefType>(); td && isa<CXXRecordDecl>(td->getDecl()->getDeclContext()))
      type = type.getCanonicalType();
    QualType t = type.getCanonicalType();
    if (is_container(t) && (kind == VarKind::Return || kind == VarKind::CallResult))
      fail(loc, std::string(kind == VarKind::Return ? "returning" : "calling a function that returns") + " '" +
                    type.getAsString() + "' is not supported; write the elements into a '" +
                    t.getNonReferenceType().getUnqualifiedType().getAsString() + "&' parameter instead");
    if (is_library_class(t)) {
      std::string what = kind == VarKind::Param    ? "parameter '" + name + "'"
                         : kind == VarKind::Local  ? "local variable '" + name + "'"
                         : kind == VarKind::Return ? "the result"
                                                   : "the result of a call";
      fail(loc, what + " has type '" + type.getAsString() +
                    "', a library class adjc does not differentiate; pass its elements as a pointer and a "
                    "length (such as 'const double* x, int n')");
    }
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
      if (t->getPointeeType()->isPointerType()) fail(loc, "pointers to pointers are not supported ('" + name + "')");
      if (is_value_class(t->getPointeeType()))
        fail(loc, "pointers to value classes are not supported ('" + name + "'); use the value");
      v->pointer = true;
    } else if (t->isArrayType() || t->isRecordType()) {
      v->memory = true;
    } else if (t->isRealFloatingType() && decl && addressed_.count(decl)) {
      v->memory = true;  // passed by address: a one-element region
    } else if (t->isRealFloatingType()) {
      v->floating = !v->reference;
    } else if (!t->isIntegralOrEnumerationType() && !t->isBooleanType()) {
      fail(loc, "variables of type '" + type.getAsString() + "' are not supported ('" + name + "')");
    }
    if (decl) ir_.var_of[decl] = v;
    return v;
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
      n->result = make_var("_" + base_name(call->getDirectCallee()), call->getType(), VarKind::CallResult, nullptr,
                           call->getBeginLoc());
      n->result->assignments = 1;
      n->result->definition = n;
      n->result->block = block;
      ir_.call_result[call] = n->result;
    }
    ir_.hoisted.insert(call);
    add(block, n);
  }

  // Whether `e` holds a call hoist_calls hoists out of it.
  bool holds_hoisted_call(const Expr* e) {
    if (!e) return false;
    e = strip(e);
    if (auto* call = dyn_cast<CallExpr>(e); call && call->getDirectCallee() && math_function(call) == MathFn::None &&
                                            hoisted_callee(call->getDirectCallee(), custom_))
      return true;
    for (const Stmt* c : e->children())
      if (holds_hoisted_call(dyn_cast_or_null<Expr>(c))) return true;
    return false;
  }

  // Hoisting runs a call before the statement that holds it, so a call that runs only on some
  // paths — in a branch of `c ? a : b` or in the right operand of `&&`, `||` — must not be
  // hoisted out of its condition: each such expression becomes a temporary set by an if/else
  // (`t = c` for the operators), the calls hoisted into the branch that evaluates them.
  // Returns `e`, or what replaces it; operands of `e` are replaced in place.
  Expr* lower_branches(Expr* e, Node* block, const Stmt* stmt) {
    if (!e) return e;
    auto* cond = dyn_cast<ConditionalOperator>(e);
    auto* logic = dyn_cast<BinaryOperator>(e);
    if (logic && !logic->isLogicalOp()) logic = nullptr;
    if ((cond && (holds_hoisted_call(cond->getTrueExpr()) || holds_hoisted_call(cond->getFalseExpr()))) ||
        (logic && holds_hoisted_call(logic->getRHS())))
      return lower_branch(e, block, stmt);
    if (isa<BinaryConditionalOperator>(e) && holds_hoisted_call(e)) {
      fail(e->getExprLoc(), "a call inside the GNU conditional 'a ?: b' is not supported; write 'a ? a : b'");
      return e;
    }
    for (Stmt*& c : e->children())
      if (auto* ce = dyn_cast_or_null<Expr>(c)) c = lower_branches(ce, block, stmt);
    return e;
  }

  // `c ? a : b` -> `if (c) t = a; else t = b;`, `l && r` -> `t = l; if (t) t = r;`,
  // `l || r` -> `t = l; if (t) {} else t = r;`; returns the temporary as an rvalue of e's type.
  Expr* lower_branch(Expr* e, Node* block, const Stmt* stmt) {
    QualType type = e->getType().getUnqualifiedType();
    if (!type->isArithmeticType()) {
      fail(e->getExprLoc(), "a call inside a conditional expression of type '" + type.getAsString() +
                                "' is not supported; write it as an if/else statement");
      return e;
    }
    SourceLocation at = e->getExprLoc();
    auto* vd = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at, &context_.Idents.get("_branch"),
                               type, context_.getTrivialTypeSourceInfo(type, at), SC_None);
    vd->setImplicit();
    Var* t = make_var("_branch", type, VarKind::Local, vd, at);
    t->block = block;
    Node* n = make(NodeKind::If, stmt);
    n->loc = at;
    n->then_node = make(NodeKind::Block, stmt);
    n->then_node->parent = n;
    if (auto* c = dyn_cast<ConditionalOperator>(e)) {
      check_expression(ir_, custom_, diags_, c->getCond());
      n->cond = c->getCond();
      n->else_node = make(NodeKind::Block, stmt);
      n->else_node->parent = n;
      lower_assign(stmt, new_ref(vd), BO_Assign, c->getTrueExpr(), n->then_node);
      lower_assign(stmt, new_ref(vd), BO_Assign, c->getFalseExpr(), n->else_node);
    } else {
      auto* b = cast<BinaryOperator>(e);
      lower_assign(stmt, new_ref(vd), BO_Assign, b->getLHS(), block);
      n->cond = new_ref(vd);
      Node* evaluates = n->then_node;
      if (b->getOpcode() == BO_LOr) {
        n->else_node = make(NodeKind::Block, stmt);
        n->else_node->parent = n;
        evaluates = n->else_node;
      }
      lower_assign(stmt, new_ref(vd), BO_Assign, b->getRHS(), evaluates);
    }
    add(block, n);
    return ImplicitCastExpr::Create(context_, type, CK_LValueToRValue, const_cast<Expr*>(new_ref(vd)), nullptr,
                                    VK_PRValue, FPOptionsOverride());
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
    rhs = lower_branches(const_cast<Expr*>(rhs), block, stmt);
    check_expression(ir_, custom_, diags_, rhs);
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
          return fail(target->getExprLoc(),
                      "reassigning pointer parameter '" + v->name + "' is not supported; use a local pointer");
        if (rhs && (op == BO_Assign) && (!v->base || !same_base(pointer_base(rhs), v->base)))
          return fail(target->getExprLoc(), "local pointer '" + v->name + "' must keep pointing into the same array");
      }
      n->target = v;
      v->assignments++;
    } else {
      check_expression(ir_, custom_, diags_, lhs);
      n->memory_root = memory_root(ir_, target);
      if (!n->memory_root) return fail(target->getExprLoc(), "assignment to an unsupported lvalue");
      if (n->memory_root->kind == VarKind::Param && !n->memory_root->reference && !n->memory_root->pointer)
        return fail(target->getExprLoc(),
                    "writing to by-value struct parameter '" + n->memory_root->name + "' is not supported");
    }
    QualType t = lhs->getType();
    if (is_value_class(t) && !(v && v->value))
      return fail(target->getExprLoc(),
                  "assigning a value class into memory (a member or an array) is not supported; use a local");
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
      if (auto* sub = dyn_cast<ArraySubscriptExpr>(strip(u->getSubExpr()))) {
        // Into a container: `c.data()` or `&c[k]` with a constant k (the pointer's base is printed
        // again where the reverse sweep rebuilds it).
        if (!is_container(sub->getBase()->getType())) return pointer_base(sub->getBase());
        return isa<IntegerLiteral>(strip(sub->getIdx())) ? e : nullptr;
      }
    return nullptr;
  }

  void lower_decl(const VarDecl* vd, const Stmt* stmt, Node* block) {
    SourceLocation at = vd->getLocation();
    if (vd->isStaticLocal() || vd->hasGlobalStorage()) return fail(at, "static local variables are not supported");
    if (vd->getType()->isReferenceType()) return fail(at, "local references are not supported; use a pointer");
    if (split_.count(vd)) return lower_split_struct(vd, stmt, block);
    // A lambda without captures: its calls are calls of its generated forward; no state to keep.
    if (auto* closure = vd->getType()->getAsCXXRecordDecl(); closure && closure->isLambda()) {
      if (closure->capture_size() != 0)
        return fail(at, "lambdas with captures are not supported; pass the captured values as parameters");
      return;
    }
    const Expr* init = vd->getInit();
    if (init && is_empty_value(init)) init = nullptr;  // `V x;`, `V x{}`: an empty handle, as every local starts
    if (auto* list = init ? dyn_cast<InitListExpr>(strip(init)) : nullptr; list && vd->getType()->isConstantArrayType())
      return lower_array_init(vd, list, stmt, block);
    if (objects_.count(vd)) return lower_object(vd, stmt, block);
    if (is_container(vd->getType())) return lower_container_local(vd, stmt, block);
    const std::string name = vd->getName().str();
    // Library classes (std::vector, ...) are rejected by make_var, naming the type.
    if (!is_library_class(vd->getType().getCanonicalType())) {
      if (vd->getType()->isRecordType() && !is_value_class(vd->getType()))
        return fail(at, "local struct '" + name +
                            "' is used as a whole (passed, assigned or copied into an object that is), which is not "
                            "supported; use and pass its members");
      if (init && (isa<InitListExpr>(strip(init)) || isa<CXXConstructExpr>(strip(init))))
        return fail(at, "initialiser lists and constructors are not supported ('" + name +
                            "'); declare it, then assign it a value");
    }
    Var* v = make_var(name, vd->getType(), VarKind::Local, vd, at);
    v->block = block;
    if (v->memory && init && !is_floating(vd->getType()))
      return fail(at, "initialising arrays or structs where they are declared is not supported");
    if (v->pointer) {
      if (!init) return fail(at, "local pointer '" + v->name + "' must be initialised where it is declared");
      v->base = pointer_base(init);
      v->root = memory_root(ir_, init);
      if (!v->base || !v->root)
        return fail(at, "local pointer '" + v->name + "' must point into a parameter or local array");
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

  // Local structs whose every use is a member `s.x` of a scalar, pointer or array member: each
  // member becomes a variable of its own (`s_x`), so a struct of pointers into parameters is a set
  // of local pointers, and each member is a region of its own.
  void find_split_structs(const Stmt* body) {
    std::set<const VarDecl*> whole;
    std::vector<std::pair<const VarDecl*, const VarDecl*>> copies;  // `S b = a;`: split both or neither
    auto local = [](const Expr* e) -> const VarDecl* {
      auto* ref = e ? dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
      auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      return vd && vd->isLocalVarDecl() ? vd : nullptr;
    };
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s) return;
      if (auto* m = dyn_cast<MemberExpr>(s); m && !m->isArrow() && isa<FieldDecl>(m->getMemberDecl()))
        if (isa<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts())) return;
      // The object of a member call (`p.f(x)`, `p(x)`): the struct stays one object in memory.
      const Expr* object = nullptr;
      if (auto* mc = dyn_cast<CXXMemberCallExpr>(s)) object = mc->getImplicitObjectArgument();
      if (auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && isa_and_nonnull<CXXMethodDecl>(op->getDirectCallee()))
        object = op->getArg(0);
      if (const VarDecl* vd = local(object)) {
        objects_.insert(vd);
        for (const Stmt* c : s->children())
          if (c != object && !(isa<MemberExpr>(c) && cast<MemberExpr>(c)->getBase() == object)) walk(c);
        return;
      }
      // A floating local whose address is taken or that a call writes through a reference.
      if (auto* u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_AddrOf)
        if (const VarDecl* vd = local(u->getSubExpr()); vd && is_floating(vd->getType())) addressed_.insert(vd);
      if (auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXOperatorCallExpr>(s) && call->getDirectCallee())
        for (unsigned i = 0; i < call->getNumArgs() && i < call->getDirectCallee()->getNumParams(); ++i) {
          QualType t = call->getDirectCallee()->getParamDecl(i)->getType();
          if (t->isLValueReferenceType() && !t->getPointeeType().isConstQualified())
            if (const VarDecl* vd = local(call->getArg(i)); vd && is_floating(vd->getType())) addressed_.insert(vd);
        }
      if (auto* ref = dyn_cast<DeclRefExpr>(s))
        if (auto* vd = dyn_cast<VarDecl>(ref->getDecl())) whole.insert(vd);
      if (auto* ds = dyn_cast<DeclStmt>(s)) {
        for (const Decl* d : ds->decls())
          if (auto* vd = dyn_cast<VarDecl>(d)) {
            if (vd->isLocalVarDecl() && splittable(vd->getType())) split_.insert(vd);
            const Expr* init = vd->getInit() ? strip(vd->getInit()) : nullptr;
            auto* c = dyn_cast_or_null<CXXConstructExpr>(init);
            auto* ref = c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor()
                            ? dyn_cast<DeclRefExpr>(strip(c->getArg(0)))
                            : nullptr;
            if (auto* from = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr) copies.push_back({vd, from});
            else walk(vd->getInit());
          }
        return;
      }
      for (const Stmt* c : s->children()) walk(c);
    };
    walk(body);
    for (const VarDecl* vd : whole) split_.erase(vd);
    for (const VarDecl* vd : objects_) split_.erase(vd);
    for (const VarDecl* vd : whole) objects_.erase(vd);
    for (bool changed = true; changed;) {
      changed = false;
      for (auto [to, from] : copies)
        if (split_.count(to) != split_.count(from)) {
          split_.erase(to);
          split_.erase(from);
          changed = true;
        }
    }
  }

  bool splittable(QualType t) {
    auto* record = t->getAsRecordDecl();
    if (!record || is_value_class(t) || is_container(t) || record->isUnion() || t->isReferenceType()) return false;
    if (auto* cxx = dyn_cast<CXXRecordDecl>(record); cxx && (cxx->isPolymorphic() || cxx->getNumBases() > 0))
      return false;
    for (const FieldDecl* f : record->fields()) {
      QualType ft = f->getType().getCanonicalType();
      if (f->isBitField() || ft->isReferenceType()) return false;
      if (auto* array = dyn_cast<ConstantArrayType>(ft)) ft = array->getElementType().getCanonicalType();
      if (!ft->isArithmeticType() && !ft->isPointerType()) return false;
    }
    return true;
  }

  // A literal zero of arithmetic type `t` (nullptr for other types): what a member or element
  // without an initialiser in a braced list starts with.
  const Expr* zero_of(QualType t) {
    t = t.getCanonicalType();
    if (t->isRealFloatingType())
      return FloatingLiteral::Create(context_, llvm::APFloat::getZero(context_.getFloatTypeSemantics(t)), true, t,
                                     SourceLocation());
    if (t->isIntegerType() && !t->isBooleanType() && !t->isEnumeralType())
      return IntegerLiteral::Create(context_, llvm::APInt(context_.getIntWidth(t), 0), t, SourceLocation());
    return nullptr;
  }

  // A member `s.x` of local `vd` as an expression.
  Expr* member_ref(const VarDecl* vd, const FieldDecl* f) {
    return MemberExpr::CreateImplicit(context_, const_cast<Expr*>(new_ref(vd)), false, const_cast<FieldDecl*>(f),
                                      f->getType(), VK_LValue, OK_Ordinary);
  }

  // The value each member of a struct initialised by `init` starts with (nullptr: zero, as every
  // local starts): an initialiser list (designated or not), a constructor whose members are
  // initialised from its parameters or constants and whose body is empty, or a copy of another
  // split struct.
  bool member_inits(const VarDecl* vd, const Expr* init, std::vector<const Expr*>& out) {
    const RecordDecl* record = vd->getType()->getAsRecordDecl();
    std::vector<const FieldDecl*> fields(record->field_begin(), record->field_end());
    out.assign(fields.size(), nullptr);
    auto in_class = [&](size_t i) {
      if (fields[i]->hasInClassInitializer()) out[i] = fields[i]->getInClassInitializer();
    };
    if (!init) {
      for (size_t i = 0; i < fields.size(); ++i) in_class(i);
      return true;
    }
    init = strip(init);
    if (auto* cast = dyn_cast<CXXFunctionalCastExpr>(init)) init = strip(cast->getSubExpr());
    if (auto* list = dyn_cast<InitListExpr>(init)) {
      for (size_t i = 0; i < fields.size(); ++i) {
        const Expr* e = i < list->getNumInits() ? list->getInit(i) : nullptr;
        if (auto* inner = e ? dyn_cast<InitListExpr>(strip(e)) : nullptr;  // `{}` or `{v}` for a scalar member
            inner && inner->getNumInits() <= 1 && !fields[i]->getType()->isArrayType())
          e = inner->getNumInits() == 1 ? inner->getInit(0) : nullptr;
        if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(fields[i]->getType());
        if (!e) continue;
        if (auto* d = dyn_cast<CXXDefaultInitExpr>(e)) e = d->getExpr();
        out[i] = e;
      }
      return true;
    }
    auto* construct = dyn_cast<CXXConstructExpr>(init);
    if (!construct) return false;
    const CXXConstructorDecl* ctor = construct->getConstructor();
    if (ctor->isCopyOrMoveConstructor()) {
      const Expr* from = strip(construct->getArg(0));
      auto* ref = dyn_cast<DeclRefExpr>(from);
      auto* other = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (other && split_.count(other)) {
        for (size_t i = 0; i < fields.size(); ++i) out[i] = member_ref(other, fields[i]);
        return true;
      }
      // A copy of a struct in memory (`S s = samples[i];`): member by member.
      if (!memory_root(ir_, from)) return false;
      for (size_t i = 0; i < fields.size(); ++i)
        out[i] = MemberExpr::CreateImplicit(context_, const_cast<Expr*>(from), false, const_cast<FieldDecl*>(fields[i]),
                                            fields[i]->getType(), VK_LValue, OK_Ordinary);
      return true;
    }
    if (ctor->isDefaultConstructor() && ctor->isTrivial()) {
      for (size_t i = 0; i < fields.size(); ++i) in_class(i);
      return true;
    }
    const FunctionDecl* definition = nullptr;
    if (!ctor->hasBody(definition)) return false;
    ctor = cast<CXXConstructorDecl>(definition);
    auto* body = dyn_cast_or_null<CompoundStmt>(ctor->getBody());
    if (!body || !body->body_empty()) return false;
    for (const CXXCtorInitializer* ci : ctor->inits()) {
      const FieldDecl* f = ci->getMember();
      if (!f) return false;
      size_t i = std::find(fields.begin(), fields.end(), f) - fields.begin();
      const Expr* e = strip(ci->getInit());
      if (auto* d = dyn_cast<CXXDefaultInitExpr>(e)) {
        out[i] = d->getExpr();
        continue;
      }
      if (isa<ImplicitValueInitExpr>(e)) continue;
      if (auto* paren = dyn_cast<ParenListExpr>(e); paren && paren->getNumExprs() == 1) e = strip(paren->getExpr(0));
      if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
        auto* p = dyn_cast<ParmVarDecl>(ref->getDecl());
        if (!p) return false;
        out[i] = construct->getArg(p->getFunctionScopeIndex());
        continue;
      }
      if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e)) {
        out[i] = e;
        continue;
      }
      return false;
    }
    return true;
  }

  void lower_split_struct(const VarDecl* vd, const Stmt* stmt, Node* block) {
    SourceLocation at = vd->getLocation();
    std::vector<const Expr*> inits;
    if (!member_inits(vd, vd->getInit(), inits))
      return fail(at, "initialising struct '" + vd->getName().str() +
                          "' this way is not supported; use an initialiser list ({a, b} or {.x = a}), or a "
                          "constructor that only initialises members from its parameters");
    const RecordDecl* record = vd->getType()->getAsRecordDecl();
    size_t i = 0;
    for (const FieldDecl* f : record->fields()) {
      const Expr* init = inits[i++];
      Var* v = make_var(vd->getName().str() + "_" + f->getName().str(), f->getType(), VarKind::Local, nullptr, at);
      v->block = block;
      ir_.member_var[{vd, f}] = v;
      if (v->pointer) {
        if (!init)
          return fail(at, "pointer member '" + f->getName().str() + "' of local struct '" + vd->getName().str() +
                              "' must be initialised where the struct is declared");
        v->base = pointer_base(init);
        v->root = memory_root(ir_, init);
        if (!v->base || !v->root)
          return fail(init->getBeginLoc(), "pointer member '" + f->getName().str() + "' of local struct '" +
                                               vd->getName().str() + "' must point into a parameter or local array");
      }
      if (!init) continue;
      if (v->memory) {
        auto* list = dyn_cast<InitListExpr>(strip(init));
        if (!list) return fail(init->getBeginLoc(), "unsupported initialiser of array member '" + f->getName().str() + "'");
        lower_array_elements(member_ref(vd, f), list, stmt, block);
        continue;
      }
      size_t before = block->children.size();
      lower_assign(stmt, member_ref(vd, f), BO_Assign, init, block);
      if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
        block->children.back()->definition = true;
        block->children.back()->loc = at;
        v->definition = block->children.back();
      }
    }
  }

  // A local struct whose member functions are called (a function object): one object in memory,
  // its members initialised as a split struct's are, its adjoint a struct of the same type.
  void lower_object(const VarDecl* vd, const Stmt* stmt, Node* block) {
    SourceLocation at = vd->getLocation();
    auto* record = vd->getType()->getAsCXXRecordDecl();
    if (!record || !splittable(vd->getType()) || !(record->isAggregate() || record->hasTrivialDefaultConstructor()))
      return fail(at, "local object '" + vd->getName().str() +
                          "' must be a struct of scalar, pointer and array members with a default constructor");
    std::vector<const Expr*> inits;
    if (!member_inits(vd, vd->getInit(), inits))
      return fail(at, "initialising object '" + vd->getName().str() +
                          "' this way is not supported; use an initialiser list ({a, b} or {.x = a})");
    Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, at);
    v->block = block;
    size_t i = 0;
    for (const FieldDecl* f : record->fields()) {
      const Expr* init = inits[i++];
      if (!init) continue;
      if (f->getType()->isArrayType()) {
        auto* list = dyn_cast<InitListExpr>(strip(init));
        if (!list) return fail(init->getBeginLoc(), "unsupported initialiser of array member '" + f->getName().str() + "'");
        lower_array_elements(member_ref(vd, f), list, stmt, block);
      } else {
        lower_assign(stmt, member_ref(vd, f), BO_Assign, init, block);
      }
    }
  }

  // `T a[N] = {x, y}`: the local array, then one assignment per element given (the rest are zero,
  // as every local starts).
  void lower_array_init(const VarDecl* vd, const InitListExpr* list, const Stmt* stmt, Node* block) {
    Var* v = make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, vd->getLocation());
    v->block = block;
    lower_array_elements(const_cast<Expr*>(new_ref(vd)), list, stmt, block);
  }

  void lower_array_elements(Expr* array, const InitListExpr* list, const Stmt* stmt, Node* block) {
    auto* type = cast<ConstantArrayType>(array->getType().getCanonicalType());
    QualType element = type->getElementType();
    // The elements not given are zero; locals start zero, so only a declaration that runs again
    // (in a loop) assigns them.
    uint64_t count = loops_.empty() ? list->getNumInits() : type->getSize().getZExtValue();
    if (count - list->getNumInits() > 64)
      return fail(list->getBeginLoc(), "a partly initialised array of more than 64 elements inside a loop is not "
                                       "supported; zero it with a loop");
    for (unsigned i = 0; i < count; ++i) {
      const Expr* e = i < list->getNumInits() ? list->getInit(i) : nullptr;
      if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(element);
      if (!e) continue;
      if (isa<InitListExpr>(strip(e)))
        return fail(e->getBeginLoc(), "nested initialiser lists are not supported; assign the elements");
      Expr* index = IntegerLiteral::Create(context_, llvm::APInt(32, i), context_.IntTy, SourceLocation());
      auto* target = new (context_) ArraySubscriptExpr(array, index, element, VK_LValue, OK_Ordinary, e->getBeginLoc());
      lower_assign(stmt, target, BO_Assign, e, block);
    }
  }

  // std::vector and std::array locals (docs/adjc.md, "std::vector and std::array"). A std::array
  // is a local array; a std::vector is declared at the function's level (not in a loop, so each
  // call sizes it once: `std::vector<T> v;`, `v(n)`, `v(n, c)` with c free of variables), grows only
  // by push_back, and its adjoint is sized from it when the reverse sweep starts.
  void lower_container_local(const VarDecl* vd, const Stmt* stmt, Node* block) {
    SourceLocation at = vd->getLocation();
    const std::string name = vd->getName().str();
    const Expr* init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
    auto* construct = dyn_cast_or_null<CXXConstructExpr>(init);
    std::vector<const Expr*> args;
    if (construct)
      for (const Expr* a : construct->arguments())
        if (!isa<CXXDefaultArgExpr>(a)) args.push_back(a);
    if (construct && construct->getConstructor()->isCopyOrMoveConstructor())
      return fail(at, "copying into '" + name + "' is not supported; declare it with its size and copy the "
                      "elements in a loop");
    if (!is_vector(vd->getType())) {
      if (construct && !args.empty()) return fail(at, "unsupported initialiser of std::array '" + name + "'");
      Var* v = make_var(name, vd->getType(), VarKind::Local, vd, at);
      v->block = block;
      auto* outer = dyn_cast_or_null<InitListExpr>(init);
      if (!outer) return;
      // `std::array<T, N> a = {x, y}`: braces around the one member array, elided or not.
      std::vector<const Expr*> given;
      if (outer->getNumInits() == 1)
        if (auto* inner = dyn_cast<InitListExpr>(outer->getInit(0)->IgnoreImplicit()))
          for (const Expr* e : inner->inits()) given.push_back(e);
      uint64_t count = loops_.empty() ? given.size() : array_size(vd->getType());
      if (count - given.size() > 64)
        return fail(outer->getBeginLoc(), "a partly initialised std::array of more than 64 elements inside a loop "
                                          "is not supported; zero it with a loop");
      for (unsigned i = 0; i < count; ++i) {
        const Expr* e = i < given.size() ? given[i] : nullptr;
        if (!e || isa<ImplicitValueInitExpr>(e)) e = zero_of(container_element(vd->getType()));
        lower_assign(stmt, container_subscript(context_, new_ref(vd), int_literal(i)), BO_Assign, e, block);
      }
      return;
    }
    if (!loops_.empty() || parallel_)
      return fail(at, "std::vector '" + name + "' declared inside a loop is not supported; declare it before the "
                      "loop and write its elements in the loop");
    if (init && !construct)
      return fail(at, "initialising std::vector '" + name + "' this way is not supported; declare it with '(n)' "
                      "or '(n, value)' and assign the elements");
    bool sized = args.size() >= 1 && args[0]->getType()->isIntegerType() && args.size() <= 2;
    if (construct && !args.empty() && !sized)
      return fail(at, "initialising std::vector '" + name + "' this way is not supported; declare it with '(n)' "
                      "or '(n, value)' and assign the elements");
    // The fill value carries no derivative: a constant (a variable's value would need its adjoint).
    if (args.size() == 2 && reads_variable(args[1]))
      return fail(args[1]->getBeginLoc(), "the fill value of std::vector '" + name + "' must be a constant; "
                                          "declare it with '(n)' and assign the value in a loop");
    Var* v = make_var(name, vd->getType(), VarKind::Local, vd, at);
    v->block = block;
    if (args.empty()) return;
    check_expression(ir_, custom_, diags_, args[0]);
    std::vector<Expr*> call_args;
    for (const Expr* a : args) call_args.push_back(const_cast<Expr*>(a));
    Node* n = make(NodeKind::Call, stmt);
    n->loc = at;
    n->call = cast<CallExpr>(container_call(context_, new_ref(vd), args.size() == 1 ? "resize" : "assign",
                                            call_args, true));
    add(block, n);
  }

  // Whether `e` reads a variable (or memory).
  static bool reads_variable(const Expr* e) {
    if (!e) return false;
    if (auto* ref = dyn_cast<DeclRefExpr>(e); ref && isa<VarDecl>(ref->getDecl())) return true;
    for (const Stmt* c : e->children())
      if (reads_variable(dyn_cast_or_null<Expr>(c))) return true;
    return false;
  }

  // `v.push_back(x)` on a local std::vector: `_pushed = x; _k = v.size(); v.resize(_k + 1);
  // v[_k] = _pushed;` (x evaluated before the size changes), so the new element is an assignment
  // like any other and its index a local the tape plan keeps.
  void lower_push_back(const CXXMemberCallExpr* call, const Stmt* stmt, Node* block) {
    const Expr* object = call->getImplicitObjectArgument();
    Var* v = ir_.var(object);
    if (!v || v->kind != VarKind::Local)
      return fail(call->getExprLoc(), "push_back on a std::vector that is not a local variable is not supported; "
                                      "size it before the call (resize) and assign its elements");
    SourceLocation at = call->getExprLoc();
    QualType element = container_element(object->getType());
    auto* pushed = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at,
                                   &context_.Idents.get("_pushed"), element,
                                   context_.getTrivialTypeSourceInfo(element, at), SC_None);
    pushed->setImplicit();
    Var* p = make_var("_pushed", element, VarKind::Local, pushed, at);
    p->block = block;
    size_t first = block->children.size();
    lower_assign(stmt, new_ref(pushed), BO_Assign, call->getArg(0), block);
    if (block->children.size() > first && block->children.back()->kind == NodeKind::Assign) {
      block->children.back()->definition = true;
      p->definition = block->children.back();
    }
    QualType size_type = context_.LongTy;
    auto* vd = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at, &context_.Idents.get("_k"),
                               size_type, context_.getTrivialTypeSourceInfo(size_type, at), SC_None);
    vd->setImplicit();
    Var* k = make_var("_k", size_type, VarKind::Local, vd, at);
    k->block = block;
    size_t before = block->children.size();
    lower_assign(stmt, new_ref(vd), BO_Assign, container_call(context_, object, "size", {}, false), block);
    if (block->children.size() > before && block->children.back()->kind == NodeKind::Assign) {
      block->children.back()->definition = true;
      k->definition = block->children.back();
    }
    Expr* next = BinaryOperator::Create(context_, const_cast<Expr*>(rvalue(vd)), const_cast<Expr*>(int_literal(1, size_type)),
                                        BO_Add, size_type, VK_PRValue, OK_Ordinary, at, FPOptionsOverride());
    Node* n = make(NodeKind::Call, stmt);
    n->loc = at;
    n->call = cast<CallExpr>(container_call(context_, object, "resize", {next}, true));
    add(block, n);
    lower_assign(stmt, container_subscript(context_, object, rvalue(vd)), BO_Assign, rvalue(pushed), block);
  }

  // `for (T x : c)` (or `const T& x`) over a std::vector or std::array: the counted loop
  // `for (long _i = 0; _i < (long)c.size(); ++_i) { T x = c[_i]; ... }`.
  void lower_range_for(const CXXForRangeStmt* rs, Node* block) {
    SourceLocation at = rs->getBeginLoc();
    const VarDecl* element = rs->getLoopVariable();
    QualType t = element->getType();
    if (t->isReferenceType() && !t->getPointeeType().isConstQualified())
      return fail(element->getLocation(), "a range-for writing the elements through '" + element->getName().str() +
                                              "' is not supported; index them: for (std::size_t i = 0; i < "
                                              "v.size(); ++i) v[i] = ...");
    if (t->isReferenceType() && writes_memory(rs->getBody()))
      return fail(element->getLocation(), "a range-for over a reference ('const T&') whose body writes memory is not "
                                              "supported; iterate by value: for (T x : v)");
    if (parallel_) return fail(at, "loops inside an OpenMP parallel loop must be canonical for loops");
    const Expr* range = rs->getRangeInit();
    QualType long_type = context_.LongTy;
    auto* counter = VarDecl::Create(context_, const_cast<FunctionDecl*>(ir_.fn), at, at, &context_.Idents.get("_i"),
                                    long_type, context_.getTrivialTypeSourceInfo(long_type, at), SC_None);
    counter->setImplicit();
    counter->setInit(const_cast<Expr*>(int_literal(0, long_type)));
    Expr* size = container_call(context_, range, "size", {}, false);
    Expr* end = CStyleCastExpr::Create(context_, long_type, VK_PRValue, CK_IntegralCast, size, nullptr,
                                       FPOptionsOverride(), context_.getTrivialTypeSourceInfo(long_type, at), at, at);
    Node* n = make(NodeKind::Loop, rs);
    n->form = LoopForm::For;
    n->id = next_id_++;
    Var* v = make_var("_i", long_type, VarKind::Local, counter, at);
    v->counter = true;
    n->counter = v;
    n->start = counter->getInit();
    n->step = 1;
    n->end = end;
    n->cond = BinaryOperator::Create(context_, const_cast<Expr*>(rvalue(counter)), end, BO_LT, context_.BoolTy,
                                     VK_PRValue, OK_Ordinary, at, FPOptionsOverride());
    check_expression(ir_, custom_, diags_, n->cond);
    loops_.push_back(n);
    n->body = make(NodeKind::Block, rs->getBody());
    Var* x = make_var(element->getName().str(), t.getNonReferenceType().getUnqualifiedType(), VarKind::Local, element,
                      element->getLocation());
    x->block = n->body;
    lower_assign(rs, new_ref(element), BO_Assign, container_subscript(context_, range, rvalue(counter)), n->body);
    if (!n->body->children.empty() && n->body->children.back()->kind == NodeKind::Assign) {
      n->body->children.back()->definition = true;
      x->definition = n->body->children.back();
    }
    if (auto* cs = dyn_cast<CompoundStmt>(rs->getBody())) lower_compound(cs, n->body);
    else lower_stmt(rs->getBody(), n->body);
    n->body->parent = n;
    loops_.pop_back();
    add(block, n);
    leave_after_return(n, block);
  }

  // Whether `s` assigns to anything but a local variable (memory: elements, members, through pointers).
  static bool writes_memory(const Stmt* s) {
    if (!s) return false;
    const Expr* target = nullptr;
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) target = b->getLHS();
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp()) target = u->getSubExpr();
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->isAssignmentOp()) target = op->getArg(0);
    if (target && !isa<DeclRefExpr>(target->IgnoreParenImpCasts())) return true;
    if (auto* call = dyn_cast<CallExpr>(s)) {  // a call may write through what it receives
      if (!call->getDirectCallee()) return true;
      for (const AdParam& p : ad_params(call->getDirectCallee()))
        if (is_written_param(p.type)) return true;
    }
    for (const Stmt* c : s->children())
      if (writes_memory(c)) return true;
    return false;
  }

  // `vd` read as a value.
  const Expr* rvalue(const VarDecl* vd) {
    return ImplicitCastExpr::Create(context_, vd->getType(), CK_LValueToRValue, const_cast<Expr*>(new_ref(vd)), nullptr,
                                    VK_PRValue, FPOptionsOverride());
  }

  // A DeclRefExpr naming `vd` (the left side of a declaration's initialisation).
  const Expr* new_ref(const VarDecl* vd) {
    return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd), false,
                               vd->getLocation(), vd->getType().getNonReferenceType(), VK_LValue);
  }

  void lower_expr_stmt(const Expr* e, Node* block) {
    const Stmt* stmt = e;
    e = strip(e);
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
      lower_expr_stmt(b->getLHS(), block);
      return lower_expr_stmt(b->getRHS(), block);
    }
    // `(void)x;`: a use that computes nothing.
    if (auto* c = dyn_cast<CStyleCastExpr>(e); c && c->getType()->isVoidType() && isa<DeclRefExpr>(strip(c->getSubExpr())))
      return;
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) {
      BinaryOperatorKind op = b->getOpcode();
      return lower_assign(stmt, b->getLHS(), op, b->getRHS(), block);
    }
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
      return lower_assign(stmt, u->getSubExpr(), u->isIncrementOp() ? BO_AddAssign : BO_SubAssign, nullptr, block);
    // `x = y` for a value class: its copy or move assignment.
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(e);
        op && op->getOperator() == OO_Equal && is_value_class(op->getType())) {
      auto* m = dyn_cast_or_null<CXXMethodDecl>(op->getDirectCallee());
      if (m && (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()))
        return lower_assign(stmt, op->getArg(0), BO_Assign, op->getArg(1), block);
    }
    if (const CXXMemberCallExpr* push = push_back_call(e)) return lower_push_back(push, stmt, block);
    if (auto* call = dyn_cast<CallExpr>(e)) {
      lower_branches(const_cast<CallExpr*>(call), block, stmt);
      check_expression(ir_, custom_, diags_, call);
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
        if (is_written_param(params[i].type) && (memory_root(ir_, args[i].expr) || ir_.var(args[i].expr)))
          return fail(call->getBeginLoc(),
                      no_derivative(callee) + "; it writes its argument " + std::to_string(i + 1));
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
        else if (!isa<TypedefNameDecl>(d) && !isa<StaticAssertDecl>(d))
          fail(d->getLocation(), "unsupported declaration");
      }
      return;
    }
    if (auto* e = dyn_cast<Expr>(s)) return lower_expr_stmt(e, block);
    if (auto* is = dyn_cast<IfStmt>(s)) {
      if (is->getInit() || is->getConditionVariable() || is->isConsteval())
        return fail(at, "if statements with initialisers or condition variables are not supported");
      check_expression(ir_, custom_, diags_, is->getCond());
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
    if (auto* rs = dyn_cast<CXXForRangeStmt>(s); rs && is_container(rs->getRangeInit()->getType()))
      return lower_range_for(rs, block);
    if (auto* ws = dyn_cast<WhileStmt>(s)) {
      if (ws->getConditionVariable()) return fail(at, "while conditions declaring variables are not supported");
      return lower_loop(s, LoopForm::While, ws->getCond(), ws->getBody(), nullptr, block);
    }
    if (auto* ds = dyn_cast<DoStmt>(s))
      return lower_loop(s, LoopForm::Do, ds->getCond(), ds->getBody(), nullptr, block);
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
      if (const Expr* value = rs->getRetValue()) {
        lower_return_value(s, value, block);
      }
      if (!loops_.empty()) return lower_return_in_loop(s, block);
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
    if (auto* sw = dyn_cast<SwitchStmt>(s)) return lower_switch(sw, block);
    if (isa<GotoStmt>(s) || isa<LabelStmt>(s)) return fail(at, "goto is not supported");
    fail(at, std::string("unsupported statement (") + s->getStmtClassName() + ")");
  }

  // `return` inside loops: sets `_returned` and breaks out of the innermost loop; after each
  // loop it leaves, `if (_returned)` breaks out of the next one, and after the outermost returns.
  // Only constructs the sweeps already handle (an integer local, breaks, branches).
  void lower_return_in_loop(const Stmt* s, Node* block) {
    Node* loop = loops_.back();
    lower_assign(s, new_ref(returned_flag()), BO_Assign, int_literal(1), block);
    add(block, jump(s, JumpKind::Break, loop));
    returns_from_.insert(loop);
  }

  // After loop `n` (added to `block`): leaves the enclosing loop, or the function, when a return
  // inside `n` ran.
  void leave_after_return(Node* n, Node* block) {
    if (!returns_from_.count(n)) return;
    Node* branch = make(NodeKind::If, n->stmt);
    branch->cond = new_ref(returned_flag());
    branch->then_node = make(NodeKind::Block, n->stmt);
    branch->then_node->parent = branch;
    if (loops_.empty()) {
      Node* r = jump(n->stmt, JumpKind::Return, nullptr);
      ir_.returns.push_back(r);
      add(branch->then_node, r);
    } else {
      add(branch->then_node, jump(n->stmt, JumpKind::Break, loops_.back()));
      returns_from_.insert(loops_.back());
    }
    add(block, branch);
  }

  Node* jump(const Stmt* s, JumpKind kind, Node* loop) {
    Node* n = make(NodeKind::Jump, s);
    n->jump = kind;
    n->target_loop = loop;
    n->id = next_id_++;
    if (loop) loop->jumps.push_back(n);
    return n;
  }

  // The integer local `_returned`, declared (zero) at function scope.
  const VarDecl* returned_flag() {
    if (returned_) return returned_;
    auto* fn = const_cast<FunctionDecl*>(ir_.fn);
    returned_ = VarDecl::Create(context_, fn, fn->getLocation(), fn->getLocation(), &context_.Idents.get("_returned"),
                                context_.IntTy, context_.getTrivialTypeSourceInfo(context_.IntTy), SC_None);
    Var* v = make_var("_returned", context_.IntTy, VarKind::Local, returned_, fn->getLocation());
    v->block = ir_.body;
    return returned_;
  }

  const Expr* int_literal(int value, QualType t = QualType()) {
    if (t.isNull()) t = context_.IntTy;
    return IntegerLiteral::Create(context_, llvm::APInt(context_.getIntWidth(t), value), t, SourceLocation());
  }

  // A case label's statements, up to the next label.
  struct CaseGroup {
    std::vector<const Expr*> values;  // empty with `is_default`
    bool is_default = false;
    std::vector<const Stmt*> body;
    SourceLocation loc;
  };

  // `switch` as an if/else chain on `cond == value`: each case (labels sharing statements are one
  // case) must end in break, return or continue, or be the last; `default` is the final else.
  void lower_switch(const SwitchStmt* sw, Node* block) {
    SourceLocation at = sw->getBeginLoc();
    if (sw->getInit() || sw->getConditionVariable())
      return fail(at, "switch statements with initialisers or condition variables are not supported");
    auto* body = dyn_cast<CompoundStmt>(sw->getBody());
    if (!body) return fail(at, "a switch body must be a braced block of cases");
    bool has_call = false;
    std::function<void(const Stmt*)> find_call = [&](const Stmt* e) {
      if (!e) return;
      has_call |= isa<CallExpr>(e) && !isa<CXXOperatorCallExpr>(e);
      for (const Stmt* c : e->children()) find_call(c);
    };
    find_call(sw->getCond());
    if (has_call)
      return fail(sw->getCond()->getBeginLoc(),
                  "a switch condition that calls a function is not supported; store its value in a local first");
    check_expression(ir_, custom_, diags_, sw->getCond());
    std::vector<CaseGroup> cases;
    for (const Stmt* c : body->body()) {
      const Stmt* sub = c;
      bool labelled = false;
      while (isa<clang::SwitchCase>(sub)) {
        if (!labelled && (cases.empty() || !cases.back().body.empty())) cases.push_back({});
        labelled = true;
        cases.back().loc = sub->getBeginLoc();
        if (auto* cs = dyn_cast<CaseStmt>(sub)) {
          if (cs->caseStmtIsGNURange()) return fail(cs->getBeginLoc(), "case ranges are not supported");
          cases.back().values.push_back(cs->getLHS());
          sub = cs->getSubStmt();
        } else {
          cases.back().is_default = true;
          sub = cast<DefaultStmt>(sub)->getSubStmt();
        }
      }
      if (cases.empty()) return fail(c->getBeginLoc(), "statements before the first case label are not supported");
      cases.back().body.push_back(sub);
    }
    for (size_t i = 0; i < cases.size(); ++i) {
      CaseGroup& k = cases[i];
      // `case 1: { ...; break; }`: the block's statements are the case's.
      while (!k.body.empty() && isa<CompoundStmt>(k.body.back()) && !cast<CompoundStmt>(k.body.back())->body_empty()) {
        auto* inner = cast<CompoundStmt>(k.body.back());
        k.body.pop_back();
        k.body.insert(k.body.end(), inner->body_begin(), inner->body_end());
      }
      const Stmt* last = k.body.empty() ? nullptr : k.body.back();
      bool ends = last && (isa<BreakStmt>(last) || isa<ReturnStmt>(last) || isa<ContinueStmt>(last));
      if (!ends && i + 1 < cases.size())
        return fail(k.loc, "a switch case that falls through into the next is not supported; end it with 'break'");
      if (last && isa<BreakStmt>(last)) k.body.pop_back();
      for (const Stmt* st : k.body)
        if (const Stmt* b = switch_break(st))
          return fail(b->getBeginLoc(),
                      "'break' out of a switch from inside a statement of its case is not supported; restructure "
                      "the case with if/else");
    }
    // The chain, built from its end: the default's statements are the last else.
    Node* chain = nullptr;
    const Expr* cond = new (context_) ParenExpr(at, at, const_cast<Expr*>(sw->getCond()));
    for (size_t i = cases.size(); i-- > 0;) {
      const CaseGroup& k = cases[i];
      if (k.is_default) continue;
      Node* n = make(NodeKind::If, sw);
      n->loc = k.loc;
      Expr* test = nullptr;
      for (const Expr* v : k.values) {
        Expr* eq = BinaryOperator::Create(context_, const_cast<Expr*>(cond), const_cast<Expr*>(v), BO_EQ,
                                          context_.BoolTy, VK_PRValue, OK_Ordinary, k.loc, FPOptionsOverride());
        test = test ? BinaryOperator::Create(context_, test, eq, BO_LOr, context_.BoolTy, VK_PRValue, OK_Ordinary, k.loc,
                                             FPOptionsOverride())
                    : eq;
      }
      n->cond = test;
      n->then_node = lower_statements(k.body, sw);
      n->then_node->parent = n;
      if (chain) {
        n->else_node = make(NodeKind::Block, sw);
        add(n->else_node, chain);
        n->else_node->parent = n;
      }
      chain = n;
    }
    for (const CaseGroup& k : cases)
      if (k.is_default) {
        Node* d = lower_statements(k.body, sw);
        if (!chain) {
          add(block, d);
          return;
        }
        // The default goes at the end of the chain.
        Node* last = chain;
        while (last->else_node) last = last->else_node->children.front();
        last->else_node = d;
        d->parent = last;
      }
    if (chain) add(block, chain);
  }

  Node* lower_statements(const std::vector<const Stmt*>& stmts, const Stmt* owner) {
    Node* b = make(NodeKind::Block, owner);
    for (const Stmt* st : stmts) lower_stmt(st, b);
    return b;
  }

  // A `break` in `s` that leaves the enclosing switch (not inside a loop or switch of its own).
  static const Stmt* switch_break(const Stmt* s) {
    if (!s) return nullptr;
    if (isa<BreakStmt>(s)) return s;
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s)) return nullptr;
    for (const Stmt* c : s->children())
      if (const Stmt* b = switch_break(c)) return b;
    return nullptr;
  }

  // The return value's assignment (`_ret = value`).
  void lower_return_value(const Stmt* stmt, const Expr* value, Node* block) {
    value = lower_branches(const_cast<Expr*>(value), block, stmt);
    check_expression(ir_, custom_, diags_, value);
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
    check_expression(ir_, custom_, diags_, counter->getInit());
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
        cond && (cond->getOpcode() == BO_LT || cond->getOpcode() == BO_LE) && step > 0)
      if (auto* lhs = dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()); lhs && lhs->getDecl() == counter)
        (cond->getOpcode() == BO_LT ? n->end : n->last) = cond->getRHS();
    check_expression(ir_, custom_, diags_, n->cond);
    loops_.push_back(n);
    n->body = lower_scope(fs->getBody());
    n->body->parent = n;
    loops_.pop_back();
    parallel_ = saved_parallel;
    add(block, n);
    leave_after_return(n, block);
  }

  void lower_loop(const Stmt* s, LoopForm form, const Expr* cond, const Stmt* body, const Expr* inc, Node* block) {
    if (parallel_) return fail(s->getBeginLoc(), "loops inside an OpenMP parallel loop must be canonical for loops");
    Node* n = make(NodeKind::Loop, s);
    n->form = form;
    n->cond = cond;
    n->id = next_id_++;
    check_expression(ir_, custom_, diags_, cond);
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
    leave_after_return(n, block);
  }
};

}  // namespace

std::unique_ptr<FunctionIR> lower(const FunctionDecl* fn, ASTContext& context, Diagnostics& diags,
                                  const CustomPullbacks& custom) {
  auto ir = std::make_unique<FunctionIR>();
  ir->fn = fn;
  if (!rewrite_containers(fn, context, diags)) ir->valid = false;
  Lowering(*ir, context, diags, custom).run();
  return ir;
}

}  // namespace adjc
