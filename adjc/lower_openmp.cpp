// Lowering of OpenMP parallel loops (lowering.hpp): the directive's clauses, then the loop as a
// canonical `for` whose iterations the emitted code splits between the threads itself
// (docs/adjc.md, "Parallel loops"). Each clause is accepted only where the generated forward and
// reverse loops keep its meaning; any other is reported by name.
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/OpenMPKinds.h>
#include <llvm/Frontend/OpenMP/OMP.h>

#include <algorithm>

#include "lowering.hpp"

namespace adjc {

using namespace clang;

namespace {

// A clause's list item as written, for diagnostics.
std::string list_item(const Expr* e) {
  auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref ? "'" + ref->getDecl()->getNameAsString() + "'" : "this list item";
}

// `reduction(op : ...)`'s operator as written (`+`, `max`).
std::string reduction_operator(const OMPReductionClause* c) {
  std::string name = c->getNameInfo().getName().getAsString();
  return llvm::StringRef(name).starts_with("operator") ? name.substr(8) : name;
}

}  // namespace

void Lowering::lower_parallel_for(const OMPLoopDirective* omp, Node* block) {
  if (parallel_) return fail(omp->getBeginLoc(), Diag::unsupported_nested_openmp_parallel_loops);
  // The loop is edited in place (region_copy), as the other AST rewrites of lowering are.
  auto* fs = dyn_cast<ForStmt>(const_cast<Stmt*>(omp->getInnermostCapturedStmt()->getCapturedStmt()));
  if (!fs) return fail(omp->getBeginLoc(), Diag::unsupported_openmp_loop);
  ParallelClauses clauses;
  if (!read_clauses(omp, fs, clauses)) return;
  // A counter declared before the loop (`int i; ... for (i = 0; ...)`) is private to the loop, as
  // OpenMP makes it: the loop declares a copy of its own, as if written `for (int i = 0; ...)`.
  if (auto* init = dyn_cast_or_null<BinaryOperator>(fs->getInit()); init && init->getOpcode() == BO_Assign)
    if (auto* ref = dyn_cast<DeclRefExpr>(init->getLHS()->IgnoreParens()))
      if (auto* vd = dyn_cast<VarDecl>(ref->getDecl()); vd && vd->hasLocalStorage() && vd->getType()->isIntegerType()) {
        auto* copy = const_cast<VarDecl*>(region_copy(fs, vd));
        copy->setInit(init->getRHS());
        fs->setInit(new (context_) DeclStmt(DeclGroupRef(copy), init->getBeginLoc(), init->getEndLoc()));
      }
  lower_for(fs, block, &clauses);
}

// The clauses, checked; false (reported) when one is not supported.
bool Lowering::read_clauses(const OMPLoopDirective* omp, ForStmt* fs, ParallelClauses& clauses) {
  auto variable = [&](const Expr* e) -> const VarDecl* {
    auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    auto* vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    return vd && vd->hasLocalStorage() && !vd->getType()->isReferenceType() && vd->getType()->isArithmeticType() &&
                   !addressed_.count(vd)
               ? vd
               : nullptr;
  };
  auto reject = [&](SourceLocation at, Diag id, std::vector<std::string> args = {}) {
    fail(at, id, std::move(args));
    return false;
  };
  const std::string scalars =
      "; only local variables and parameters of numbers (not references, not passed by address)";
  for (const OMPClause* c : omp->clauses()) {
    SourceLocation at = c->getBeginLoc();
    const std::string name = llvm::omp::getOpenMPClauseName(c->getClauseKind()).str();
    if (auto* schedule = dyn_cast<OMPScheduleClause>(c)) {
      // The generated loops give each thread one contiguous block of iterations whatever the
      // chunk: a loop whose iterations are independent computes the same, and the reverse loop
      // reuses the forward's split. A dynamic schedule would be a different split per run.
      if (schedule->getScheduleKind() != OMPC_SCHEDULE_static)
        return reject(
            at, Diag::unsupported_schedule,
            {std::string(getOpenMPSimpleClauseTypeName(llvm::omp::OMPC_schedule, schedule->getScheduleKind()))});
    } else if (auto* def = dyn_cast<OMPDefaultClause>(c)) {
      if (def->getDefaultKind() != llvm::omp::OMP_DEFAULT_shared &&
          def->getDefaultKind() != llvm::omp::OMP_DEFAULT_none)
        return reject(
            at, Diag::unsupported_default,
            {std::string(getOpenMPSimpleClauseTypeName(llvm::omp::OMPC_default, unsigned(def->getDefaultKind())))});
    } else if (isa<OMPSharedClause>(c)) {
      // Shared is what every variable declared outside the loop is.
    } else if (auto* priv = dyn_cast<OMPPrivateClause>(c)) {
      for (const Expr* e : priv->varlists()) {
        const VarDecl* vd = variable(e);
        if (!vd) return reject(e->getExprLoc(), Diag::unsupported_private_list_item, {list_item(e), scalars});
        clauses.privates.push_back(region_copy(fs, vd));
      }
    } else if (auto* first = dyn_cast<OMPFirstprivateClause>(c)) {
      // A copy per thread of a value the loop only reads is the shared value (of a pointer: the
      // address; the elements are shared either way).
      for (const Expr* e : first->varlists()) {
        const VarDecl* vd = variable(e);
        if (auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()); !vd && ref && ref->getType()->isPointerType())
          vd = dyn_cast<VarDecl>(ref->getDecl());
        if (!vd) return reject(e->getExprLoc(), Diag::unsupported_firstprivate, {list_item(e)});
        if (writes_variable(fs, vd))
          return reject(e->getExprLoc(), Diag::unsupported_firstprivate_written_loop, {vd->getName().str()});
      }
    } else if (auto* reduction = dyn_cast<OMPReductionClause>(c)) {
      std::string op = reduction_operator(reduction);
      if ((op != "+" && op != "-") || reduction->getModifier() != OMPC_REDUCTION_unknown)
        return reject(at, Diag::unsupported_reduction_operator, {op});
      for (const Expr* e : reduction->varlists()) {
        const VarDecl* vd = variable(e);
        if (!vd) return reject(e->getExprLoc(), Diag::unsupported_reduction_list_item, {list_item(e), scalars});
        clauses.reductions.push_back(vd);
      }
    } else if (auto* threads = dyn_cast<OMPNumThreadsClause>(c)) {
      clauses.threads = threads->getNumThreads();
      if (has_side_effects(clauses.threads)) return reject(at, Diag::unsupported_num_threads_side_effects);
      check_expression(ir_, diags_, clauses.threads);
    } else {
      return reject(at, Diag::unsupported_openmp_clause, {name});
    }
  }
  return true;
}

