// Lambdas with captures as free functions of their captures and parameters (closures.hpp).
#include "closures.hpp"

#include <clang/AST/StmtOpenMP.h>
#include <clang/Lex/Lexer.h>

#include <functional>
#include <map>
#include <set>

#include "ast_rewrite.hpp"
#include "classify.hpp"

namespace adjc {

using namespace clang;

namespace {

// The type of the parameter that stands for the capture of `var` in the lambda's function; null,
// with `why`, when adjc cannot pass it.
QualType capture_parameter_type(const LambdaCapture& capture, const VarDecl* var, const CXXMethodDecl* op,
                                const UnitFacts& unit, ASTContext& context, Message& why) {
  const std::string name = var->getName().str();
  bool by_copy = capture.getCaptureKind() == LCK_ByCopy;
  // An init-capture by reference (`&r = x`) stands for the variable it names (closure_referent).
  QualType vt = !by_copy && var->isInitCapture() ? var->getType().getNonReferenceType() : var->getType();
  bool modified = may_modify(op->getBody(), var);
  if (vt->isReferenceType() && !by_copy) return vt;
  if (!by_copy) {
    if (modified || vt->isArrayType())
      // A captured floating parameter it writes becomes a local copy in the caller (copy_addressed_params).
      return context.getLValueReferenceType(modified ? vt : vt.withConst());
    // Read only: its value at the call (a scalar or pointer), or a const reference.
    return vt->isArithmeticType() || vt->isPointerType() ? vt.getUnqualifiedType()
                                                         : context.getLValueReferenceType(vt.withConst());
  }
  QualType pt = vt.getNonReferenceType().getUnqualifiedType();
  Qualifiers elements;  // the copy of `const double a[2][3]` is not const
  if (pt->isArrayType()) pt = context.getUnqualifiedArrayType(pt, elements);
  // Arrays and structs of numbers: the lambda's copy, passed by reference.
  bool aggregate =
      is_plain_struct(pt, unit) || (pt->isConstantArrayType() && context.getBaseElementType(pt)->isArithmeticType());
  if (!pt->isArithmeticType() && !pt->isPointerType() && !aggregate) {
    why = {Diag::unsupported_capture_by_copy, {name, pt.getAsString(), name}};
    return QualType();
  }
  // A mutable lambda's copy lives as long as the lambda: its function updates it by reference.
  if (!op->isConst() && modified) {
    if (!pt->isPointerType()) return context.getLValueReferenceType(pt);
    why = {Diag::unsupported_mutable_lambda_moves_pointer, {name}};
    return QualType();
  }
  return aggregate ? context.getLValueReferenceType(pt.withConst()) : pt;
}

// The body's uses of the captured variables become uses of the parameters. So do the capture
// initialisers of lambdas declared in the body (whose own bodies are theirs).
void retarget(Stmt* s, const std::vector<ClosureCapture>& captures) {
  if (!s) return;
  if (auto* inner = dyn_cast<LambdaExpr>(s)) {
    for (Expr* init : inner->capture_inits()) retarget(init, captures);
    return;
  }
  if (auto* ref = dyn_cast<DeclRefExpr>(s))
    for (const ClosureCapture& k : captures)
      if (ref->getDecl() == k.var && !k.lambda) ref->setDecl(const_cast<ParmVarDecl*>(k.param));
  for (Stmt* child : s->children()) retarget(child, captures);
}

// The parameters standing for the captures of lambda `var` that the lambda of `c` captures (its
// `index`th capture, in `field`): they pass what a call of `var` would pass. A copy of a lambda that
// changes its own copies would start from them as they are, which its calls do not model.
bool forward_captures(const LambdaCapture& capture, const VarDecl* var, const FieldDecl* field, unsigned index,
                      FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, ClosureFunction& c) {
  const ClosureFunction& captured = closure_function(capturing_lambda(var->getType()), unit, context);
  auto fail = [&](SourceLocation at, const Message& why) {
    c.where = at;
    c.why = why;
    return false;
  };
  if (!captured.fn) return fail(captured.where, captured.why);
  for (const ClosureCapture& k : captured.captures)
    if (capture.getCaptureKind() == LCK_ByCopy && k.by_copy && k.param->getType()->isReferenceType() &&
        !k.param->getType().getNonReferenceType().isConstQualified())
      return fail(capture.getLocation(),
                  {Diag::unsupported_capture_of_capturing_lambda, {var->getName().str(), var->getName().str()}});
  for (const ClosureCapture& k : captured.captures) {
    QualType pt = k.param->getType();
    SourceLocation at = var->getLocation();
    auto* param = ParmVarDecl::Create(context, fn, at, at,
                                      &context.Idents.get(var->getName().str() + "_" + k.param->getName().str()), pt,
                                      context.getTrivialTypeSourceInfo(pt, at), SC_None, nullptr);
    c.captures.push_back({k.var, field, false, param, capture.getLocation(), index, var});
  }
  return true;
}

ClosureFunction build(const CXXRecordDecl* closure, const UnitFacts& unit, ASTContext& context) {
  ClosureFunction c;
  CXXMethodDecl* op = closure->getLambdaCallOperator();
  c.where = closure->getLocation();
  auto fail = [&](SourceLocation at, Diag id, std::vector<std::string> args = {}) {
    c.where = at;
    c.why = {id, std::move(args)};
    return c;
  };
  if (!op || closure->isGenericLambda() || !op->hasBody())
    return fail(c.where, Diag::unsupported_generic_lambda_captures);
  auto* fn =
      FunctionDecl::Create(context, const_cast<DeclContext*>(closure->getDeclContext()), op->getBeginLoc(),
                           op->getLocation(), &context.Idents.get(base_name(op, unit)), QualType(), nullptr, SC_None);
  auto field = closure->field_begin();
  unsigned index = 0;
  for (const LambdaCapture& capture : closure->captures()) {
    SourceLocation at = capture.getLocation();
    ++index;
    if (capture.capturesThis()) return fail(at, Diag::unsupported_lambda_capturing_this);
    if (auto* binding = capture.capturesVariable() ? dyn_cast<BindingDecl>(capture.getCapturedVar()) : nullptr)
      return fail(at, Diag::unsupported_lambda_capturing_structured_binding,
                  {binding->getName().str(), binding->getName().str()});
    auto* var = capture.capturesVariable() ? dyn_cast<VarDecl>(capture.getCapturedVar()) : nullptr;
    if (!var) return fail(at, Diag::unsupported_capture_kind);
    if (auto* inner = var->getType().getNonReferenceType()->getAsCXXRecordDecl(); inner && inner->isLambda()) {
      // A lambda without captures has no state: its calls need no argument.
      if (inner->capture_size() != 0 && !forward_captures(capture, var, *field, index - 1, fn, unit, context, c))
        return c;
      ++field;
      continue;
    }
    Message why{};
    QualType pt = capture_parameter_type(capture, var, op, unit, context, why);
    if (pt.isNull()) return fail(at, why.id, why.args);
    auto* param = ParmVarDecl::Create(context, fn, var->getLocation(), var->getLocation(), var->getIdentifier(), pt,
                                      context.getTrivialTypeSourceInfo(pt, var->getLocation()), SC_None, nullptr);
    c.captures.push_back({var, *field++, capture.getCaptureKind() == LCK_ByCopy, param, at, index - 1});
  }
  std::vector<ParmVarDecl*> params;
  std::vector<QualType> types;
  for (const ClosureCapture& k : c.captures) {
    params.push_back(const_cast<ParmVarDecl*>(k.param));
    types.push_back(k.param->getType());
  }
  for (ParmVarDecl* p : op->parameters()) {
    params.push_back(p);
    types.push_back(p->getType());
  }
  fn->setType(
      context.getFunctionType(op->getReturnType().getCanonicalType(), types, FunctionProtoType::ExtProtoInfo()));
  fn->setParams(params);
  retarget(op->getBody(), c.captures);
  fn->setBody(op->getBody());
  c.fn = fn;
  return c;
}

// The lambda `e` is (parens, braces, temporaries and copies looked through), or nullptr.
const LambdaExpr* lambda_of(const Expr* e) {
  while (e) {
    e = e->IgnoreParenImpCasts();
    if (auto* w = dyn_cast<ExprWithCleanups>(e)) e = w->getSubExpr();
    else if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (auto* l = dyn_cast<InitListExpr>(e); l && l->getNumInits() == 1) e = l->getInit(0);
    else return dyn_cast<LambdaExpr>(e);
  }
  return nullptr;
}

// The local variable holding the lambda `object` names, through local references to it
// (`auto& h = g;`), or nullptr.
const VarDecl* holder(const Expr* object) {
  auto* ref = object ? dyn_cast<DeclRefExpr>(object->IgnoreParenImpCasts()) : nullptr;
  auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!vd || !vd->isLocalVarDecl()) return nullptr;
  return vd->getType()->isReferenceType() ? holder(vd->getInit()) : vd;
}

// What a capture by copy of an array or struct copies (`a` in `[a]`), from its initialiser.
const Expr* copied(const Expr* init) {
  if (auto* loop = dyn_cast<ArrayInitLoopExpr>(init)) return loop->getCommonExpr()->getSourceExpr();
  if (auto* copy = dyn_cast<CXXConstructExpr>(init); copy && copy->getNumArgs() == 1) return copy->getArg(0);
  return init;
}

class ClosureCalls : public AstRewrite {
 public:
  ClosureCalls(const UnitFacts& unit, ASTContext& context, Diagnostics& diags, const ClosureFunction* self)
      : AstRewrite(unit, context, diags), self_(self) {}

