// Custom pullbacks: the functions and function templates of adjoint::custom_derivatives or
// clad::custom_derivatives (and of their class_functions and std) that replace the
// differentiation of a callee, matched to it by name and by the signature adjc calls them with
// (classify.hpp).
#include <clang/AST/DeclTemplate.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Sema/Sema.h>
#include <clang/Sema/TemplateDeduction.h>

#include <iterator>

#include "classify.hpp"

namespace adjc {

using namespace clang;

void add_custom_pullbacks(const NamespaceDecl* custom_derivatives, CustomPullbacks& custom) {
  auto add = [](const Decl* d, std::multimap<std::string, const NamedDecl*>& table) {
    if (auto* t = dyn_cast<FunctionTemplateDecl>(d)) d = t;
    else if (!isa<FunctionDecl>(d)) return;
    auto* named = cast<NamedDecl>(d);
    if (named->getIdentifier()) table.insert({named->getName().str(), named});
  };
  for (const Decl* d : custom_derivatives->decls()) {
    add(d, custom.free);
    auto* inner = dyn_cast<NamespaceDecl>(d);
    // Clad's pullbacks of standard functions are in custom_derivatives::std (`std::sin_pullback`).
    if (inner && (inner->getName() == "class_functions" || inner->getName() == "std"))
      for (const Decl* m : inner->decls()) add(m, inner->getName() == "std" ? custom.free : custom.members);
  }
}

namespace {

// One parameter of the call adjc makes: the callee's parameter (`Argument`, passed as the
// callee's argument), the seed of its result (`Seed`, a value), or an adjoint (`Adjoint`, a
// pointer, or nullptr for a parameter not differentiated at the call).
struct Slot {
  enum Kind { Argument, Seed, Adjoint, State } kind;
  QualType type;
  std::string name;
};

// What a pullback of `callee` is called with: its parameters (a member function's object first,
// as `self`), `d_result` when its result has an adjoint, then one adjoint per differentiable
// parameter: a pointer to what the parameter refers or points to, or to its value.
std::vector<Slot> call_signature(const FunctionDecl* callee, const UnitFacts& unit, bool integer_adjoints = false) {
  ASTContext& context = callee->getASTContext();
  std::vector<AdParam> params = ad_params(callee);
  std::vector<Slot> slots;
  auto name = [](const AdParam& p) { return p.decl ? p.decl->getNameAsString() : std::string("self"); };
  for (const AdParam& p : params) slots.push_back({Slot::Argument, p.type, name(p)});
  if (QualType rt = result_type(callee); has_result_adjoint(rt, unit))
    slots.push_back({Slot::Seed, rt.getUnqualifiedType(), "d_result"});
  for (const AdParam& p : params) {
    if (!is_differentiable(p.type) && !(integer_adjoints && integer_like_parameter(p.type))) continue;
    QualType t = p.type.getCanonicalType();
    QualType of = t->isReferenceType() || t->isPointerType() ? t->getPointeeType() : t;
    slots.push_back({Slot::Adjoint, context.getPointerType(of.getUnqualifiedType()), "d_" + name(p)});
  }
  return slots;
}

// Types equal up to references and cv-qualifiers (of the type and of a pointee); any two
// arithmetic types are alike (an argument converts).
bool same_type(QualType a, QualType b) {
  auto plain = [](QualType t) {
    t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
    if (t->isPointerType()) return t->getPointeeType().getUnqualifiedType().getTypePtr();
    return t.getTypePtr();
  };
  if (a->isPointerType() != b->isPointerType()) return false;
  if (plain(a) == plain(b)) return true;
  return !a->isPointerType() && QualType(plain(a), 0)->isArithmeticType() && QualType(plain(b), 0)->isArithmeticType();
}

// Whether `pullback` takes the call adjc makes: each parameter of the type of its slot; a non-const
// lvalue reference only where the callee's parameter is one (a seed or an adjoint is a temporary).
bool takes(const FunctionDecl* pullback, const std::vector<Slot>& slots) {
  if (pullback->getNumParams() != slots.size()) return false;
  for (size_t i = 0; i < slots.size(); ++i) {
    QualType p = pullback->getParamDecl(i)->getType().getCanonicalType();
    const Slot& s = slots[i];
    bool mutable_reference = p->isLValueReferenceType() && !p->getPointeeType().isConstQualified();
    if (mutable_reference && s.kind != Slot::State &&
        !(s.kind == Slot::Argument && s.type->isLValueReferenceType() && !s.type->getPointeeType().isConstQualified()))
      return false;
    if (!same_type(s.type, p)) return false;
  }
  return true;
}

// The specialization of `pullback` a call with the slots' arguments would pick (the arguments as
// the call passes them: the callee's arguments as lvalues of what its parameters refer to, or its
// values; the seed and the adjoints as temporaries), given `explicit_args` if any; nullptr when
// deduction fails.
FunctionDecl* deduce(const FunctionTemplateDecl* pullback, TemplateArgumentListInfo* explicit_args,
                     const std::vector<Slot>& slots, SourceLocation at, Sema& sema) {
  ASTContext& context = pullback->getASTContext();
  std::vector<Expr*> args;
  for (const Slot& s : slots) {
    bool lvalue = (s.kind == Slot::Argument && s.type->isReferenceType()) || s.kind == Slot::State;
    args.push_back(new (context) OpaqueValueExpr(at, s.type.getNonReferenceType(), lvalue ? VK_LValue : VK_PRValue));
  }
  FunctionDecl* specialization = nullptr;
  sema::TemplateDeductionInfo info(at);
  Sema::SFINAETrap trap(sema);
  TemplateDeductionResult result = sema.DeduceTemplateArguments(
      const_cast<FunctionTemplateDecl*>(pullback), explicit_args, args, specialization, info,
      /*PartialOverloading=*/false, /*AggregateDeductionCandidate=*/false, /*ObjectType=*/QualType(),
      /*ObjectClassification=*/Expr::Classification(), [](ArrayRef<QualType>) { return false; });
  return result == TemplateDeductionResult::Success && !trap.hasErrorOccurred() ? specialization : nullptr;
}

// The specialization of `pullback` the call adjc makes would call: the arguments of `callee`'s own
// specialization given explicitly (`power_pullback<3>`), the rest deduced from the slots' types;
// nullptr when deduction fails.
const FunctionDecl* specialize(const FunctionTemplateDecl* pullback, const FunctionDecl* callee,
                               const std::vector<Slot>& slots, Sema& sema) {
  SourceLocation at = pullback->getLocation();
  TemplateArgumentListInfo explicit_args(at, at);
  if (const TemplateArgumentList* own = callee->getTemplateSpecializationArgs()) {
    auto add = [&](const TemplateArgument& a) {
      QualType value_type = a.getKind() == TemplateArgument::Integral ? a.getIntegralType() : QualType();
      explicit_args.addArgument(sema.getTrivialTemplateArgumentLoc(a, value_type, at));
    };
    for (const TemplateArgument& a : own->asArray()) {
      if (a.getKind() != TemplateArgument::Pack) add(a);
      else
        for (const TemplateArgument& element : a.pack_elements()) add(element);
    }
  }
  return deduce(pullback, callee->getTemplateSpecializationArgs() ? &explicit_args : nullptr, slots, at, sema);
}

// Whether a pullback that does not take the call of `callee` was still written for it, so that
// passing it over for the body would be wrong: its leading parameters are the callee's (those of
// `specialized`, a template's specialization; a template that cannot be specialized counts when
// the callee's name declares nothing else), and it takes no call of another overload of the name
// (`f_pullback(double, double, double*)` is f(double)'s, not f(double, double)'s; a std::complex
// `norm_pullback` is not a user's norm(const double*, int)'s).
bool written_for(const NamedDecl* candidate, const FunctionDecl* specialized, const FunctionDecl* callee,
                 const std::vector<Slot>& slots, const UnitFacts& unit) {
  DeclContext::lookup_result overloads = callee->getDeclContext()->getRedeclContext()->lookup(callee->getDeclName());
  if (!specialized) return isa<FunctionTemplateDecl>(candidate) && std::distance(overloads.begin(), overloads.end()) == 1;
  for (size_t i = 0; i < slots.size() && slots[i].kind == Slot::Argument; ++i)
    if (i >= specialized->getNumParams() || !same_type(slots[i].type, specialized->getParamDecl(i)->getType()))
      return false;
  for (const NamedDecl* d : overloads)
    if (auto* other = dyn_cast<FunctionDecl>(d);
        other && other->getCanonicalDecl() != callee->getCanonicalDecl() && takes(specialized, call_signature(other, unit)))
      return false;
  return true;
}

// Whether Clad's numerical fallback stands in for `callee`'s derivative: a free function of the
// program (a library's keeps its error) without a body anywhere in the unit, whose parameters and
// result are floating scalars (by value or const reference), as central differences need.
bool numerically_differentiated(const FunctionDecl* callee) {
  const FunctionDecl* def = callee->getDefinition();
  if ((def && def->hasBody()) || is_library(callee) || isa<CXXMethodDecl>(callee) || callee->isVariadic() ||
      callee->getNumParams() == 0)
    return false;
  auto scalar = [](QualType t) {
    t = t.getCanonicalType();
    if (t->isReferenceType()) {
      if (!t->isLValueReferenceType() || !t->getPointeeType().isConstQualified()) return false;
      t = t->getPointeeType();
    }
    return t->isRealFloatingType();
  };
  for (const ParmVarDecl* p : callee->parameters())
    if (!scalar(p->getType())) return false;
  return callee->getReturnType()->isRealFloatingType();
}

// The numerical pullback for `callee`: the fallback template given `&callee`, its result type and
// its parameters' value types (central_difference_pullback<&f, R, A...>).
const FunctionDecl* numerical_pullback(const FunctionDecl* callee, const std::vector<Slot>& slots,
                                       const CustomPullbacks& custom) {
  if (!custom.numerical || !custom.sema || !numerically_differentiated(callee)) return nullptr;
  ASTContext& context = callee->getASTContext();
  Sema& sema = *custom.sema;
  SourceLocation at = callee->getLocation();
  auto* fn = const_cast<FunctionDecl*>(callee);
  auto* ref =
      DeclRefExpr::Create(context, NestedNameSpecifierLoc(), SourceLocation(), fn, false, at, fn->getType(), VK_LValue);
  Expr* address = UnaryOperator::Create(context, ref, UO_AddrOf, context.getPointerType(fn->getType()), VK_PRValue,
                                        OK_Ordinary, at, false, FPOptionsOverride());
  TemplateArgumentListInfo explicit_args(at, at);
  explicit_args.addArgument(TemplateArgumentLoc(TemplateArgument(address), address));
  auto add_type = [&](QualType t) {
    t = t.getNonReferenceType().getUnqualifiedType();
    explicit_args.addArgument(TemplateArgumentLoc(TemplateArgument(t), context.getTrivialTypeSourceInfo(t, at)));
  };
  add_type(callee->getReturnType());
  for (const ParmVarDecl* p : callee->parameters()) add_type(p->getType());
  FunctionDecl* specialization = deduce(custom.numerical, &explicit_args, slots, at, sema);
  return specialization && takes(specialization, slots) ? specialization : nullptr;
}

std::string place(const Decl* d) {
  const SourceManager& sm = d->getASTContext().getSourceManager();
  PresumedLoc at = sm.getPresumedLoc(sm.getSpellingLoc(d->getLocation()));
  if (at.isInvalid()) return "?";
  return std::string(at.getFilename()) + ":" + std::to_string(at.getLine()) + ":" + std::to_string(at.getColumn());
}

std::string signature(const std::string& name, const std::vector<Slot>& slots, const PrintingPolicy& policy) {
  std::string out = "void " + name + "(";
  for (size_t i = 0; i < slots.size(); ++i) out += (i ? ", " : "") + slots[i].type.getAsString(policy) + " " + slots[i].name;
  return out + ")";
}

// clad::pullback_state<S> when `t` is one (behind a reference), else a null type.
QualType pullback_state_type(QualType t) {
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  auto* record = t->getAsCXXRecordDecl();
  return record && record->getQualifiedNameAsString() == "clad::pullback_state" ? t : QualType();
}

// The state type a candidate pullback takes last (a template's, when it does not depend on the
// template's parameters), else a null type.
QualType trailing_state(const NamedDecl* candidate) {
  const FunctionDecl* f = dyn_cast<FunctionDecl>(candidate);
  if (auto* t = dyn_cast<FunctionTemplateDecl>(candidate)) f = t->getTemplatedDecl();
  if (!f || f->getNumParams() == 0) return QualType();
  QualType last = f->getParamDecl(f->getNumParams() - 1)->getType();
  return last->isDependentType() ? QualType() : pullback_state_type(last);
}

// `candidate` (a template specialised for `callee`) when it takes `slots`, else nullptr.
const FunctionDecl* taking(const NamedDecl* candidate, const FunctionDecl* callee, const std::vector<Slot>& slots,
                           const CustomPullbacks& custom) {
  const FunctionDecl* f = dyn_cast<FunctionDecl>(candidate);
  if (auto* t = dyn_cast<FunctionTemplateDecl>(candidate))
    f = custom.sema ? specialize(t, callee, slots, *custom.sema) : nullptr;
  return f && takes(f, slots) ? f : nullptr;
}

// Clad's pullback with state (custom_reverse_forw): a candidate taking adjc's call and then the
// state, and the `_reverse_forw` of the same name taking the arguments, their adjoints (pointers,
// or values for parameters by value) and the state by reference. Member functions keep the plain form.
bool match_stateful(const std::vector<const NamedDecl*>& candidates, const std::string& name,
                    const FunctionDecl* callee, const std::vector<Slot>& slots, const UnitFacts& unit,
                    CustomPullbacks::Match& found) {
  if (isa<CXXMethodDecl>(callee)) return false;
  ASTContext& context = callee->getASTContext();
  for (const NamedDecl* candidate : candidates) {
    QualType state = trailing_state(candidate);
    if (state.isNull()) continue;
    std::vector<Slot> with_state = slots;
    with_state.push_back({Slot::State, state, "state"});
    const FunctionDecl* pullback = taking(candidate, callee, with_state, unit.custom);
    if (!pullback) continue;
    std::vector<Slot> forw;
    for (const Slot& s : slots)
      if (s.kind == Slot::Argument) forw.push_back(s);
    for (const AdParam& p : ad_params(callee)) {
      if (!is_differentiable(p.type)) continue;
      QualType t = p.type.getCanonicalType();
      bool indirect = t->isReferenceType() || t->isPointerType();
      QualType of = (indirect ? t->getPointeeType() : t).getUnqualifiedType();
      forw.push_back({Slot::Adjoint, indirect ? context.getPointerType(of) : of, "d_" + p.decl->getNameAsString()});
    }
    forw.push_back({Slot::State, context.getLValueReferenceType(state), "state"});
    for (auto [at, last] = unit.custom.free.equal_range(name + "_reverse_forw"); at != last; ++at)
      if (const FunctionDecl* forward = taking(at->second, callee, forw, unit.custom)) {
        found.pullback = pullback;
        found.reverse_forw = forward;
        found.state = state;
        return true;
      }
  }
  return false;
}

const CustomPullbacks::Match& match(const FunctionDecl* callee, const UnitFacts& unit) {
  const CustomPullbacks& custom = unit.custom;
  auto [it, fresh] = custom.matches.emplace(callee, CustomPullbacks::Match{});
  CustomPullbacks::Match& found = it->second;
  if (!fresh) return found;
  std::string name = base_name(callee, unit);
  if (name.empty()) return found;
  // A name with values of non-type template arguments (`power_3`) is matched exactly; a template
  // of the plain name (`power_pullback`) is given those values.
  std::string template_name = callee->getIdentifier() && callee->getName() != name ? callee->getName().str() : name;
  std::vector<const NamedDecl*> candidates;
  auto collect = [&](const std::multimap<std::string, const NamedDecl*>& table) {
    for (auto [first, last] = table.equal_range(name + "_pullback"); first != last; ++first)
      candidates.push_back(first->second);
    if (template_name != name)
      for (auto [first, last] = table.equal_range(template_name + "_pullback"); first != last; ++first)
        if (isa<FunctionTemplateDecl>(first->second)) candidates.push_back(first->second);
  };
  // A member function's pullback is in class_functions (Clad's convention, a static one's too,
  // without an object); a static member function is also called as a free function is.
  auto* method = dyn_cast<CXXMethodDecl>(callee);
  if (with_object(callee) || (method && method->isStatic())) collect(custom.members);
  if (!with_object(callee) && candidates.empty()) collect(custom.free);
  std::vector<Slot> slots = call_signature(callee, unit);
  if (candidates.empty()) {
    found.pullback = numerical_pullback(callee, slots, custom);
    return found;
  }
  // Clad's signature has an adjoint for integer parameters too: tried after adjc's.
  std::vector<Slot> clad_slots = call_signature(callee, unit, /*integer_adjoints=*/true);
  const NamedDecl* first = nullptr;  // the first that does not fit but was written for callee
  for (const NamedDecl* candidate : candidates) {
    for (const std::vector<Slot>* tried : {&slots, &clad_slots}) {
      if (tried == &clad_slots && clad_slots.size() == slots.size()) break;
      const FunctionDecl* pullback = dyn_cast<FunctionDecl>(candidate);
      if (auto* t = dyn_cast<FunctionTemplateDecl>(candidate))
        pullback = custom.sema ? specialize(t, callee, *tried, *custom.sema) : nullptr;
      if (pullback && takes(pullback, *tried)) {
        found.pullback = pullback;
        found.integer_adjoints = tried == &clad_slots;
        return found;
      }
      if (!first && tried == &slots && written_for(candidate, pullback, callee, slots, unit)) first = candidate;
    }
  }
  if (match_stateful(candidates, name, callee, slots, unit, found)) return found;
  if (!first) return found;
  std::string qualified = first->getQualifiedNameAsString();
  PrintingPolicy policy = callee->getASTContext().getPrintingPolicy();
  std::string called = first->getName().str();
  if (isa<FunctionTemplateDecl>(first) && callee->getTemplateSpecializationArgs()) {
    llvm::raw_string_ostream os(called);
    printTemplateArgumentList(os, callee->getTemplateSpecializationArgs()->asArray(), policy);
  }
  found.mismatch =
      Message{Diag::custom_pullback_mismatch,
              {qualified, place(first), callee->getQualifiedNameAsString(), signature(called, slots, policy)}};
  return found;
}

}  // namespace

const FunctionDecl* custom_pullback(const FunctionDecl* callee, const UnitFacts& unit) {
  return match(callee, unit).pullback;
}

std::optional<Message> custom_pullback_mismatch(const FunctionDecl* callee, const UnitFacts& unit) {
  return match(callee, unit).mismatch;
}

bool custom_pullback_leaves_unread(const FunctionDecl* callee, size_t i, const UnitFacts& unit) {
  // A member function's pullback takes the object first; a template's body is not instantiated
  // until the generated code calls it.
  if (isa<CXXMethodDecl>(callee) || i >= callee->getNumParams()) return false;
  const FunctionDecl* pullback = custom_pullback(callee, unit);
  if (!pullback || pullback->getTemplatedKind() != FunctionDecl::TK_NonTemplate) return false;
  const FunctionDecl* definition = pullback->getDefinition();
  if (!definition || !definition->hasBody() || i >= definition->getNumParams()) return false;
  const ParmVarDecl* param = definition->getParamDecl(unsigned(i));
  return !param->isReferenced() && !param->isUsed();
}

bool custom_pullback_takes_integer_adjoints(const FunctionDecl* callee, const UnitFacts& unit) {
  return match(callee, unit).integer_adjoints;
}

const FunctionDecl* custom_reverse_forw(const FunctionDecl* callee, const UnitFacts& unit, QualType* state) {
  const CustomPullbacks::Match& found = match(callee, unit);
  if (state) *state = found.state;
  return found.reverse_forw;
}

bool integer_like_parameter(QualType t) {
  t = t.getCanonicalType();
  if (t->isPointerType() || t->isReferenceType()) t = t->getPointeeType().getCanonicalType();
  return t->isIntegralOrEnumerationType();
}

}  // namespace adjc
