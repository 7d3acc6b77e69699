// fuse-kernel-calls: each pair find-fusible-calls found fusible, of two element loops (counters of
// one type) or an element loop into a row loop, becomes one call of a function made of both
// (docs/adjc-internals.md, "Fusion"): one loop whose iteration runs the producer's iteration (for
// a row consumer, the row's elements) and then the consumer's, which reads the intermediate the
// same iteration just wrote. adjc differentiates that function as any other, so its reverse loop
// runs the consumer's reverse iteration and then the producer's.
#include "fusion.hpp"
#include "pipeline.hpp"
#include "statement_cloner.hpp"

#include <clang/AST/StmtOpenMP.h>

namespace adjc {

using namespace clang;

namespace {

// A kernel's body: the scalar definitions before its loop, and the loop (inside its OpenMP
// directive when it has one).
struct KernelBody {
  std::vector<const Stmt*> before;
  const ForStmt* loop = nullptr;
  const VarDecl* counter = nullptr;
  bool parallel = false;  // `omp parallel for` (simd or not) without clauses
};

KernelBody kernel_body(const FunctionDecl* f) {
  KernelBody k;
  auto* body = dyn_cast_or_null<CompoundStmt>(f->getBody());
  if (!body) return k;
  for (const Stmt* s : body->body()) {
    if (auto* omp = dyn_cast<OMPLoopDirective>(s)) {
      k.parallel = !k.loop && isa<OMPParallelForDirective, OMPParallelForSimdDirective>(omp) && omp->clauses().empty();
      s = omp->getInnermostCapturedStmt()->getCapturedStmt();
    }
    if (auto* fs = dyn_cast<ForStmt>(s); fs && !k.loop) k.loop = fs;
    else if (!k.loop) k.before.push_back(s);
  }
  auto* init = k.loop ? dyn_cast_or_null<DeclStmt>(k.loop->getInit()) : nullptr;
  k.counter = init && init->isSingleDecl() ? dyn_cast<VarDecl>(init->getSingleDecl()) : nullptr;
  return k;
}

// A name no identifier of the unit spells yet.
IdentifierInfo& fresh_name(ASTContext& context, const std::string& stem) {
  std::string name = stem;
  for (int i = 2; context.Idents.find(name) != context.Idents.end(); ++i) name = stem + "_" + std::to_string(i);
  return context.Idents.get(name);
}

class PairFuser {
 public:
  PairFuser(FunctionState& s, FusionDecision& d) : s_(s), context_(s.context), d_(d) {}

  // The fused call, or nullptr with `d.unfused` saying why not.
  Node* run() {
    producer_ = d_.producer->call->getDirectCallee()->getDefinition();
    consumer_ = d_.consumer->call->getDirectCallee()->getDefinition();
    KernelBody p = kernel_body(producer_), c = kernel_body(consumer_);
    const int producer_width = s_.ir->unit.kernel_loops.at(producer_).width;
    const int consumer_width = s_.ir->unit.kernel_loops.at(consumer_).width;
    const bool rows = producer_width < 0 && consumer_width >= 0;  // an element producer under a row consumer
    if (!rows && (producer_width >= 0 || consumer_width >= 0))
      return unfused("fused code is generated for element loops, and element loops into row loops, only so far");
    if (!p.counter || !c.counter) return unfused("a kernel's loop does not declare its counter");
    if (!rows && p.counter->getType().getCanonicalType() != c.counter->getType().getCanonicalType())
      return unfused("their loop counters differ in type");
    if (!producer_->getReturnType()->isVoidType() || !consumer_->getReturnType()->isVoidType())
      return unfused("a kernel returns a value");
    FunctionDecl* fused = declare();
    bool defined = rows ? define_rows(fused, p, c, consumer_width) : define(fused, p, c);
    if (!defined) return unfused("its loop holds a construct adjc does not copy");
    s_.plan_callee(fused);
    return call_node(fused);
  }

 private:
  FunctionState& s_;
  ASTContext& context_;
  FusionDecision& d_;
  const FunctionDecl* producer_ = nullptr;
  const FunctionDecl* consumer_ = nullptr;
  std::map<const Decl*, Decl*> decls_;  // both kernels' parameters -> the fused function's
  std::vector<ParmVarDecl*> params_;
  std::vector<const Expr*> args_;  // the fused call's arguments

  Node* unfused(const std::string& why) {
    d_.unfused = why;
    return nullptr;
  }

  bool linked(unsigned k) const {
    for (auto [j, c] : d_.links)
      if (unsigned(c) == k) return true;
    return false;
  }

