// A Jacobian request (`adjoint::jacobian(f, "x, y")`, Clad's `clad::jacobian(f)`): the inputs the
// list names, the outputs (the parameters f writes, then its floating result), and the expression
// that replaces the request: an adjoint::jacobian_function (include/adjoint/jacobian.hpp) holding
// f's pushforward (one sweep per column) and its pullback (one per row), each generated for the
// inputs and outputs together by the existing generators, and a description of each parameter.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <functional>

#include "containers.hpp"
#include "emit.hpp"
#include "tangent.hpp"

namespace adjc {

using namespace clang;

namespace {

enum class Role { constant, passive, input, output, input_output };
enum class Form { scalar, elements, object };

struct JacobianParam {
  const Var* var;
  Role role = Role::constant;
  Form form = Form::scalar;
  unsigned long length = 0;
  bool read = true;  // f may read the values execute finds there (an output: restored before each sweep)
};

// The parameters whose values a body may read: every use of one but as the array (or reference)
// an `=` assigns to (`y[i] = ...`), a pointer passed on or aliased included.
class ReadParams : public RecursiveASTVisitor<ReadParams> {
 public:
  std::set<const ParmVarDecl*> read;
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->getOpcode() == BO_Assign) assigned.insert(assigned_param(b->getLHS()));
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr* e) {
    auto* p = dyn_cast<ParmVarDecl>(e->getDecl());
    if (p && !assigned.count(e)) read.insert(p);
    return true;
  }

 private:
  std::set<const DeclRefExpr*> assigned;  // visited before the DeclRefExprs they hold (pre-order)
  static const DeclRefExpr* assigned_param(const Expr* target) {
    target = target->IgnoreParenImpCasts();
    if (auto* a = dyn_cast<ArraySubscriptExpr>(target)) target = a->getBase()->IgnoreParenImpCasts();
    return dyn_cast<DeclRefExpr>(target);
  }
};

// The length of pointer parameter `p` when `body` uses it only as `p[k]` with constant indices k
// (`out[0] = a; out[1] = b;`): one past the largest, as no other element can be reached; else 0.
unsigned long constant_extent(const Stmt* body, const ParmVarDecl* p) {
  long largest = -1;
  bool other = false;
  auto names_p = [&](const Expr* e) {
    auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == p;
  };
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s || other) return;
    if (auto* u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_AddrOf)
      if (auto* a = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()); a && names_p(a->getBase())) {
        other = true;  // `&p[k]` reaches the elements beyond k
        return;
      }
    if (auto* a = dyn_cast<ArraySubscriptExpr>(s); a && names_p(a->getBase())) {
      Expr::EvalResult index;
      if (!a->getIdx()->EvaluateAsInt(index, p->getASTContext()) || index.Val.getInt().isNegative() ||
          index.Val.getInt().getActiveBits() > 31) {
        other = true;
        return;
      }
      largest = std::max(largest, long(index.Val.getInt().getExtValue()));
      return;
    }
    if (auto* ref = dyn_cast<DeclRefExpr>(s); ref && ref->getDecl() == p) other = true;
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(body);
  return other || largest < 0 ? 0 : (unsigned long)(largest + 1);
}

// The parameters the list names, by name or position (one flag per ad_params entry; the first
// `first` parameters, a closure's captures, are not named); none with `all` set when there is no list.
bool requested_inputs(const CallExpr* call, const FunctionDecl* fn, unsigned first, const UnitFacts& unit,
                      Diagnostics& diags, std::vector<bool>& inputs, bool& all) {
  const unsigned object = with_object(fn) ? 1 : 0;
  inputs.assign(fn->getNumParams() + object, false);
  const Expr* spec = call->getNumArgs() < 2 ? nullptr : strip(call->getArg(1), unit);
  if (!spec || isa<CXXDefaultArgExpr>(call->getArg(1))) return all = true;
  auto* lit = dyn_cast<StringLiteral>(spec);
  if (!lit) {
    diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameters_not_literal);
    return false;
  }
  std::string list = lit->getString().str();
  all = list.find_first_not_of(" \t,") == std::string::npos;
  for (size_t start = 0; start < list.size();) {
    size_t comma = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, comma - start);
    start = comma + 1;
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name.empty()) continue;
    bool position = name.find_first_not_of("0123456789") == std::string::npos;
    bool found = false;
    for (unsigned i = first; i < fn->getNumParams() && !found; ++i)
      if (position ? name.size() <= 4 && std::stoul(name) == i - first : fn->getParamDecl(i)->getName() == name)
        found = inputs[i + object] = true;
    if (found) continue;
    if (position)
      diags.error(call->getBeginLoc(), Diag::request_no_parameter_at_position,
                  {quoted(fn->getNameAsString()), name, std::to_string(fn->getNumParams() - first)});
    else
      diags.error(call->getBeginLoc(), Diag::request_no_parameter_named, {quoted(fn->getNameAsString()), quoted(name)});
    return false;
  }
  return true;
}