  Stmt* visit(Stmt* s) {
    if (!s || isa<LambdaExpr>(s)) return s;  // a lambda's body is lowered as a function of its own
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->getOperator() == OO_Call)
      if (const CXXRecordDecl* closure = capturing_lambda(op->getArg(0)->getType()))
        return call(op, op->getArg(0), {op->getArgs() + 1, op->getNumArgs() - 1}, closure);
    // `g.operator()(x)`
    if (auto* member = dyn_cast<CXXMemberCallExpr>(s))
      if (const CXXRecordDecl* closure = capturing_lambda(member->getImplicitObjectArgument()->getType()))
        return call(member, member->getImplicitObjectArgument(), {member->getArgs(), member->getNumArgs()}, closure);
    if (auto* ref = dyn_cast<DeclRefExpr>(s); ref && capturing_lambda(ref->getType())) {
      fail(ref->getLocation(), Diag::unsupported_capturing_lambda_use, {ref->getDecl()->getNameAsString()});
      return s;
    }
    if (auto* ds = dyn_cast<DeclStmt>(s)) {
      std::vector<Decl*> decls;
      for (Decl* d : ds->decls()) {
        auto* vd = dyn_cast<VarDecl>(d);
        if (vd && vd->getInit() && capturing_lambda(vd->getType()) && holder(vd->getInit())) {
          decls.push_back(d);  // a reference to a lambda held in a local: its calls are the lambda's
          continue;
        }
        if (vd && vd->getInit() && capturing_lambda(vd->getType()) && lambda_of(vd->getInit())) {
          copy_structs(vd, decls);  // the rest is lowered by lower_decl
          decls.push_back(d);
          continue;
        }
        if (vd && vd->getInit()) vd->setInit(cast<Expr>(visit(vd->getInit())));
        decls.push_back(d);
      }
      if (decls.size() != size_t(std::distance(ds->decl_begin(), ds->decl_end())))
        ds->setDeclGroup(DeclGroupRef::Create(context_, decls.data(), decls.size()));
      return s;
    }
    if (visit_region(s, [&](Stmt* held) { visit(held); })) return s;
    for (Stmt*& c : s->children()) c = visit(c);
    return s;
  }