  void add_param(FunctionDecl* fused, const ParmVarDecl* p, const Expr* arg) {
    std::string name = p->getName().str();
    for (int i = 2; std::any_of(params_.begin(), params_.end(), [&](auto* q) { return q->getName() == name; }); ++i)
      name = p->getName().str() + "_" + std::to_string(i);
    auto* param =
        ParmVarDecl::Create(context_, fused, p->getInnerLocStart(), p->getLocation(), &context_.Idents.get(name),
                            p->getType(), p->getTypeSourceInfo(), SC_None, nullptr);
    param->setScopeInfo(0, params_.size());
    decls_[p] = param;
    params_.push_back(param);
    args_.push_back(arg);
  }

  // The fused function's declaration: the producer's parameters, then the consumer's but those
  // receiving the intermediate, which name the producer's.
  FunctionDecl* declare() {
    auto* fused =
        FunctionDecl::Create(context_, const_cast<DeclContext*>(producer_->getDeclContext()), producer_->getBeginLoc(),
                             producer_->getLocation(),
                             &fresh_name(context_, producer_->getNameAsString() + "_" + consumer_->getNameAsString()),
                             QualType(), nullptr, SC_None);
    const CallExpr* pc = d_.producer->call;
    const CallExpr* cc = d_.consumer->call;
    for (unsigned j = 0; j < producer_->getNumParams(); j++)
      add_param(fused, producer_->getParamDecl(j), pc->getArg(j));
    for (unsigned k = 0; k < consumer_->getNumParams(); k++)
      if (!linked(k)) add_param(fused, consumer_->getParamDecl(k), cc->getArg(k));
    for (auto [j, k] : d_.links) decls_[consumer_->getParamDecl(k)] = decls_[producer_->getParamDecl(j)];
    std::vector<QualType> types;
    for (const ParmVarDecl* p : params_) types.push_back(p->getType());
    fused->setType(context_.getFunctionType(context_.VoidTy, types, FunctionProtoType::ExtProtoInfo()));
    fused->setParams(params_);
    return fused;
  }

  // Its body: both kernels' definitions, then the producer's loop whose body is the producer's
  // iteration and then the consumer's, the consumer's counter the producer's.
  bool define(FunctionDecl* fused, const KernelBody& p, const KernelBody& c) {
    StatementCloner pc(context_, fused, decls_);
    std::vector<Stmt*> body;
    for (const Stmt* s : p.before) body.push_back(pc.stmt(s));
    auto* loop = cast_or_null<ForStmt>(pc.stmt(p.loop));
    if (!loop) return false;
    std::map<const Decl*, Decl*> consumer_decls = decls_;
    consumer_decls[c.counter] = cast<DeclStmt>(loop->getInit())->getSingleDecl();
    StatementCloner cc(context_, fused, consumer_decls);
    for (const Stmt* s : c.before) body.push_back(cc.stmt(s));
    Stmt* iteration[] = {loop->getBody(), cc.stmt(c.loop->getBody())};
    if (std::count(body.begin(), body.end(), nullptr) || !iteration[1]) return false;
    loop->setBody(
        CompoundStmt::Create(context_, iteration, FPOptionsOverride(), loop->getBeginLoc(), loop->getEndLoc()));
    body.push_back(loop);
    // Both loops' iterations independent and each parallel: so is the fused loop.
    if (p.parallel && c.parallel) s_.ir->unit.parallel_fused_loops.insert(loop);
    fused->setBody(
        CompoundStmt::Create(context_, body, FPOptionsOverride(), producer_->getBeginLoc(), producer_->getEndLoc()));
    return true;
  }

