// What adjc can differentiate: the checks lowering runs on the function and on each expression it
// lowers, reporting anything else with its reason (passes.hpp).
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>

#include "containers.hpp"
#include "passes.hpp"
#include "closures.hpp"
#include "walk.hpp"

namespace adjc {

using namespace clang;

// Types as a C++ user writes them ('bool', not C's '_Bool').
static const PrintingPolicy& cpp_printing() {
  static const PrintingPolicy policy = [] {
    PrintingPolicy p{LangOptions{}};
    p.Bool = true;
    return p;
  }();
  return policy;
}

Message unsupported_construct(const Stmt* s) {
  std::string what;
  if (auto* c = dyn_cast<CXXConstructExpr>(s)) what = "constructing a '" + c->getType().getAsString(cpp_printing()) + "' here";
  else if (isa<CXXThrowExpr>(s)) what = "'throw'";
  else if (isa<CXXTryStmt>(s)) what = "try/catch";
  else if (isa<LambdaExpr>(s)) what = "a lambda here";
  else if (isa<StmtExpr>(s)) what = "a statement expression ('({ ... })')";
  else if (isa<CXXTypeidExpr>(s)) what = "typeid";
  else if (isa<CXXDynamicCastExpr>(s)) what = "dynamic_cast";
  else if (isa<AsmStmt>(s)) what = "inline assembly";
  else if (isa<CoroutineBodyStmt, CoreturnStmt, CoawaitExpr, CoyieldExpr>(s)) what = "a coroutine";
  else if (isa<VAArgExpr>(s)) what = "va_arg";
  else if (isa<InitListExpr>(s)) what = "a braced list here";
  else if (isa<CXXPseudoDestructorExpr>(s)) what = "a destructor call";
  else if (isa<AtomicExpr>(s)) what = "an atomic builtin";
  else what = std::string("this ") + (isa<Expr>(s) ? "expression" : "statement");
  return {Diag::unsupported_construct, {what, s->getStmtClassName()}};
}

namespace {

// A const global array of numbers (`const double kCoef[3] = {...}`, also two-dimensional): constant
// data, read by index like a literal, with no derivative.
bool is_constant_table(const ArraySubscriptExpr* sub) {
  const Expr* base = sub->getBase()->IgnoreParenImpCasts();
  while (auto* inner = dyn_cast<ArraySubscriptExpr>(base)) base = inner->getBase()->IgnoreParenImpCasts();
  auto* ref = dyn_cast<DeclRefExpr>(base);
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!vd || !vd->hasGlobalStorage() || !vd->getType()->isArrayType()) return false;
  QualType element = vd->getASTContext().getBaseElementType(vd->getType());
  return element.isConstQualified() && element->isArithmeticType();
}

// Where a dereferenced pointer adjc cannot follow comes from, in words.
std::string pointer_source(const Expr* pointer) {
  if (auto* call = dyn_cast<CallExpr>(pointer->IgnoreParenImpCasts()))
    if (const FunctionDecl* callee = call->getDirectCallee())
      return "reading through the pointer '" + callee->getNameAsString() + "' returns";
  return "reading through this pointer";
}

class ExpressionCheck {
 public:
  // `discarded`: a call evaluated as a statement of its own, whose result is not used.
  ExpressionCheck(FunctionIR& ir, Diagnostics& diags, const Expr* discarded = nullptr)
      : ir_(ir), diags_(diags), discarded_(discarded) {}

  // Reports reading through `pointer`, a local pointer (or split struct's pointer member) that is
  // null where declared and that no statement has given a target yet (Lowering::point_at).
  bool read_while_null(const Expr* pointer, SourceLocation at) {
    pointer = strip(pointer, ir_.unit);
    Var* v = ir_.var(pointer);
    if (!v || !v->pointer || v->memory || v->root) return false;
    fail(at, Diag::pointer_read_while_null, {written_name(v, pointer)});
    return true;
  }