// Each parameter's role and how its tangent is passed; false (reported) for what a Jacobian does
// not handle. The first `bound` parameters (a function object, a closure's captures) are passive.
bool describe(const FunctionState& state, const std::vector<bool>& listed, bool all, unsigned bound,
              std::vector<JacobianParam>& out, Diagnostics& diags, SourceLocation at) {
  const FunctionIR& ir = *state.ir;
  ASTContext& context = state.context;
  ReadParams read;
  read.TraverseStmt(const_cast<Stmt*>(ir.fn->getBody()));
  for (const Var* v : ir.params) {
    JacobianParam p{v};
    out.push_back(p);
    if (!v->differentiable) continue;
    JacobianParam& d = out.back();
    bool scalar = v->floating && !v->memory && !v->pointer && !v->reference;
    QualType pointee = Emitter::adjoint_pointee(v->param_type, context);
    bool written = !scalar && state.written.count(const_cast<Var*>(v));
    bool in = all ? !written : listed[v->param_index];
    d.role = in && written ? Role::input_output : in ? Role::input : written ? Role::output : Role::passive;
    if (unsigned(v->param_index) < bound) d.role = Role::passive;
    d.form = scalar                                                ? Form::scalar
             : is_floating(pointee) && v->pointer && !v->reference ? Form::elements
                                                                   : Form::object;
    if (auto* decl = dyn_cast_or_null<ParmVarDecl>(v->decl)) {
      d.length = fixed_length(decl, context);
      if (d.length == 0 && d.form == Form::elements) d.length = constant_extent(ir.fn->getBody(), decl);
      d.read = read.read.count(decl) > 0;
    }
    if (d.role == Role::passive || scalar) continue;
    bool numbers = is_floating(pointee) || (is_container(pointee) && d.length > 0) ||
                   (is_container(pointee) && pointee->getAsCXXRecordDecl()->getName() == "vector");
    if (pointee->isArrayType() || !numbers) {
      diags.error(at, Diag::jacobian_parameter_unsupported,
                  {quoted(v->source_name()), quoted(v->param_type.getAsString())});
      return false;
    }
  }
  return true;
}

// At most one pointer of unknown length among the inputs and one among the outputs (the matrix's
// shape gives it); false (reported) otherwise.
bool lengths_known(const std::vector<JacobianParam>& params, const FunctionDecl* fn, Diagnostics& diags,
                   SourceLocation at) {
  for (bool inputs : {true, false}) {
    std::vector<std::string> unknown;
    for (const JacobianParam& p : params) {
      bool side = inputs ? p.role == Role::input || p.role == Role::input_output
                         : p.role == Role::output || p.role == Role::input_output;
      if (side && p.form == Form::elements && p.length == 0) unknown.push_back(quoted(p.var->source_name()));
    }
    if (unknown.size() > 1) {
      diags.error(at, Diag::jacobian_lengths_unknown, {unknown[0], unknown[1], quoted(fn->getNameAsString())});
      return false;
    }
  }
  return true;
}

// Directions per forward sweep: vector mode's lanes when every tangent is of floating scalars
// (a std::vector's or std::array's tangent is one object, and so is a struct's, a function
// object's that stays zero: scalar mode, one column per sweep).
int jacobian_lanes(const std::vector<JacobianParam>& params, ASTContext& context) {
  constexpr int lanes = 4;
  for (const JacobianParam& p : params) {
    if (p.role == Role::constant || p.form != Form::object) continue;
    QualType pointee = Emitter::adjoint_pointee(p.var->param_type, context);
    if (p.role == Role::passive ? pointee->isRecordType() && !is_container(pointee) : !is_floating(pointee)) return 0;
  }
  return lanes;
}

