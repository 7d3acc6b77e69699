#pragma once
// The derivative rules: for each operation adjc differentiates through (arithmetic, casts,
// conditionals, math functions), the adjoint each operand receives and the primal values the
// reverse sweep needs for it. The tape plan (needed_values: what must still be readable) and
// emission (Emitter::propagate: the code) both read this one table.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "passes.hpp"

namespace adjc {

// How the adjoint `adj` of an expression reaches its operands. Templates are C++ text with
// {adj} (the incoming adjoint), {0}, {1}, ... (the operands' primal values), {value} (the
// expression's own value) and {lit:v} (the literal v in the expression's type).
struct DerivativeRule {
  std::vector<const clang::Expr*> operands;
  // Operand i receives `partials[i]` (empty: nothing).
  std::vector<std::string> partials;
  // A choice instead (`c ? a : b`, fmax, fmin): when `condition` holds, operand `chosen` receives
  // {adj}, otherwise operand `other` does.
  std::string condition;
  int chosen = 0, other = 0;
  // Operands whose values the reverse reads: when operand i varies, those in needs[i]; `always`
  // whenever anything does.
  std::vector<std::vector<int>> needs;
  std::vector<int> always;
  bool needs_value = false;  // the reverse reads the expression's own value ({value})
};

// The rule for a stripped expression `e`; nothing for leaves (variables, memory, calls to
// functions that are not math functions) and for operations that carry no derivative.
std::optional<DerivativeRule> derivative_rule(const clang::Expr* e);

// The operands `rule` receives an adjoint through (a choice: both alternatives).
std::vector<int> differentiated_operands(const DerivativeRule& rule);

// `pattern` (a partial or condition of a rule) as C++ text: {adj} is `adj`, {i} is `operand(i)`,
// {value} is `value()` and {lit:v} the literal v of type `t`. The operands and the value are asked
// for only where the pattern names them (printing one may bind a temporary). The partials are linear in {adj}: with
// {adj} an operand's tangent, a partial is that operand's share of the expression's tangent
// (forward mode, emit_pushforward.cpp).
std::string expand_rule(const std::string& pattern, const std::string& adj,
                        const std::function<std::string(std::size_t)>& operand, const std::function<std::string()>& value,
                        clang::QualType t);

}  // namespace adjc