  // Expressions adjc can print and differentiate; reports anything else.
  void check_expr(const Expr* e) {
    if (!e) return;
    e = strip(e, ir_.unit);
    SourceLocation at = e->getExprLoc();
    // Values of a value class change only through calls; anything else (`c ? a : b`, a
    // construction from raw data) would carry a derivative adjc cannot see.
    if (is_empty_value(e, ir_.unit)) return;
    if (is_value_class(e->getType(), ir_.unit) && !isa<DeclRefExpr>(e) && !isa<MemberExpr>(e) &&
        !isa<ArraySubscriptExpr>(e) && !isa<CallExpr>(e) && !is_empty_value(e, ir_.unit))
      return fail(at, Diag::unsupported_expression_value_class, {e->getType().getAsString(cpp_printing()), e->getStmtClassName()});
    if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e) || isa<CXXBoolLiteralExpr>(e) || isa<CharacterLiteral>(e) ||
        isa<CXXNullPtrLiteralExpr>(e) || isa<UnaryExprOrTypeTraitExpr>(e) || isa<StringLiteral>(e) ||
        isa<PredefinedExpr>(e) ||  // a message for printf or assert: `"x > 0"`, `__func__`
        sized_temporary(e, ir_.fn->getASTContext()))
      return;
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Extension) return check_expr(u->getSubExpr());
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl* d = ref->getDecl();
      if (isa<EnumConstantDecl>(d) || isa<FunctionDecl>(d)) return;
      auto* vd = dyn_cast<VarDecl>(d);
      if (vd && !ir_.var_of.count(vd) && !vd->hasGlobalStorage())
        fail(at, Diag::unsupported_variable, {vd->getName().str()});
      if (vd && vd->hasGlobalStorage() && !ir_.var_of.count(vd) && !ir_.copied_globals.count(vd) &&
          is_floating(vd->getType()) && !vd->getType().isConstQualified())
        fail(at, Diag::unsupported_non_const_global_variable, {vd->getName().str()});
      return;
    }
    if (auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->isAssignmentOp()) return fail(at, Diag::unsupported_assignments_inside_expressions);
      if (b->getOpcode() == BO_Comma) return fail(at, Diag::unsupported_comma_operator);
      check_expr(b->getLHS());
      check_expr(b->getRHS());
      return;
    }
    if (auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->isIncrementDecrementOp()) return fail(at, Diag::unsupported_increment_inside_expressions);
      if (u->getOpcode() == UO_AddrOf && !memory_root(ir_, u->getSubExpr()))
        return fail(at, Diag::unsupported_taking_address_scalar);
      // The derivative flows back only into memory adjc knows the root of.
      if (u->getOpcode() == UO_Deref && read_while_null(u->getSubExpr(), at)) return;
      if (u->getOpcode() == UO_Deref && !memory_root(ir_, u->getSubExpr()) &&
          !u->getSubExpr()->getType()->isFunctionPointerType()) {
        if (!isa<CallExpr>(u->getSubExpr()->IgnoreParenImpCasts())) {
          const bool valid = ir_.valid;
          check_expr(u->getSubExpr());
          if (valid && !ir_.valid) return;  // the pointer's own construct is reported
        }
        return fail(at, Diag::unsupported_pointer_outside_memory, {pointer_source(u->getSubExpr())});
      }
      if (u->getOpcode() == UO_Real || u->getOpcode() == UO_Imag || u->getOpcode() == UO_Extension)
        return fail(at, Diag::unsupported_operator_expression);
      return check_expr(u->getSubExpr());
    }
    if (auto* c = dyn_cast<ConditionalOperator>(e)) {
      check_expr(c->getCond());
      check_expr(c->getTrueExpr());
      check_expr(c->getFalseExpr());
      return;
    }
    if (const CallExpr* alloc = c_allocation(e))
      return fail(at, Diag::unsupported_allocation_here, {c_memory_function(alloc)});
    if (auto* cast = dyn_cast<ExplicitCastExpr>(e)) return check_cast(cast, at);
    if (isa<CXXThisExpr>(e)) return;
    if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return check_expr(d->getExpr());
    if (auto* call = dyn_cast<CallExpr>(e)) return check_call(call, at);
    if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) {
      if (read_while_null(sub->getBase(), at)) return;
      if (!memory_root(ir_, e) && !is_constant_table(sub))
        return fail(at, Diag::unsupported_indexing_memory_not_parameter_local);
      check_expr(sub->getBase());
      check_expr(sub->getIdx());
      return;
    }
    if (auto* m = dyn_cast<MemberExpr>(e)) {
      if (ir_.var(m)) return;
      if (!isa<FieldDecl>(m->getMemberDecl())) return fail(at, Diag::unsupported_member_kind);
      // A member of a call's struct result (`make(x).y`): the call is hoisted into a temporary.
      if (m->isArrow() && read_while_null(m->getBase(), at)) return;
      const Expr* base = strip(m->getBase(), ir_.unit);
      if (isa<CallExpr>(base) && !own_copy_operation(base->getType()).empty())
        return fail(at, own_copy_message(base->getType(), "calling a function that returns a value"));
      if (!memory_root(ir_, e) && !(isa<CallExpr>(base) && is_plain_struct(base->getType(), ir_.unit)))
        return fail(at, Diag::member_access_unsupported_object);
      return check_expr(m->getBase());
    }
    // A library value without derivative (`std::optional<int>(k)`, a default argument `std::nullopt`)
    // built from numbers or such values.
    if (auto* c = dyn_cast<CXXConstructExpr>(e); c && is_inert_library_class(c->getType(), ir_.unit)) {
      for (const Expr* a : c->arguments()) {
        if (!a->getType()->isArithmeticType() && !is_inert_library_class(a->getType(), ir_.unit))
          return fail(a->getExprLoc(), Diag::unsupported_constructing,
                      {c->getType().getAsString(cpp_printing()), a->getType().getAsString(cpp_printing())});
        check_expr(a);
      }
      return;
    }
    if (auto* c = dyn_cast<CXXConstructExpr>(e);
        c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      return fail(at, Diag::unsupported_copying_passing_value, {e->getType().getAsString(cpp_printing())});
    if (isa<CXXStdInitializerListExpr>(e)) return fail(at, Diag::unsupported_braced_list_initializer_list);
    if (isa<CXXNewExpr>(e)) return fail(at, Diag::unsupported_new);
    fail(at, unsupported_construct(e));
  }

  void check_call(const CallExpr* call, SourceLocation at) {
    const FunctionDecl* callee = call->getDirectCallee();
    if (!callee) return fail(at, Diag::unsupported_function_pointer_call);
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(call); op && op->isAssignmentOp()) {
      // `a += b` on a class: a call of its operator, which must return nothing or `*this`
      // (returns_self), as its value is not used.
      if (op->getOperator() == OO_Equal) return fail(at, Diag::unsupported_assignments_inside_expressions);
      if (!callee->getReturnType()->isVoidType() && !returns_self(callee))
        return fail(at, Diag::unsupported_operator_returning,
                    {callee->getNameAsString(), callee->getReturnType().getAsString(cpp_printing())});
    }
    // Memory it reaches through a pointer to a pointer has no adjoint adjc could give it.
    std::vector<AdParam> params = ad_params(callee);
    std::vector<AdArg> args = ad_args(call);
    for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
      const ParmVarDecl* p = params[i].decl;
      QualType t = params[i].type;
      if (!p) continue;
      const std::string param = "parameter '" + p->getNameAsString() + "' of '" + callee->getNameAsString() + "'";
      if (std::string hint = std_function_hint(t); !hint.empty() && !is_library(callee))
        return fail(args[i].expr->getExprLoc(), Diag::library_class_variable, {param, t.getAsString(cpp_printing()), hint});
      if (!reaches_differentiable(t) ||
          args[i].expr->isNullPointerConstant(callee->getASTContext(), Expr::NPC_ValueDependentIsNotNull))
        continue;
      const std::string by_value = t->isReferenceType() ? t.getNonReferenceType().getUnqualifiedType().getAsString(cpp_printing())
                                                        : t->getPointeeType().getAsString(cpp_printing());
      // A pointer by reference is differentiated as the pointer by value unless the callee changes it.
      if (pointer_reference(t) && callee->getDefinition())
        return fail(args[i].expr->getExprLoc(), Diag::pointer_reference_reassigned,
                    {param, t.getAsString(cpp_printing()), callee->getNameAsString(), by_value});
      return fail(args[i].expr->getExprLoc(), Diag::pointer_to_pointer_argument, {param, t.getAsString(cpp_printing()), by_value});
    }
    if (returns_self(callee) && call != discarded_)
      return fail(at, Diag::self_reference_result_used, {callee->getNameAsString()});
    if (auto* m = dyn_cast<CXXMethodDecl>(callee)) {
      if (m->isVirtual() && !m->hasAttr<FinalAttr>() && !m->getParent()->hasAttr<FinalAttr>())
        return fail(at, Diag::unsupported_virtual_calls);
      if (m->getAccess() != AS_public && callee_kind(callee, ir_.unit) == CalleeKind::Custom)
        return fail(at, Diag::custom_pullback_member_not_public,
                    {m->getNameAsString(), m->getParent()->getNameAsString()});
    }
    // A pullback of its name the call cannot take would be passed over for the body, which the
    // user may have given one because it is not differentiable.
    if (callee_kind(callee, ir_.unit) == CalleeKind::User)
      if (std::optional<Message> mismatch = custom_pullback_mismatch(callee, ir_.unit)) return fail(at, *mismatch);
    if (callee_kind(callee, ir_.unit) != CalleeKind::Plain && base_name(callee, ir_.unit).empty())
      return fail(at, Diag::unsupported_overloaded_operator, {callee->getNameAsString()});
    for (AdArg a : ad_args(call)) {
      if (a.address && !isa<CXXThisExpr>(strip(a.expr, ir_.unit)) && !memory_root(ir_, a.expr) && !ir_.var(a.expr) &&
          !isa<CallExpr>(strip(a.expr, ir_.unit)) && !sized_temporary(a.expr, ir_.fn->getASTContext()) &&
          !stateless_object(a.expr))
        return fail(a.expr->getBeginLoc(), Diag::member_call_unsupported_object);
      check_expr(a.expr);
    }
  }

  // An object of a class without data (`Sq`, whose operator() only uses its arguments) through
  // any pointer: its member functions read nothing of it, so where it is does not matter.
  static bool stateless_object(const Expr* e) {
    QualType t = e->getType().getNonReferenceType();
    if (t->isPointerType()) t = t->getPointeeType();
    auto* record = t->getAsCXXRecordDecl();
    return record && record->hasDefinition() && record->isEmpty() && !record->isPolymorphic();
  }

  void check_cast(const ExplicitCastExpr* cast, SourceLocation at) {
    QualType to = cast->getType(), from = cast->getSubExpr()->getType();
    // An integer as the address of an object without data (`reinterpret_cast<const Sq*>(0x40)`).
    if ((isa<CXXReinterpretCastExpr>(cast) || isa<CStyleCastExpr>(cast)) && from->isIntegerType() &&
        to->isPointerType() && stateless_object(cast))
      return check_expr(cast->getSubExpr());
    // An address as an integer (`reinterpret_cast<std::uintptr_t>(p) % 64`): no derivative.
    if ((isa<CXXReinterpretCastExpr>(cast) || isa<CStyleCastExpr>(cast)) && from->isPointerType() &&
        to->isIntegerType())
      return check_expr(cast->getSubExpr());
    if (!isa<CStyleCastExpr>(cast) && !isa<CXXStaticCastExpr>(cast) && !isa<CXXFunctionalCastExpr>(cast))
      return fail(at, Diag::unsupported_cast, {cast->getStmtClassName()});
    if (!own_copy_operation(to).empty()) return fail(at, own_copy_message(to, "a temporary"));
    if (!to->isArithmeticType() || !from->isArithmeticType())
      return fail(at, Diag::unsupported_casts_other_between_arithmetic_types);
    return check_expr(cast->getSubExpr());
  }

 private:
  FunctionIR& ir_;
  Diagnostics& diags_;
  const Expr* discarded_;

  void fail(SourceLocation where, const Message& m) { fail(where, m.id, m.args); }
  void fail(SourceLocation where, Diag id, std::vector<std::string> args = {}) {
    diags_.error(where, id, std::move(args));
    ir_.valid = false;
  }
};

}  // namespace

