// The derivative rules (derivatives.hpp), and the values the reverse sweep needs (needed_values).
#include <clang/AST/Expr.h>

#include <algorithm>

#include "derivatives.hpp"

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

// Math functions. The reverse keeps every argument's value readable, whether or not its
// derivative reads it.
std::optional<DerivativeRule> math_rule(const CallExpr* call) {
  MathFn m = math_function(call);
  if (m == MathFn::None) return std::nullopt;
  DerivativeRule rule;
  rule.operands.assign(call->arg_begin(), call->arg_end());
  for (size_t i = 0; i < rule.operands.size(); ++i) rule.always.push_back(int(i));
  rule.needs.resize(rule.operands.size());
  rule.needs_value = m == MathFn::Exp || m == MathFn::Sqrt || m == MathFn::Tanh || m == MathFn::Pow;
  auto partial = [&](std::string text) { rule.partials = {text}; };
  switch (m) {
    case MathFn::Exp: partial("{adj} * {value}"); break;
    case MathFn::Log: partial("{adj} / {0}"); break;
    case MathFn::Sqrt: partial("{adj} / ({lit:2} * {value})"); break;
    case MathFn::Tanh: partial("{adj} * ({lit:1} - {value} * {value})"); break;
    case MathFn::Sin: partial("{adj} * std::cos({0})"); break;
    case MathFn::Cos: partial("-{adj} * std::sin({0})"); break;
    case MathFn::Erf: partial("{adj} * {lit:1.1283791670955126} * std::exp(-{0} * {0})"); break;
    case MathFn::Fabs: partial("({0} < {lit:0} ? -{adj} : {adj})"); break;
    case MathFn::Pow:
      rule.partials = {"{adj} * {1} * std::pow({0}, {1} - {lit:1})", "{adj} * {value} * std::log({0})"};
      break;
    case MathFn::Fmax: rule.condition = "{0} >= {1}", rule.chosen = 0, rule.other = 1; break;
    case MathFn::Fmin: rule.condition = "{0} <= {1}", rule.chosen = 0, rule.other = 1; break;
    case MathFn::None: break;
  }
  return rule;
}

}  // namespace

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

void needed_values(const FunctionIR& ir, const Activity& act, const Expr* e, std::vector<const Expr*>& out) {
  e = strip(e);
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
