// The derivative rules (derivatives.hpp), and the values the reverse sweep needs (needed_values).
#include <clang/AST/Expr.h>

#include <algorithm>
#include <map>

#include "derivatives.hpp"
#include "print.hpp"

namespace adjc {

using namespace clang;

namespace {

// Unary and binary arithmetic, casts, conditionals.
std::optional<DerivativeRule> operator_rule(const Expr* e) {
  if (auto* u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == UO_Minus) return DerivativeRule{{u->getSubExpr()}, {"-{adj}"}, "", 0, 0, {{}}, {}};
    if (u->getOpcode() == UO_Plus) return DerivativeRule{{u->getSubExpr()}, {"{adj}"}, "", 0, 0, {{}}, {}};
    return std::nullopt;
  }
  if (auto* b = dyn_cast<BinaryOperator>(e)) {
    std::vector<const Expr*> lr = {b->getLHS(), b->getRHS()};
    switch (b->getOpcode()) {
      case BO_Add: return DerivativeRule{lr, {"{adj}", "{adj}"}, "", 0, 0, {{}, {}}, {}};
      case BO_Sub: return DerivativeRule{lr, {"{adj}", "-{adj}"}, "", 0, 0, {{}, {}}, {}};
      case BO_Mul: return DerivativeRule{lr, {"{adj} * {1}", "{0} * {adj}"}, "", 0, 0, {{1}, {0}}, {}};
      case BO_Div: return DerivativeRule{lr, {"{adj} / {1}", "-{adj} * {0} / ({1} * {1})"}, "", 0, 0, {{}, {0}}, {1}};
      default: return std::nullopt;
    }
  }
  if (auto* c = dyn_cast<ConditionalOperator>(e))
    return DerivativeRule{{c->getCond(), c->getTrueExpr(), c->getFalseExpr()}, {}, "{0}", 1, 2, {{}, {}, {}}, {0}};
  if (auto* c = dyn_cast<ExplicitCastExpr>(e)) return DerivativeRule{{c->getSubExpr()}, {"{adj}"}, "", 0, 0, {{}}, {}};
  return std::nullopt;
}

// The library's math and algorithm functions adjc differentiates by rule (docs/adjc.md, "Library
// functions"): name (C spelling; `f`/`l`-suffixed C names and std:: overloads map to it), arity,
// and the adjoint each argument receives, or a choice (`condition`: argument `chosen` receives
// {adj}, otherwise `other`). An empty partial: the argument receives nothing (zero derivative).
// Ties of max/min give the adjoint to the argument the function returns (std::max(a, b) and
// std::min(a, b) return a when a == b).
struct MathRule {
  MathFn fn;
  int arity;
  std::vector<std::string> partials;
  std::string condition;
  int chosen = 0, other = 1;
};

const std::map<std::string, MathRule>& math_rules() {
  static const std::map<std::string, MathRule> rules = {
      {"exp", {MathFn::Exp, 1, {"{adj} * {value}"}, ""}},
      {"exp2", {MathFn::Exp2, 1, {"{adj} * {value} * {lit:0.69314718055994531}"}, ""}},
      {"expm1", {MathFn::Expm1, 1, {"{adj} * ({value} + {lit:1})"}, ""}},
      {"log", {MathFn::Log, 1, {"{adj} / {0}"}, ""}},
      {"log2", {MathFn::Log2, 1, {"{adj} / ({0} * {lit:0.69314718055994531})"}, ""}},
      {"log10", {MathFn::Log10, 1, {"{adj} / ({0} * {lit:2.3025850929940457})"}, ""}},
      {"log1p", {MathFn::Log1p, 1, {"{adj} / ({lit:1} + {0})"}, ""}},
      {"sqrt", {MathFn::Sqrt, 1, {"{adj} / ({lit:2} * {value})"}, ""}},
      {"cbrt", {MathFn::Cbrt, 1, {"{adj} / ({lit:3} * {value} * {value})"}, ""}},
      {"pow", {MathFn::Pow, 2, {"{adj} * {1} * std::pow({0}, {1} - {lit:1})", "{adj} * {value} * std::log({0})"}, ""}},
      {"hypot", {MathFn::Hypot, 2, {"{adj} * {0} / {value}", "{adj} * {1} / {value}"}, ""}},
      {"sin", {MathFn::Sin, 1, {"{adj} * std::cos({0})"}, ""}},
      {"cos", {MathFn::Cos, 1, {"-{adj} * std::sin({0})"}, ""}},
      {"tan", {MathFn::Tan, 1, {"{adj} * ({lit:1} + {value} * {value})"}, ""}},
      {"asin", {MathFn::Asin, 1, {"{adj} / std::sqrt({lit:1} - {0} * {0})"}, ""}},
      {"acos", {MathFn::Acos, 1, {"-{adj} / std::sqrt({lit:1} - {0} * {0})"}, ""}},
      {"atan", {MathFn::Atan, 1, {"{adj} / ({lit:1} + {0} * {0})"}, ""}},
      {"atan2",
       {MathFn::Atan2, 2, {"{adj} * {1} / ({0} * {0} + {1} * {1})", "-{adj} * {0} / ({0} * {0} + {1} * {1})"}, ""}},
      {"sinh", {MathFn::Sinh, 1, {"{adj} * std::cosh({0})"}, ""}},
      {"cosh", {MathFn::Cosh, 1, {"{adj} * std::sinh({0})"}, ""}},
      {"tanh", {MathFn::Tanh, 1, {"{adj} * ({lit:1} - {value} * {value})"}, ""}},
      {"asinh", {MathFn::Asinh, 1, {"{adj} / std::sqrt({0} * {0} + {lit:1})"}, ""}},
      {"acosh", {MathFn::Acosh, 1, {"{adj} / std::sqrt({0} * {0} - {lit:1})"}, ""}},
      {"atanh", {MathFn::Atanh, 1, {"{adj} / ({lit:1} - {0} * {0})"}, ""}},
      {"erf", {MathFn::Erf, 1, {"{adj} * {lit:1.1283791670955126} * std::exp(-{0} * {0})"}, ""}},
      {"erfc", {MathFn::Erfc, 1, {"-{adj} * {lit:1.1283791670955126} * std::exp(-{0} * {0})"}, ""}},
      // The complete elliptic integrals K(k) and E(k): K' = (E - (1 - k^2) K) / (k (1 - k^2)), E' = (E - K) / k.
      {"comp_ellint_1",
       {MathFn::CompEllint1, 1,
        {"{adj} * (std::comp_ellint_2({0}) - ({lit:1} - {0} * {0}) * {value}) / ({0} * ({lit:1} - {0} * {0}))"},
        ""}},
      {"comp_ellint_2", {MathFn::CompEllint2, 1, {"{adj} * ({value} - std::comp_ellint_1({0})) / {0}"}, ""}},
      {"fma", {MathFn::Fma, 3, {"{adj} * {1}", "{0} * {adj}", "{adj}"}, ""}},
      {"copysign", {MathFn::Copysign, 2, {"(std::signbit({0}) == std::signbit({1}) ? {adj} : -{adj})", ""}, ""}},
      // fmod(x, y) = x - trunc(x / y) y; remainder(x, y) = x - nearest(x / y) y; fdim(x, y) = max(x - y, 0).
      {"fmod", {MathFn::Fmod, 2, {"{adj}", "-{adj} * std::trunc({0} / {1})"}, ""}},
      {"remainder", {MathFn::Remainder, 2, {"{adj}", "-{adj} * std::nearbyint({0} / {1})"}, ""}},
      {"fdim", {MathFn::Fdim, 2, {"({0} > {1} ? {adj} : {lit:0})", "({0} > {1} ? -{adj} : {lit:0})"}, ""}},
      // x 2^e: the integer exponent takes no part.
      {"ldexp", {MathFn::Ldexp, 2, {"std::ldexp({adj}, {1})", ""}, ""}},
      {"scalbn", {MathFn::Ldexp, 2, {"std::scalbn({adj}, {1})", ""}, ""}},
      {"floor", {MathFn::Floor, 1, {""}, ""}},
      {"rint", {MathFn::Round, 1, {""}, ""}},
      {"nearbyint", {MathFn::Round, 1, {""}, ""}},
      {"ceil", {MathFn::Ceil, 1, {""}, ""}},
      {"round", {MathFn::Round, 1, {""}, ""}},
      {"trunc", {MathFn::Trunc, 1, {""}, ""}},
      // |x|' at 0 is taken as 0 (as PyTorch and JAX do): the smallest subgradient. With 1, an
      // iteration that lands exactly on the kink (u += |...| converging onto 0) doubles the adjoint
      // at every step after it.
      {"fabs", {MathFn::Fabs, 1, {"({0} < {lit:0} ? -{adj} : {lit:0} < {0} ? {adj} : {lit:0})"}, ""}},
      {"abs", {MathFn::Fabs, 1, {"({0} < {lit:0} ? -{adj} : {lit:0} < {0} ? {adj} : {lit:0})"}, ""}},
      {"fmax", {MathFn::Fmax, 2, {}, "{0} >= {1}"}},
      {"fmin", {MathFn::Fmin, 2, {}, "{0} <= {1}"}},
      {"max", {MathFn::Max, 2, {}, "!({0} < {1})"}},
      {"min", {MathFn::Min, 2, {}, "!({1} < {0})"}},
      // std::clamp(v, lo, hi) returns lo when v < lo, else hi when hi < v, else v.
      {"clamp",
       {MathFn::Clamp, 3,
        {"({0} < {1} || {2} < {0} ? {lit:0} : {adj})", "({0} < {1} ? {adj} : {lit:0})",
         "(!({0} < {1}) && {2} < {0} ? {adj} : {lit:0})"},
        ""}},
  };
  return rules;
}

// The rule of a call to a library math function, by name: `expf`, `std::exp`, `exp`,
// `__builtin_exp` all find "exp"; max, min and clamp only in namespace std (the C library has none).
const MathRule* math_rule_of(const CallExpr* call) {
  const FunctionDecl* f = call->getDirectCallee();
  if (!f || !f->getIdentifier() || isa<CXXMethodDecl>(f) || !(is_library(f) || f->getBuiltinID() != 0)) return nullptr;
  const DeclContext* dc = f->getDeclContext()->getRedeclContext();
  while (dc->isInlineNamespace()) dc = dc->getParent()->getRedeclContext();
  bool in_std = dc->isStdNamespace() || (dc->isNamespace() && cast<NamespaceDecl>(dc)->getName() == "__gnu_cxx");
  if (!in_std && !dc->isTranslationUnit()) return nullptr;
  // Integer overloads (std::abs(int), std::max(int, int)) have no derivative and need none.
  if (!is_floating(call->getType())) return nullptr;
  // The rules are of numbers: std::abs of a std::complex (a floating result too) has a custom pullback.
  for (const Expr* arg : call->arguments())
    if (!arg->getType()->isArithmeticType()) return nullptr;
  std::string name = f->getName().str();
  if (name.rfind("__builtin_", 0) == 0) name.erase(0, 10);
  auto it = math_rules().find(name);
  if (it == math_rules().end() && name.size() > 1 && (name.back() == 'f' || name.back() == 'l'))
    it = math_rules().find(name.substr(0, name.size() - 1));
  if (it == math_rules().end() || int(call->getNumArgs()) != it->second.arity) return nullptr;
  MathFn m = it->second.fn;
  if (!in_std && (m == MathFn::Max || m == MathFn::Min || m == MathFn::Clamp)) return nullptr;
  return &it->second;
}

// Math functions. The reverse keeps every argument's value readable, whether or not its
// derivative reads it.
std::optional<DerivativeRule> math_rule(const CallExpr* call) {
  const MathRule* m = math_rule_of(call);
  if (!m) return std::nullopt;
  DerivativeRule rule;
  rule.operands.assign(call->arg_begin(), call->arg_end());
  for (size_t i = 0; i < rule.operands.size(); ++i) rule.always.push_back(int(i));
  rule.needs.resize(rule.operands.size());
  rule.partials = m->partials;
  rule.condition = m->condition;
  rule.chosen = m->chosen;
  rule.other = m->other;
  for (const std::string& p : m->partials) rule.needs_value |= p.find("{value}") != std::string::npos;
  return rule;
}

}  // namespace