 private:
  const ClosureFunction* self_ = nullptr;  // when the function rewritten is a lambda's
  std::set<const CXXRecordDecl*> reported_;
  // The locals holding a lambda's copies of structs (`g_w` for `auto g = [w] ...`), by the
  // lambda's variable and the capture's index: declared with the lambda, passed by reference.
  std::map<std::pair<const VarDecl*, unsigned>, VarDecl*> struct_copies_;

  Expr* value(Expr* e, QualType t) {
    return ImplicitCastExpr::Create(context_, t.getNonReferenceType().getUnqualifiedType(), CK_LValueToRValue, e,
                                    nullptr, VK_PRValue, FPOptionsOverride());
  }

  DeclRefExpr* ref(const VarDecl* vd, SourceLocation at) {
    return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), const_cast<VarDecl*>(vd), false,
                               at, vd->getType().getNonReferenceType(), VK_LValue);
  }

  // The struct copies of lambda `vd` as locals declared ahead of it in `decls`, each initialised
  // as the lambda initialises its member.
  void copy_structs(VarDecl* vd, std::vector<Decl*>& decls) {
    const ClosureFunction& c = closure_function(vd->getType()->getAsCXXRecordDecl(), unit_, context_);
    for (const ClosureCapture& k : c.captures) {
      QualType t = k.field->getType();
      if (!k.by_copy || !t->isRecordType()) continue;
      auto* copy = VarDecl::Create(context_, vd->getDeclContext(), vd->getLocation(), vd->getLocation(),
                                   &context_.Idents.get(vd->getName().str() + "_" + k.var->getName().str()), t,
                                   context_.getTrivialTypeSourceInfo(t, vd->getLocation()), SC_None);
      copy->setImplicit();
      copy->setInit(const_cast<Expr*>(lambda_of(vd->getInit())->capture_init_begin()[k.index]));
      struct_copies_[{vd, k.index}] = copy;
      decls.push_back(copy);
    }
  }

  // The arguments a call of the lambda of `c` passes for its captures: `vd` holds the lambda, or
  // `written` is it, called where it is written. False when one cannot be passed (reported).
  bool capture_arguments(const ClosureFunction& c, const VarDecl* vd, const LambdaExpr* written, SourceLocation at,
                         std::vector<Expr*>& args) {
    const LambdaExpr* named = vd ? lambda_of(vd->getInit()) : nullptr;
    for (size_t i = 0; i < c.captures.size(); ++i) {
      const ClosureCapture& k = c.captures[i];
      QualType pt = k.param->getType();
      const Expr* init = (named ? named : written)->capture_init_begin()[k.index];
      if (k.lambda) {
        // A captured lambda's captures, as a call of it here passes them (all of them at its first).
        if (i == 0 || c.captures[i - 1].index != k.index)
          if (!lambda_arguments(copied(init), at, args)) return false;
      } else if (k.by_copy && named) {
        Expr* member = nullptr;
        if (auto it = struct_copies_.find({vd, k.index}); it != struct_copies_.end()) member = ref(it->second, at);
        else
          member = MemberExpr::CreateImplicit(context_, ref(vd, at), false, const_cast<FieldDecl*>(k.field),
                                              k.field->getType(), VK_LValue, OK_Ordinary);
        args.push_back(pt->isReferenceType() ? member : value(member, pt));
      } else if (k.by_copy && !pt.getNonReferenceType().isConstQualified() && pt->isReferenceType()) {
        fail(at, Diag::unsupported_mutable_lambda_called_in_place, {k.var->getName().str()});
        return false;
      } else if (k.by_copy) {
        // Called where it is written: what it copies, as it is now (an array or struct by reference).
        args.push_back(cast<Expr>(visit(const_cast<Expr*>(pt->isReferenceType() ? copied(init) : init))));
      } else if (const VarDecl* var = closure_referent(init)) {
        args.push_back(pt->isReferenceType() ? static_cast<Expr*>(ref(var, at)) : value(ref(var, at), pt));
      } else {
        fail(k.at, Diag::unsupported_init_capture_reference, {k.var->getName().str()});
        return false;
      }
    }
    return true;
  }

  // The captures of the lambda `object` names, for a call of it or of a lambda capturing it: the
  // parameters standing for them when this function is a lambda's that captured it.
  bool lambda_arguments(const Expr* object, SourceLocation at, std::vector<Expr*>& args) {
    auto* named = object ? dyn_cast<DeclRefExpr>(object->IgnoreParenImpCasts()) : nullptr;
    bool forwarded = false;
    for (size_t i = 0; named && self_ && i < self_->captures.size(); ++i)
      if (const ClosureCapture& k = self_->captures[i]; k.lambda == named->getDecl()) {
        args.push_back(k.param->getType()->isReferenceType() ? static_cast<Expr*>(ref(k.param, at))
                                                             : value(ref(k.param, at), k.param->getType()));
        forwarded = true;
      }
    if (forwarded) return true;
    const VarDecl* vd = holder(object);
    const LambdaExpr* written = vd ? nullptr : lambda_of(object);
    if (!(vd && lambda_of(vd->getInit())) && !written) {
      fail(at, Diag::unsupported_capturing_lambda_call_path);
      return false;
    }
    const ClosureFunction& c = closure_function(capturing_lambda(object->getType()), unit_, context_);
    return c.fn && capture_arguments(c, vd, written, at, args);
  }

  Stmt* call(Expr* call, Expr* object, ArrayRef<Expr*> call_args, const CXXRecordDecl* closure) {
    const ClosureFunction& c = closure_function(closure, unit_, context_);
    if (!c.fn) {
      if (reported_.insert(closure).second) fail(c.where, c.why.id, c.why.args);
      ok = false;
      return call;
    }
    SourceLocation at = call->getBeginLoc();
    std::vector<Expr*> args;
    if (!lambda_arguments(object, at, args)) return call;
    for (Expr* a : call_args) args.push_back(cast<Expr>(visit(a)));
    auto* fn = const_cast<FunctionDecl*>(c.fn);
    auto* callee_ref = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), fn, false, at,
                                           fn->getType(), VK_LValue);
    auto* callee = ImplicitCastExpr::Create(context_, context_.getPointerType(fn->getType()), CK_FunctionToPointerDecay,
                                            callee_ref, nullptr, VK_PRValue, FPOptionsOverride());
    return CallExpr::Create(context_, callee, args, call->getType(), call->getValueKind(), at, FPOptionsOverride());
  }
};

}  // namespace