  // An element producer under a row consumer: the consumer's loop over rows r, whose body runs
  // the producer's loop over the row's elements r * W .. r * W + W - 1, then the consumer's iteration.
  bool define_rows(FunctionDecl* fused, const KernelBody& p, const KernelBody& c, int width) {
    StatementCloner pc(context_, fused, decls_), cc(context_, fused, decls_);
    std::vector<Stmt*> body;
    for (const Stmt* s : p.before) body.push_back(pc.stmt(s));
    for (const Stmt* s : c.before) body.push_back(cc.stmt(s));
    auto* elements = cast_or_null<ForStmt>(pc.stmt(p.loop));
    auto* loop = cast_or_null<ForStmt>(cc.stmt(c.loop));
    auto* bound = elements ? dyn_cast_or_null<BinaryOperator>(elements->getCond()) : nullptr;
    if (std::count(body.begin(), body.end(), nullptr) || !loop || !bound) return false;
    auto* counter = cast<VarDecl>(cast<DeclStmt>(elements->getInit())->getSingleDecl());
    auto* row = cast<VarDecl>(cast<DeclStmt>(loop->getInit())->getSingleDecl());
    auto* w = cast<VarDecl>(decls_.at(consumer_->getParamDecl(width)));
    // A signed counter (`long`), so that the reverse computes the bounds again instead of taping
    // them per row (plan-loop-bounds); `(long)r * W` cannot overflow where the kernels' indices do not.
    QualType t = context_.LongTy;
    counter->setType(t);
    bound->setLHS(value(counter, t));
    counter->setInit(arithmetic(BO_Mul, explicit_cast(value(row, row->getType()), t), value(w, t), t));
    bound->setRHS(arithmetic(BO_Add, arithmetic(BO_Mul, explicit_cast(value(row, row->getType()), t), value(w, t), t),
                             value(w, t), t));
    Stmt* iteration[] = {elements, loop->getBody()};
    loop->setBody(
        CompoundStmt::Create(context_, iteration, FPOptionsOverride(), loop->getBeginLoc(), loop->getEndLoc()));
    body.push_back(loop);
    if (p.parallel && c.parallel) s_.ir->unit.parallel_fused_loops.insert(loop);
    fused->setBody(
        CompoundStmt::Create(context_, body, FPOptionsOverride(), producer_->getBeginLoc(), producer_->getEndLoc()));
    return true;
  }

  // The value of `v` as a `t`.
  Expr* value(VarDecl* v, QualType t) {
    Expr* e = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), v, false, v->getLocation(),
                                  v->getType().getNonReferenceType(), VK_LValue);
    e = ImplicitCastExpr::Create(context_, v->getType().getUnqualifiedType(), CK_LValueToRValue, e, nullptr, VK_PRValue,
                                 FPOptionsOverride());
    if (context_.hasSameType(v->getType().getUnqualifiedType(), t)) return e;
    return ImplicitCastExpr::Create(context_, t, CK_IntegralCast, e, nullptr, VK_PRValue, FPOptionsOverride());
  }

  Expr* explicit_cast(Expr* e, QualType t) {
    return CStyleCastExpr::Create(context_, t, VK_PRValue, CK_IntegralCast, e, nullptr, FPOptionsOverride(),
                                  context_.getTrivialTypeSourceInfo(t), e->getBeginLoc(), e->getBeginLoc());
  }

  Expr* arithmetic(BinaryOperatorKind op, Expr* a, Expr* b, QualType t) {
    return BinaryOperator::Create(context_, a, b, op, t, VK_PRValue, OK_Ordinary, a->getBeginLoc(),
                                  FPOptionsOverride());
  }

  // The call of the fused function, in the caller's IR where the producer's call was.
  Node* call_node(FunctionDecl* fused) {
    SourceLocation at = d_.producer->call->getBeginLoc();
    auto* ref = DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), fused, false, at,
                                    fused->getType(), VK_LValue);
    auto* callee = ImplicitCastExpr::Create(context_, context_.getPointerType(fused->getType()),
                                            CK_FunctionToPointerDecay, ref, nullptr, VK_PRValue, FPOptionsOverride());
    std::vector<Expr*> args;
    for (const Expr* a : args_) args.push_back(const_cast<Expr*>(a));
    auto* call = CallExpr::Create(context_, callee, args, context_.VoidTy, VK_PRValue, at, FPOptionsOverride());
    FunctionIR& ir = *s_.ir;
    ir.nodes.push_back(std::make_unique<Node>(*d_.producer));
    Node* n = ir.nodes.back().get();
    n->call = call;
    ir.hoisted.insert(call);
    return n;
  }
};

}  // namespace

void fuse_kernel_calls(FunctionState& s) {
  bool changed = false;
  std::set<const Node*> gone;
  for (FusionDecision& d : s.fusions) {
    if (!d.refusal.empty()) continue;
    if (!s.fusion) {
      d.unfused = "fusion is turned off (--no-fusion)";
      continue;
    }
    if (gone.count(d.producer)) {
      d.unfused = "'" + d.producer->call->getDirectCallee()->getNameAsString() + "' is fused with the call before it";
      continue;
    }
    Node* fused = PairFuser(s, d).run();
    if (!fused) continue;
    std::vector<Node*>& siblings = d.producer->parent->children;
    auto at = std::find(siblings.begin(), siblings.end(), d.producer);
    *at = fused;
    siblings.erase(at + 1);
    gone.insert(d.consumer);
    d.fused = fused;
    changed = true;
  }
  if (!changed) return;
  s.all.clear();
  for_each_node(s.ir->body, [&](Node* n) {
    n->order = int(s.all.size());
    s.all.push_back(n);
  });
  s.full = analyze_activity(*s.ir, all_differentiable(s.ir->fn));
}

}  // namespace adjc