namespace {

// The copies and moves of structs of the user's that `fn` runs (a copy or move constructor in the
// AST: what C++17 elides has none), which generated code makes member by member: reports a
// constructor that does more than copy members, and a move that resets its source where the
// source may be read afterwards.
class StructCopies {
 public:
  StructCopies(const FunctionDecl* fn, const UnitFacts& unit, Diagnostics& diags, bool& valid)
      : fn_(fn), unit_(unit), diags_(diags), valid_(valid) {}

  void check(const Stmt* s) {
    if (!s) return;
    bool loop = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s);
    if (loop) loops_.push_back(s);
    if (auto* c = dyn_cast<CXXConstructExpr>(s)) check_construct(c);
    if (auto* lambda = dyn_cast<LambdaExpr>(s)) {
      // Its captures are copied here; its body is a function of its own (checked when lowered).
      for (const Expr* init : lambda->capture_inits()) check(init);
    } else {
      for (const Stmt* c : s->children()) check(c);
    }
    if (loop) loops_.pop_back();
  }

 private:
  const FunctionDecl* fn_;
  const UnitFacts& unit_;
  Diagnostics& diags_;
  bool& valid_;
  std::vector<const Stmt*> loops_;  // enclosing the statement being checked

  void fail(SourceLocation at, const Message& m) { fail(at, m.id, m.args); }
  void fail(SourceLocation at, Diag id, std::vector<std::string> args = {}) {
    diags_.error(at, id, std::move(args));
    valid_ = false;
  }

