// check-tangents (tangent.hpp): what forward mode does not support yet, reported under full
// activity (every differentiable parameter varied), so that no activity pattern a request or call
// asks for later meets it; and the custom pushforwards calls use.
#include "containers.hpp"
#include "tangent.hpp"

namespace adjc {

using namespace clang;

const NamedDecl* custom_pushforward(const FunctionDecl* callee, const UnitFacts& unit) {
  if (isa<CXXMethodDecl>(callee)) return nullptr;  // class_functions: not read in forward mode yet
  auto [first, last] = unit.custom.free.equal_range(base_name(callee, unit) + "_pushforward");
  for (auto it = first; it != last; ++it) {
    // Clad's pushforwards of standard functions (custom_derivatives::std) are for math functions,
    // which the derivative rules cover.
    auto* ns = dyn_cast<NamespaceDecl>(it->second->getDeclContext());
    if (ns && ns->getName() == "custom_derivatives") return it->second;
  }
  return nullptr;
}

namespace {

// What a variable's tangent would need that forward mode does not build yet, in words ("" when
// it is supported).
std::string unsupported_variable(const Var* v, const UnitFacts& unit) {
  if (v->heap) return "a heap array";
  if (v->value || is_value_class(v->type, unit)) return "a value class";
  if (v->kind != VarKind::Param && is_vector(v->type)) return "a local std::vector";
  return "";
}

}  // namespace

bool carries_no_tangent(const Node* call) {
  const FunctionDecl* f = call->call->getDirectCallee();
  if (non_differentiable(f)) return true;
  QualType result = f->getReturnType().getNonReferenceType();
  return call->result && !call->result->memory && result->isIntegralOrEnumerationType() && !is_floating(result) &&
         !writes_through_parameters(f);
}

void check_tangents(FunctionState& s) {
  const FunctionIR& ir = *s.ir;
  for (auto& v : ir.vars)
    if (s.full.of(v.get()))
      if (std::string what = unsupported_variable(v.get(), ir.unit); !what.empty())
        s.diags.error(v->decl ? v->decl->getLocation() : ir.fn->getLocation(), Diag::tangent_unsupported_variable,
                      {what, v->source_name()});
  for (const Node* n : s.all) {
    if (n->kind != NodeKind::Call || !n->call || !ir.hoisted.count(n->call) || !call_active(ir, s.full, n) ||
        carries_no_tangent(n))
      continue;
    const FunctionDecl* f = n->call->getDirectCallee();
    if (custom_pushforward(f, ir.unit) || (callee_kind(f, ir.unit) != CalleeKind::Plain && f->getDefinition()))
      continue;
    s.diags.error(n->call->getBeginLoc(), Diag::tangent_call_without_pushforward,
                  {f->getQualifiedNameAsString(), base_name(f, ir.unit) + "_pushforward"});
  }
}

}  // namespace adjc