MathFn math_function(const CallExpr* call) {
  const MathRule* m = math_rule_of(call);
  return m ? m->fn : MathFn::None;
}

std::optional<DerivativeRule> derivative_rule(const Expr* e) {
  if (auto* call = dyn_cast<CallExpr>(e)) return math_rule(call);
  return operator_rule(e);
}

std::vector<int> differentiated_operands(const DerivativeRule& rule) {
  if (!rule.condition.empty()) return {rule.chosen, rule.other};
  std::vector<int> out;
  for (size_t i = 0; i < rule.partials.size(); ++i)
    if (!rule.partials[i].empty()) out.push_back(int(i));
  return out;
}

std::string expand_rule(const std::string& pattern, const std::string& adj,
                        const std::function<std::string(std::size_t)>& operand, const std::function<std::string()>& value,
                        QualType t) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') {
      out += pattern[i];
      continue;
    }
    size_t end = pattern.find('}', i);
    std::string name = pattern.substr(i + 1, end - i - 1);
    if (name == "adj") out += adj;
    else if (name == "value") out += value();
    else if (name.rfind("lit:", 0) == 0) out += literal(std::stod(name.substr(4)), t);
    else out += operand(std::stoul(name));
    i = end;
  }
  return out;
}

void needed_values(const FunctionIR& ir, const Activity& act, const Expr* e, std::vector<const Expr*>& out) {
  e = strip(e, ir.unit);
  if (!reads_varied(ir, act, e)) return;
  std::optional<DerivativeRule> rule = derivative_rule(e);
  if (!rule) return;
  std::vector<int> needed = rule->always;
  for (size_t i = 0; i < rule->operands.size(); ++i)
    if (reads_varied(ir, act, rule->operands[i]))
      needed.insert(needed.end(), rule->needs[i].begin(), rule->needs[i].end());
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  for (int i : needed) out.push_back(rule->operands[i]);
  for (int i : differentiated_operands(*rule)) needed_values(ir, act, rule->operands[i], out);
}

}  // namespace adjc