  std::string line_of(const Decl* d) const {
    return std::to_string(d->getASTContext().getSourceManager().getPresumedLineNumber(d->getLocation()));
  }

  void check_construct(const CXXConstructExpr* c) {
    const CXXConstructorDecl* ctor = c->getConstructor();
    const CXXRecordDecl* record = ctor->getParent();
    QualType t = c->getType();
    if (c->getNumArgs() != 1 || !ctor->isCopyOrMoveConstructor() || record->isLambda() ||
        is_value_class(t, unit_) || is_container(t) || is_number_pair(t) || is_library_class(t, unit_))
      return;
    StructCopy copy = constructor_copy(ctor);
    const std::string name = "struct '" + record->getQualifiedNameAsString() + "'";
    const std::string what = std::string(ctor->isMoveConstructor() ? "move" : "copy") + " constructor";
    const Expr* arg = c->getArg(0);
    // `return t;` of a local (the compiler may also construct the result in t's place): t is not
    // read again.
    bool implicit_move = isa<DeclRefExpr>(arg->IgnoreParenImpCasts()) && arg->isXValue() && isa<ImplicitCastExpr>(arg);
    // (`return t;` of such a struct is reported too: results of it are not supported, make_var.)
    if (copy == StructCopy::Other) {
      std::string where = ctor->isUserProvided() ? " (line " + line_of(ctor) + ")" : " (its members')";
      return fail(c->getExprLoc(), Diag::copy_runs_own_constructor, {name, what, where, record->getNameAsString()});
    }
    if (copy != StructCopy::MembersResettingSource || !ctor->isMoveConstructor() || implicit_move) return;
    // A move that resets its source: generated code copies and leaves the source as it was, which
    // is the same only where nothing reads the source again.
    const Expr* source = arg->IgnoreParenImpCasts();
    if (isa<MaterializeTemporaryExpr>(source) || arg->isPRValue()) return;
    if (std::string why = read_again(source, c); !why.empty())
      fail(c->getExprLoc(), Diag::move_resets_source_read_later, {name, line_of(ctor), why});
  }