// A variable of the region standing for `vd` in the loop `fs` (a private copy, or the counter):
// each use of `vd` in the loop is rewritten to it. Its Var is made in open_parallel.
const VarDecl* Lowering::region_copy(ForStmt* fs, const VarDecl* vd) {
  VarDecl* copy = synthesized(vd->getName().str(), vd->getType().getUnqualifiedType(), vd->getLocation());
  auto replace = [&](Stmt* s) {
    replace_uses(s, vd, [&](const DeclRefExpr* ref) -> Expr* {
      return DeclRefExpr::Create(context_, NestedNameSpecifierLoc(), SourceLocation(), copy, false, ref->getLocation(),
                                 copy->getType(), VK_LValue);
    });
    return s;
  };
  fs->setInit(replace(fs->getInit()));
  fs->setCond(cast_or_null<Expr>(replace(fs->getCond())));
  fs->setInc(cast_or_null<Expr>(replace(fs->getInc())));
  fs->setBody(replace(fs->getBody()));
  return copy;
}

// Once the loop node exists (the region's variables are made with parallel_ set to it).
void Lowering::open_parallel(Node* loop, const ParallelClauses& clauses) {
  for (const VarDecl* vd : clauses.privates)
    make_var(vd->getName().str(), vd->getType(), VarKind::Local, vd, vd->getLocation());
  loop->threads = clauses.threads;
  for (const VarDecl* vd : clauses.reductions) {
    auto it = ir_.var_of.find(vd);
    if (it == ir_.var_of.end())
      return fail(vd->getLocation(), Diag::unsupported_reduction_variable, {vd->getName().str()});
    loop->reductions.push_back(it->second);
  }
}

// Once the body is lowered: a scalar of the function the body assigns is a race between the
// threads, unless it is a reduction variable, which the body may only add to.
void Lowering::close_parallel(Node* loop) {
  auto reduction = [&](const Var* v) {
    return std::find(loop->reductions.begin(), loop->reductions.end(), v) != loop->reductions.end();
  };
  for_each_node(loop->body, [&](Node* n) {
    if (n->kind == NodeKind::Assign && n->target && n->target->parallel != loop) {
      const std::string name = n->target->source_name();
      if (!reduction(n->target)) return fail(n->loc, Diag::parallel_loop_writes_shared_variable, {name, name, name});
      if (n->op != BO_AddAssign && n->op != BO_SubAssign)
        return fail(n->loc, Diag::reduction_variable_updated_otherwise, {name, name, name});
    }
    std::vector<Var*> read;
    for (const Expr* e :
         {n->target ? nullptr : n->lhs, n->rhs, n->cond, n->start, n->end, n->last, static_cast<const Expr*>(n->call)})
      variables_read(ir_, e, read);
    for (Var* v : read)
      if (reduction(v)) return fail(n->loc, Diag::unsupported_reduction_variable_read_loop, {v->source_name()});
  });
}

}  // namespace adjc