// Vector mode's checks: f's result is its only output, and no input is a std::vector.
bool vector_derivative_checks(const std::vector<JacobianParam>& params, const FunctionDecl* fn, bool result_row,
                              Diagnostics& diags, SourceLocation at) {
  if (!result_row) {
    diags.error(at, Diag::derivative_result_not_floating, {quoted(fn->getNameAsString())});
    return false;
  }
  for (const JacobianParam& p : params) {
    if (p.role == Role::output || p.role == Role::input_output) {
      diags.error(at, Diag::vector_mode_writes_parameter,
                  {quoted(p.var->source_name()), quoted(fn->getNameAsString())});
      return false;
    }
    // A pointer's length comes with its derivative's array when execute runs (lengths_known).
    if (p.role == Role::input && p.form == Form::object && p.length == 0) {
      diags.error(at, Diag::vector_mode_length_unknown,
                  {quoted(p.var->source_name()), quoted(p.var->param_type.getAsString())});
      return false;
    }
  }
  return true;
}

// Vector mode's lanes: every input direction in one sweep (up to 64); a pointer's, of a length
// known when execute runs, take `kPointerLanes` lanes, in as many sweeps as its length needs.
int vector_lanes(const std::vector<JacobianParam>& params) {
  constexpr long kPointerLanes = 8;
  long lanes = 0;
  for (const JacobianParam& p : params)
    if (p.role == Role::input) lanes += p.form == Form::scalar ? 1 : p.length > 0 ? long(p.length) : kPointerLanes;
  return int(std::min(lanes, 64L));
}

std::string param_text(const JacobianParam& p) {
  static const char* roles[] = {"constant", "passive", "input", "output", "input_output"};
  static const char* forms[] = {"scalar", "elements", "object"};
  const bool unread_output = !p.read && (p.role == Role::output || p.role == Role::input_output);
  // A scalar's type when it is not double (jacobian.hpp's scalar_type).
  std::string scalar;
  if (p.form == Form::scalar && p.var->floating) {
    const BuiltinType* t = p.var->param_type.getNonReferenceType()->getAs<BuiltinType>();
    if (t && t->getKind() == BuiltinType::Float) scalar = "float_type";
    if (t && t->getKind() == BuiltinType::LongDouble) scalar = "long_double_type";
  }
  return "::adjoint::jacobian_param{::adjoint::jacobian_role::" + std::string(roles[int(p.role)]) +
         ", ::adjoint::tangent_form::" + forms[int(p.form)] + ", " + std::to_string(p.length) +
         (unread_output || !scalar.empty() ? unread_output ? ", false" : ", true" : "") +
         (scalar.empty() ? "" : ", ::adjoint::scalar_type::" + scalar) + "}";
}

// `[](auto&&... a) { return f(a...); }`: the generated function, overloads resolved where it is called.
std::string forwarding_lambda(const std::string& function) {
  return "[](auto&&... _a) { return " + function + "(_a...); }";
}

// Clad's named derivatives, `void f_dvec(<f's params>, <a pointer per input>)` (vector mode) and
// `void f_jac(<f's params>, double* matrix)` (a Jacobian in every parameter), when the user declares
// one beside f (and calls it): defined to run `derivative`, the request's, with the same arguments.
// `extra`: the parameters after f's.
void define_clad_named(const FunctionDecl* fn, const std::string& suffix, size_t extra, const std::string& derivative,
                       TangentGenerator& tangents, const TypePrinter& types) {
  ASTContext& context = fn->getASTContext();
  const std::string name = fn->getNameAsString() + suffix;
  auto id = context.Idents.find(name);
  if (isa<CXXMethodDecl>(fn) || id == context.Idents.end()) return;
  for (const NamedDecl* d : fn->getDeclContext()->getRedeclContext()->lookup(DeclarationName(id->getValue()))) {
    auto* declared = dyn_cast<FunctionDecl>(d);
    if (!declared || declared->isDefined() || declared->getNumParams() != fn->getNumParams() + extra ||
        !declared->getReturnType()->isVoidType())
      continue;
    std::string params, args;
    bool same = true;
    for (unsigned i = 0; i < declared->getNumParams(); ++i) {
      QualType t = declared->getParamDecl(i)->getType();
      same = same &&
             (i < fn->getNumParams() ? context.hasSameType(t, fn->getParamDecl(i)->getType()) : t->isPointerType());
      params += (i ? ", " : "") + types.str(t) + " _p" + std::to_string(i);
      args += (i ? ", _p" : "_p") + std::to_string(i);
    }
    if (same)
      tangents.define(fn, name,
                      "void " + name + "(" + params + ") {\n  " + derivative + ".execute(" + args + ");\n}\n");
  }
}

}  // namespace

