// Vector forward mode (tangent.hpp): the same pushforward with each tangent an
// adjoint::tangent_vector<T, N> of N directions (include/adjoint/tangent_vector.hpp), so one sweep
// carries N columns of a Jacobian and the compiler can keep each tangent in SIMD registers. Only the
// tangents' types and the pushforwards' names differ from scalar mode (emit_pushforward.cpp).
#include "tangent.hpp"

namespace adjc {

using namespace clang;

namespace {

// `::adjoint::tangent_vector<T, N>` for a floating T; "" otherwise.
std::string lane_type(QualType element, int lanes, const TypePrinter& types) {
  if (!is_floating(element)) return "";
  return "::adjoint::tangent_vector<" + types.str(element.getUnqualifiedType()) + ", " + std::to_string(lanes) + ">";
}

}  // namespace

std::string vector_pushforward_name(const FunctionDecl* fn, const Mask& mask, int lanes, const UnitFacts& unit) {
  return pushforward_name(fn, mask, unit) + "_v" + std::to_string(lanes);
}

std::string PushforwardEmitter::name_of(const FunctionDecl* fn, const Mask& mask) const {
  return lanes_ ? vector_pushforward_name(fn, mask, lanes_, ir_.unit) : pushforward_name(fn, mask, ir_.unit);
}

std::string PushforwardEmitter::tangent_declaration(QualType t, const std::string& name) const {
  if (!lanes_) return types_.declare(t, name);
  ASTContext& context = ir_.fn->getASTContext();
  std::string extents;
  QualType element = t.getNonReferenceType();
  while (auto* a = context.getAsConstantArrayType(element)) {
    extents += "[" + std::to_string(a->getSize().getZExtValue()) + "]";
    element = a->getElementType();
  }
  std::string lane = lane_type(element, lanes_, types_);
  if (lane.empty()) {
    diags_.error(ir_.fn->getLocation(), Diag::tangent_unsupported_variable,
                 {"vector mode, for a tangent of this type", t.getAsString()});
    return types_.declare(t, name);
  }
  return lane + (name.empty() ? "" : " " + name) + extents;
}

std::string PushforwardEmitter::tangent_parameter(const Var* v, const std::string& name) const {
  bool scalar = v->floating && !v->memory && !v->pointer && !v->reference;
  if (scalar) return tangent_declaration(v->param_type.getUnqualifiedType(), name);
  ASTContext& context = ir_.fn->getASTContext();
  if (!lanes_) return Emitter::adjoint_param(v->param_type, name, types_, context);
  QualType pointee = Emitter::adjoint_pointee(v->param_type, context);
  std::string lane = lane_type(pointee, lanes_, types_);
  if (lane.empty()) {
    diags_.error(ir_.fn->getLocation(), Diag::tangent_unsupported_variable,
                 {"vector mode, for a parameter of this type", v->param_type.getAsString()});
    return Emitter::adjoint_param(v->param_type, name, types_, context);
  }
  return lane + "* " + name;
}

}  // namespace adjc