const VarDecl* closure_referent(const Expr* init) {
  auto* ref = dyn_cast<DeclRefExpr>(init->IgnoreParenImpCasts());
  return ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

const LambdaExpr* closure_lambda(const VarDecl* vd) { return lambda_of(vd->getInit()); }

const CXXRecordDecl* capturing_lambda(QualType t) {
  if (t.isNull()) return nullptr;
  auto* record = t.getNonReferenceType()->getAsCXXRecordDecl();
  return record && record->isLambda() && record->capture_size() != 0 ? record : nullptr;
}

const ClosureFunction& closure_function(const CXXRecordDecl* closure, const UnitFacts& unit, ASTContext& context) {
  auto& slot = unit.closures[closure->getCanonicalDecl()];
  if (!slot) {
    slot = std::make_shared<ClosureFunction>(build(closure, unit, context));
    if (slot->fn) unit.closure_of[slot->fn] = slot.get();
  }
  return *slot;
}

const ClosureFunction* as_closure_function(const FunctionDecl* fn, const UnitFacts& unit) {
  auto it = unit.closure_of.find(fn);
  return it == unit.closure_of.end() ? nullptr : it->second;
}

bool called_through_forward(const FunctionDecl* fn, const UnitFacts& unit) {
  auto* method = dyn_cast<CXXMethodDecl>(fn);
  return (method && method->getParent()->isLambda()) || as_closure_function(fn, unit);
}

bool closure_request_arguments(const ClosureFunction& c, const Expr* target, const UnitFacts& unit, ASTContext& context,
                               Diagnostics& diags, std::string& out) {
  const SourceManager& sm = context.getSourceManager();
  const VarDecl* var = holder(target);
  const LambdaExpr* named = var ? lambda_of(var->getInit()) : nullptr;
  const LambdaExpr* written = named ? nullptr : lambda_of(target);
  if (!named && !written) {
    diags.error(target->getBeginLoc(), Diag::request_capturing_lambda_elsewhere);
    return false;
  }
  for (size_t i = 0; i < c.captures.size(); ++i) {
    const ClosureCapture& k = c.captures[i];
    const Expr* value = (named ? named : written)->capture_init_begin()[k.index];
    const std::string name = k.var->getName().str();
    QualType pt = k.param->getType();
    if (k.lambda) {
      // A captured lambda's captures, read as a request of it would read them.
      const Expr* inner = copied(value);
      if ((i == 0 || c.captures[i - 1].index != k.index) &&
          !closure_request_arguments(closure_function(capturing_lambda(inner->getType()), unit, context), inner, unit,
                                     context, diags, out))
        return false;
    } else if (!k.by_copy) {
      if (pt->isLValueReferenceType() && !pt->getPointeeType().isConstQualified() && is_differentiable(pt)) {
        diags.error(k.at, Diag::request_lambda_writes_capture, {name});
        return false;
      }
      const VarDecl* referent = closure_referent(value);
      if (!referent) {
        diags.error(k.at, Diag::request_lambda_init_capture_reference, {name});
        return false;
      }
      out += ", ::std::ref(" + referent->getName().str() + ")";
    } else if (pt.getNonReferenceType()->isArrayType()) {
      diags.error(k.at, Diag::request_lambda_array_copy, {name, name});
      return false;
    } else if (pt->isReferenceType() && !pt.getNonReferenceType().isConstQualified()) {
      diags.error(k.at, Diag::request_mutable_lambda, {name});
      return false;
    } else if (k.var->isInitCapture()) {
      if (named) {
        diags.error(k.at, Diag::request_lambda_init_capture_elsewhere, {name, name});
        return false;
      }
      out += ", " +
             Lexer::getSourceText(CharSourceRange::getTokenRange(value->getSourceRange()), sm, context.getLangOpts())
                 .str();
    } else {
      auto* function = named ? dyn_cast<FunctionDecl>(var->getDeclContext()) : nullptr;
      if (function && may_modify(function->getBody(), k.var, &sm, named->getEndLoc())) {
        diags.error(k.at, Diag::request_capture_changed_later, {name, name});
        return false;
      }
      out += ", " + name;
    }
  }
  return true;
}

bool rewrite_closure_calls(const FunctionDecl* fn, const UnitFacts& unit, ASTContext& context, Diagnostics& diags) {
  ClosureCalls r(unit, context, diags, as_closure_function(fn, unit));
  r.visit(const_cast<Stmt*>(fn->getBody()));
  return r.ok;
}

}  // namespace adjc