bool vector_mode_requested(const CallExpr* call) {
  const TemplateArgumentList* args = call->getDirectCallee()->getTemplateSpecializationArgs();
  if (!args || args->size() == 0) return false;
  const TemplateArgument& first = args->get(0);
  if (first.getKind() == TemplateArgument::Type) {
    const CXXRecordDecl* tag = first.getAsType()->getAsCXXRecordDecl();
    return tag && tag->getQualifiedNameAsString() == "adjoint::vector_mode";
  }
  // Clad's options word: vector_mode is bit 9 (include/clad/Differentiator/CladConfig.h).
  if (first.getKind() == TemplateArgument::Pack)
    for (const TemplateArgument& option : first.pack_elements())
      if (option.getKind() == TemplateArgument::Integral && (option.getAsIntegral().getZExtValue() & (1u << 9)))
        return true;
  return false;
}

std::string jacobian_request(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags, Generator& generator,
                             TangentGenerator& tangents, std::string& declaration, bool vector_derivative) {
  SourceLocation at = call->getBeginLoc();
  RequestedFunction req;
  if (!requested_target(call, unit, diags, Diag::jacobian_target_not_a_function, req)) return "";
  const FunctionDecl* fn = req.fn;
  std::vector<bool> listed;
  bool all = false;
  if (!requested_inputs(call, fn, req.closure_params, unit, diags, listed, all)) return "";
  Diagnostics::InDerivative requested(diags, fn, nullptr, at);
  QualType result = result_type(fn);
  bool result_row = is_floating(result);
  if (!result_row && !result->isVoidType() && !result->isIntegralOrEnumerationType()) {
    diags.error(at, Diag::request_result_not_floating);
    return "";
  }
  const FunctionState* state = generator.planned(fn);
  if (!state || diags.failed()) return "";
  std::vector<JacobianParam> params;
  const unsigned bound = req.closure_params + (with_object(fn) ? 1 : 0);
  if (!describe(*state, listed, all, bound, params, diags, at) || !lengths_known(params, fn, diags, at)) return "";
  if (vector_derivative && !vector_derivative_checks(params, fn, result_row, diags, at)) return "";
  Mask mask(ad_params(fn).size(), false);
  bool inputs = false, outputs = result_row;
  for (const JacobianParam& p : params) {
    if (p.role == Role::constant || p.role == Role::passive) continue;
    mask[p.var->param_index] = true;
    inputs |= p.role != Role::output;
    outputs |= p.role != Role::input;
  }
  if (!inputs || !outputs) {
    diags.error(at, inputs ? Diag::jacobian_no_outputs : Diag::jacobian_no_inputs, {quoted(fn->getNameAsString())});
    return "";
  }
  GeneratedGradient reverse = generator.request(fn, std::vector<bool>(mask.begin(), mask.end()), at);
  if (diags.failed() || reverse.declaration.empty()) return "";
  const int lanes = vector_derivative ? vector_lanes(params) : jacobian_lanes(params, state->context);
  GeneratedGradient forward = tangents.pushforward(fn, mask, lanes);
  if (diags.failed() || forward.declaration.empty()) return "";
  TypePrinter types(state->context);
  Emitter emitter(*state->ir, state->plan, state->loops, state->iteration, types, state->context.getSourceManager());
  auto [open, close] = namespaces(fn);
  std::string pullback = open + "inline " + emitter.reverse_signature(mask, "_pullback") + ";" + close;
  for (char& c : pullback)
    if (c == '\n') c = ' ';
  declaration = reverse.declaration + " " + forward.declaration + " " + pullback;
  std::string roles;
  for (const JacobianParam& p : params) roles += ", " + param_text(p);
  std::string jacobian = "::adjoint::detail::make_jacobian<" + std::string(result_row ? "true" : "false") + ", " +
                         std::to_string(lanes) + roles + ">(" + forwarding_lambda(forward.function_value) + ", " +
                         forwarding_lambda(qualifier(fn) + base_name(fn, unit) + "_pullback") + ", " +
                         forward.source_function + "(), " + reverse.source_function + "())";
  if (!vector_derivative) {
    if (all && !req.callable) define_clad_named(fn, "_jac", 1, jacobian, tangents, types);
    jacobian = "(" + jacobian + ")";  // in parentheses: the request may be a macro's argument
  } else {
    jacobian = "::adjoint::detail::make_vector_derivative(" + jacobian + ")";
    auto is_input = [](const JacobianParam& p) { return p.role == Role::input; };
    if (!req.callable)
      define_clad_named(fn, "_dvec", size_t(std::count_if(params.begin(), params.end(), is_input)), jacobian, tangents,
                        types);
    jacobian = "(" + jacobian + ")";
  }
  return req.callable ? bound_request(req, jacobian) : jacobian;
}

}  // namespace adjc
