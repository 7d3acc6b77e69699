// A Hessian request (tangent.hpp, hessian_request): `adjoint::hessian(f, "x, y")` or
// `(f, "a[0:n]")`, `adjoint::hessian_diagonal`, `adjoint::hessian_vector(f, "a")`. This stage
// generates the first derivatives a request needs and replaces it with requests of the next stage
// (nesting.hpp) combined by adjoint/hessian.hpp: rows are gradients of first derivatives (reverse
// over forward), the diagonal second derivatives (forward over forward).
#include <clang/AST/ExprCXX.h>

#include "tangent.hpp"

namespace adjc {

using namespace clang;

namespace {

enum class HessianKind { Full, Diagonal, Vector };

std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

// What a Hessian request names: scalar parameters, or one array parameter and (for the full matrix
// and the diagonal) the length of its range `a[0:n]`.
struct HessianSpec {
  std::vector<std::string> scalars;
  std::string array;
  long length = 0;
};

// Reads `text` into `spec`; false (reported) when it is neither form.
bool read_spec(const FunctionDecl* fn, const std::string& text, HessianKind kind, HessianSpec& spec, Diagnostics& diags,
               SourceLocation at) {
  std::vector<std::string> items;
  for (size_t start = 0; start <= text.size();) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    items.push_back(trimmed(text.substr(start, comma - start)));
    start = comma + 1;
  }
  for (const std::string& item : items) {
    size_t open = item.find('[');
    TangentSeed seed;
    if (open == std::string::npos) {
      if (!parse_seed(fn, item, seed, diags, at)) return false;
      QualType t = ad_params(fn)[seed.param].type.getNonReferenceType();
      if (is_floating(t) && kind != HessianKind::Vector) {
        spec.scalars.push_back(item);
        continue;
      }
      if (kind == HessianKind::Vector && items.size() == 1 && !is_floating(t)) {
        spec.array = item;
        continue;
      }
    } else if (items.size() == 1 && item.back() == ']' && item.compare(open + 1, 2, "0:") == 0) {
      const std::string length = item.substr(open + 3, item.size() - open - 4);
      if (!length.empty() && length.size() < 7 && length.find_first_not_of("0123456789") == std::string::npos &&
          std::stol(length) > 0 && parse_seed(fn, trimmed(item.substr(0, open)), seed, diags, at)) {
        spec.array = trimmed(item.substr(0, open));
        spec.length = std::stol(length);
        continue;
      }
      if (diags.failed()) return false;
    }
    diags.error(at, Diag::hessian_parameters_unsupported, {quoted(item)});
    return false;
  }
  return true;
}

// The first derivative of `fn` along `name` generated; its qualified name, "" after an error.
std::string first_derivative(const FunctionDecl* fn, const std::string& name, TangentGenerator& tangents,
                             Diagnostics& diags, SourceLocation at, std::string& declaration) {
  TangentSeed seed;
  if (!parse_seed(fn, name, seed, diags, at)) return "";
  GeneratedGradient g;
  {
    Diagnostics::InDerivative requested(diags, fn, nullptr, at);
    g = tangents.request(fn, seed, at);
  }
  if (diags.failed() || g.declaration.empty()) return "";
  declaration += g.declaration;
  return g.qualified_name;
}

}  // namespace

std::string hessian_request(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags, TangentGenerator& tangents,
                            std::string& declaration) {
  const FunctionDecl* fn = derivative_target(call, unit, diags);
  if (!fn) return "";
  const SourceLocation at = call->getBeginLoc();
  const std::string callee = call->getDirectCallee()->getName().str();
  const HessianKind kind = callee == "hessian_diagonal" ? HessianKind::Diagonal
                           : callee == "hessian_vector" ? HessianKind::Vector
                                                        : HessianKind::Full;
  auto* lit = call->getNumArgs() < 2 ? nullptr : dyn_cast<StringLiteral>(strip(call->getArg(1), unit));
  if (!lit) {
    diags.error(call->getNumArgs() < 2 ? at : call->getArg(1)->getBeginLoc(), Diag::request_parameters_not_literal);
    return "";
  }
  HessianSpec spec;
  if (!read_spec(fn, lit->getString().str(), kind, spec, diags, at)) return "";
  const std::string f = qualifier(fn) + fn->getNameAsString();
  std::string parts;
  if (kind == HessianKind::Diagonal) {
    // Forward over forward: no derivative generated in this stage.
    if (!spec.array.empty())
      return "(::adjoint::detail::hessian_diagonal_of_array<" + std::to_string(spec.length) +
             ">(::adjoint::derivative<2>(" + f + ", \"" + spec.array + "\")))";
    for (const std::string& x : spec.scalars)
      parts += std::string(parts.empty() ? "" : ", ") + "::adjoint::derivative<2>(" + f + ", \"" + x + "\")";
    return "(::adjoint::detail::hessian_diagonal_of_scalars(" + parts + "))";
  }
  if (!spec.array.empty()) {
    std::string d = first_derivative(fn, spec.array, tangents, diags, at, declaration);
    if (d.empty()) return "";
    std::string gradient = "::adjoint::gradient(" + d + ", \"" + spec.array + "\")";
    if (kind == HessianKind::Vector) return "(" + gradient + ")";
    return "(::adjoint::detail::hessian_of_array<" + std::to_string(spec.length) + ">(" + gradient + "))";
  }
  std::string all;
  for (const std::string& x : spec.scalars) all += (all.empty() ? "" : ", ") + x;
  for (const std::string& x : spec.scalars) {
    std::string d = first_derivative(fn, x, tangents, diags, at, declaration);
    if (d.empty()) return "";
    parts += std::string(parts.empty() ? "" : ", ") + "::adjoint::gradient(" + d + ", \"" + all + "\")";
  }
  return "(::adjoint::detail::hessian_of_scalars(" + parts + "))";
}

}  // namespace adjc