  // Why the source of a move at `at` may be read after it (empty when it is not: a local or a
  // parameter by value, moved outside any loop that it outlives, with no use after the move and
  // none in a lambda).
  std::string read_again(const Expr* source, const Expr* at) const {
    source = moved_operand(source);
    auto* ref = dyn_cast<DeclRefExpr>(source);
    auto* v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!v) return "what it moves from here is not a variable of this function";
    const std::string name = "'" + v->getNameAsString() + "'";
    if (!v->isLocalVarDecl() && !isa<ParmVarDecl>(v)) return name + " is not a variable of this function";
    if (v->getType()->isReferenceType()) return name + " is a reference, whose object may be read afterwards";
    const SourceManager& sm = v->getASTContext().getSourceManager();
    for (const Stmt* loop : loops_)
      if (!sm.isBeforeInTranslationUnit(loop->getBeginLoc(), v->getLocation()))
        return name + " is moved inside a loop and outlives an iteration";
    std::string use;
    std::function<void(const Stmt*, bool)> find = [&](const Stmt* s, bool in_lambda) {
      if (!s || !use.empty()) return;
      if (auto* r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == v && r != ref &&
                                              (in_lambda || sm.isBeforeInTranslationUnit(at->getEndLoc(), r->getLocation())))
        use = name + " is " + (in_lambda ? "used in a lambda" : "read afterwards") + " (line " +
              std::to_string(sm.getPresumedLineNumber(r->getLocation())) + ")";
      for (const Stmt* c : s->children()) find(c, in_lambda || isa<LambdaExpr>(s));
    };
    find(fn_->getBody(), false);
    return use;
  }
};

// Whether a body reads a C-variadic function's `...` (va_start, va_arg, va_copy).
bool reads_variadic_arguments(const Stmt* body) {
  bool reads = false;
  walk_statements(body, [&](const Stmt* s) {
    auto* call = dyn_cast<CallExpr>(s);
    unsigned builtin = call ? call->getBuiltinCallee() : 0;
    reads = reads || isa<VAArgExpr>(s) || builtin == Builtin::BI__builtin_va_start ||
            builtin == Builtin::BI__builtin_va_copy;
    return !reads;
  });
  return reads;
}

}  // namespace

void check_function(FunctionIR& ir, ASTContext& context, Diagnostics& diags) {
  const FunctionDecl* fn = ir.fn;
  auto fail = [&](SourceLocation where, Diag id, std::vector<std::string> args = {}) {
    diags.error(where, id, std::move(args));
    ir.valid = false;
  };
  if (auto* m = dyn_cast<CXXMethodDecl>(fn)) {
    if (isa<CXXConstructorDecl>(m) || isa<CXXDestructorDecl>(m) || isa<CXXConversionDecl>(m))
      fail(fn->getLocation(), Diag::differentiate_special_member);
    if (is_value_class(context.getRecordType(m->getParent()), ir.unit))
      fail(fn->getLocation(), Diag::value_class_member_needs_custom_pullback,
           {m->getNameAsString(), m->getParent()->getNameAsString(), base_name(m, ir.unit)});
  }
  if (base_name(fn, ir.unit).empty()) fail(fn->getLocation(), Diag::differentiate_operator, {fn->getNameAsString()});
  // A template is differentiated per specialization (its instantiated body); the pattern itself
  // has no types to differentiate.
  if (fn->isTemplated()) fail(fn->getLocation(), Diag::differentiate_template);
  // A C-variadic function whose body never reads its `...` is its named parameters; its derivatives
  // take those (a call passing it more arguments is an error below).
  if (fn->isVariadic() && reads_variadic_arguments(fn->getBody()))
    fail(fn->getLocation(), Diag::differentiate_variadic_function, {fn->getNameAsString()});
  // Its forward would return a reference to the forward's own copy of the result. A reference to
  // a number is differentiated as the value (result_type), which every call must read.
  if (result_type(fn)->isReferenceType())
    fail(fn->getLocation(), Diag::differentiate_reference_result,
         {fn->getNameAsString(), fn->getReturnType().getAsString(cpp_printing())});
  walk_statements(fn->getBody(), nullptr, [&](const Stmt* s, const Stmt* parent) {
    if (isa<LambdaExpr>(s)) return false;
    if (auto* call = dyn_cast<CallExpr>(s)) {
      const FunctionDecl* callee = call->getDirectCallee();
      // Its derivatives take its named parameters only (one that reads its `...` is reported itself).
      if (callee && callee->isVariadic() && callee_kind(callee, ir.unit) == CalleeKind::User &&
          call->getNumArgs() > callee->getNumParams() + isa<CXXOperatorCallExpr>(call) && callee->getDefinition() &&
          !reads_variadic_arguments(callee->getDefinition()->getBody()))
        fail(call->getBeginLoc(), Diag::variadic_call_extra_arguments, {callee->getNameAsString()});
      auto* read = dyn_cast_or_null<ImplicitCastExpr>(parent);
      QualType rt = callee ? callee->getReturnType() : QualType();
      bool number_reference = callee && rt->isReferenceType() && rt.getNonReferenceType()->isArithmeticType();
      const bool discarded = isa_and_nonnull<CompoundStmt>(parent);
      if (number_reference && callee_kind(callee, ir.unit) != CalleeKind::Plain && !discarded &&
          !(read && read->getCastKind() == CK_LValueToRValue))
        fail(call->getBeginLoc(), Diag::reference_result_used_as_place,
             {(as_closure_function(callee, ir.unit) ? "the lambda" : "'" + callee->getNameAsString() + "'")});
    }
    return true;
  });
  StructCopies(fn, ir.unit, diags, ir.valid).check(fn->getBody());
}

void check_expression(FunctionIR& ir, Diagnostics& diags, const Expr* e) { ExpressionCheck(ir, diags).check_expr(e); }

void check_statement_call(FunctionIR& ir, Diagnostics& diags, const CallExpr* call) {
  ExpressionCheck(ir, diags, call).check_expr(call);
}

}  // namespace adjc
