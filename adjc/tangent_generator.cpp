// The tangent generator (tangent.hpp): for a derivative request, the pushforward of the requested
// function for its one varied parameter, the pushforwards of the callees it reaches, and the
// derivative function `f_darg<i>` that seeds the tangents and returns the result's.
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "containers.hpp"
#include "nesting.hpp"
#include "tangent.hpp"

namespace adjc {

using namespace clang;

namespace {

std::string without_line_directives(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("#line", 0) != 0) out += line + "\n";
  return out;
}

// Clad's name for the N-th derivative along one parameter (`f_d2arg0`) of adjc's (`f_darg0_darg0`,
// one `_darg<i>` per order); "" for a first derivative, whose names agree, or a mixed one.
std::string clad_order_name(const std::string& name) {
  size_t end = name.size(), order = 0;
  std::string suffix;
  while (end > 0) {
    const size_t at = name.rfind("_darg", end - 1);
    if (at == std::string::npos || at == 0) break;
    const std::string part = name.substr(at, end - at);
    if (part.size() == 5 || part.find_first_not_of("0123456789", 5) != std::string::npos) break;
    if (!suffix.empty() && part != suffix) break;
    suffix = part, end = at, ++order;
  }
  if (order < 2) return "";
  return name.substr(0, end) + "_d" + std::to_string(order) + "arg" + suffix.substr(5);
}

// A definition of the N-th derivative `fn_derivative` (taking `fn`'s parameters) under the name Clad
// gives it, when the unit declares that name without a body with `fn`'s parameter types, as Clad's
// users do to call it (`float f_d2arg0(float x);`); else "".
std::string clad_named_derivative(const FunctionDecl* fn, const std::string& fn_derivative, const TypePrinter& types) {
  const std::string clad_name = clad_order_name(fn_derivative);
  ASTContext& context = fn->getASTContext();
  auto id = clad_name.empty() ? context.Idents.end() : context.Idents.find(clad_name);
  if (isa<CXXMethodDecl>(fn) || id == context.Idents.end()) return "";
  for (const NamedDecl* d : fn->getDeclContext()->getRedeclContext()->lookup(DeclarationName(id->getValue()))) {
    auto* declared = dyn_cast<FunctionDecl>(d);
    if (!declared || declared->isDefined() || declared->getNumParams() != fn->getNumParams() ||
        !declared->getReturnType()->isFloatingType())
      continue;
    std::string params, args;
    bool same = true;
    for (unsigned i = 0; i < fn->getNumParams(); ++i) {
      QualType t = declared->getParamDecl(i)->getType();
      same = same && context.hasSameType(t, fn->getParamDecl(i)->getType());
      params += (i ? ", " : "") + types.str(t) + " _p" + std::to_string(i);
      args += (i ? ", _p" : "_p") + std::to_string(i);
    }
    if (same)
      return types.str(declared->getReturnType()) + " " + clad_name + "(" + params + ") {\n  return " + fn_derivative +
             "(" + args + ");\n}\n";
  }
  return "";
}

// A member function `name` declared in `record` with `method`'s parameter types and constness, and
// `virtual` unless `any`; else nullptr.
const CXXMethodDecl* member_like(const CXXRecordDecl* record, const CXXMethodDecl* method, const IdentifierInfo* name,
                                 bool any) {
  for (const NamedDecl* d : record->lookup(DeclarationName(name))) {
    auto* m = dyn_cast<CXXMethodDecl>(d);
    if (!m || m->getNumParams() != method->getNumParams() || m->isStatic() != method->isStatic() ||
        m->isConst() != method->isConst() || (!any && !m->isVirtual()))
      continue;
    bool same = true;
    for (unsigned i = 0; i < m->getNumParams(); ++i)
      same = same &&
             record->getASTContext().hasSameType(m->getParamDecl(i)->getType(), method->getParamDecl(i)->getType());
    if (same) return m;
  }
  return nullptr;
}

// Under IntegerTangents, the integer scalars of a function's IR taken as floating ones (its integer
// parameters differentiable) for as long as this lives: the IR is lowered once, for both modes.
class IntegerScalars {
 public:
  explicit IntegerScalars(FunctionIR& ir) {
    if (!integer_tangents()) return;
    for (auto& v : ir.vars)
      if (!v->floating && !v->memory && !v->pointer && !v->reference && !v->value && is_integer_number(v->type)) {
        v->floating = true;
        v->differentiable = v->kind == VarKind::Param;
        marked_.push_back(v.get());
      }
  }
  ~IntegerScalars() {
    for (Var* v : marked_) v->floating = v->differentiable = false;
  }
  IntegerScalars(const IntegerScalars&) = delete;
  IntegerScalars& operator=(const IntegerScalars&) = delete;

 private:
  std::vector<Var*> marked_;
};

}  // namespace

unsigned long fixed_length(const ParmVarDecl* p, ASTContext& context) {
  QualType t = p->getOriginalType().getNonReferenceType();
  if (auto* a = context.getAsConstantArrayType(t)) return a->getSize().getZExtValue();
  if (auto* s = dyn_cast_or_null<ClassTemplateSpecializationDecl>(t->getAsCXXRecordDecl());
      s && s->getName() == "array" && s->getTemplateArgs().size() == 2)
    return s->getTemplateArgs()[1].getAsIntegral().getZExtValue();
  return 0;
}

struct TangentGenerator::Impl {
  Generator& planned;
  ASTContext& context;
  const UnitFacts& unit;
  Diagnostics& diags;
  TypePrinter types;
  std::set<const FunctionDecl*> checked;
  std::map<std::pair<const FunctionDecl*, std::string>, std::string> pushforwards;  // (fn, mask) -> definition
  std::map<std::pair<const FunctionDecl*, std::string>, std::string> signatures;    // (fn, mask) -> signature
  std::map<std::pair<const FunctionDecl*, std::string>, std::vector<std::pair<const FunctionDecl*, std::string>>> deps;
  std::vector<std::string> declarations, definitions, sources;
  std::vector<std::pair<const CXXRecordDecl*, std::string>> members;  // member_declarations()
  // Derivative functions already defined, by function: overloads share names (`operator_call_darg0`).
  std::set<std::pair<const FunctionDecl*, std::string>> requested;
  std::set<std::string> source_names;  // the source-text functions

  Impl(Generator& g, ASTContext& c, const UnitFacts& u, Diagnostics& d)
      : planned(g), context(c), unit(u), diags(d), types(c) {}

  // `fn` planned and checked by the tangent passes, once (nullptr when it cannot be differentiated).
  FunctionState* state_of(const FunctionDecl* fn) {
    FunctionState* s = planned.planned(fn);
    if (!s || diags.failed()) return nullptr;
    if (checked.insert(s->ir->fn).second && !planned.run_passes(*s, tangent_passes())) return nullptr;
    return diags.failed() ? nullptr : s;
  }

  std::string wrap(const FunctionDecl* fn, const std::string& text) {
    auto [open, close] = namespaces(fn);
    return open + text + close;
  }

  // The key of a pushforward: the mask, the lanes in vector mode, whether integers carry tangents.
  static std::string key_of(const Mask& m, int lanes) {
    return mask_key(m) + (lanes ? "v" + std::to_string(lanes) : "") + (integer_tangents() ? "i" : "");
  }

  // The pushforwards of `fn` under `mask` and of every callee they call (`lanes` > 0: vector mode).
  bool generate(const FunctionDecl* fn, const Mask& mask, int lanes = 0) {
    std::vector<std::pair<const FunctionDecl*, Mask>> work = {{fn, mask}};
    while (!work.empty()) {
      auto [f, m] = work.back();
      work.pop_back();
      f = f->getDefinition();
      auto key = std::make_pair(f, key_of(m, lanes));
      if (pushforwards.count(key)) continue;                                     // recursion ends here
      if (!lanes && declared_beside(f, pushforward_name(f, m, unit))) continue;  // an earlier stage's
      FunctionState* s = state_of(f);
      if (!s) return false;
      IntegerScalars integers(*s->ir);
      Activity act = analyze_activity(*s->ir, m);
      Emitter names(*s->ir, s->plan, s->loops, s->iteration, types, context.getSourceManager());
      PushforwardEmitter emitter(*s->ir, act, m, types, diags, lanes);
      pushforwards[key] = emitter.definition(names);
      if (diags.failed()) return false;
      signatures[key] = emitter.signature(names);
      declarations.push_back(wrap(f, "inline " + emitter.signature(names) + ";\n"));
      definitions.push_back(wrap(f, pushforwards[key]));
      for (auto& c : emitter.callees) {
        deps[key].push_back({c.fn->getDefinition(), key_of(c.mask, lanes)});
        work.push_back({c.fn, c.mask});
      }
    }
    return true;
  }

  std::string source_of(const std::pair<const FunctionDecl*, std::string>& key,
                        std::set<std::pair<const FunctionDecl*, std::string>>& seen) {
    if (!seen.insert(key).second) return "";
    std::string s = pushforwards[key] + "\n";
    for (auto& d : deps[key]) s += source_of(d, seen);
    return s;
  }

  std::string member_derivative(const FunctionDecl* fn, const std::string& name, const std::string& derivative);

  // The tangent arguments of the request's pushforward call, the declarations of its seeds, and the
  // direction parameter the derivative function takes (for a whole array); false after an error.
  bool seeds(const FunctionIR& ir, const TangentSeed& seed, std::string& args, std::string& setup,
             std::string& direction, SourceLocation where);
  // The tangent of a function object along its data member `seed.field` (or its element), declared
  // as `_seed` in `setup`; each member pointing to numbers points to tangent memory of its own.
  void object_seed(QualType object, const TangentSeed& seed, std::string& setup);
  // The seed of element `element` of array parameter `v`: its declaration in `setup`, the tangent
  // argument in `arg`; false after an error.
  bool element_seed(const Var* v, long element, std::string& setup, std::string& arg, SourceLocation where);
  // The same for member `path` (".x", ".a.x") of struct parameter `v` of `fn`.
  bool member_seed(const FunctionDecl* fn, const Var* v, const std::string& path, std::string& setup, std::string& arg,
                   SourceLocation where);
};

bool TangentGenerator::Impl::member_seed(const FunctionDecl* fn, const Var* v, const std::string& path,
                                         std::string& setup, std::string& arg, SourceLocation where) {
  const QualType object = Emitter::adjoint_pointee(v->param_type, context);
  QualType t = object;
  for (size_t at = 0; at < path.size();) {
    size_t next = std::min(path.find('.', at + 1), path.size());
    const std::string name = path.substr(at + 1, next - at - 1);
    const RecordDecl* record = t->getAsRecordDecl() ? t->getAsRecordDecl()->getDefinition() : nullptr;
    const FieldDecl* field = nullptr;
    if (record)
      for (const FieldDecl* f : record->fields())
        if (f->getName() == name) field = f;
    if (!field) {
      diags.error(where, Diag::request_no_parameter_named,
                  {"'" + fn->getNameAsString() + "'", "'" + v->source_name() + path + "'"});
      return false;
    }
    t = field->getType();
    at = next;
  }
  if (!is_floating(t) || t->isArrayType()) {
    diags.error(where, Diag::derivative_parameter_unsupported,
                {"'" + v->source_name() + path + "'", "'" + t.getAsString() + "'"});
    return false;
  }
  setup += "  " + types.str(object) + " _seed = " + zero_struct(object, types) + ";\n";
  setup += "  _seed" + path + " = " + literal(1, t) + ";\n";
  arg = "&_seed";
  return true;
}

void TangentGenerator::Impl::object_seed(QualType object, const TangentSeed& seed, std::string& setup) {
  setup += "  ::adjoint::detail::zeroed_object<" + types.str(object.getUnqualifiedType()) + "> _seed_object;\n";
  setup += "  auto& _seed = _seed_object.value;\n";
  const std::string element = seed.element >= 0 ? std::to_string(seed.element) : "";
  int count = 0;
  // Tangent memory for what each member pointing to numbers points to, the class's and its bases'
  // (named through their class): of unknown length, as a pointer parameter's.
  std::function<void(const CXXRecordDecl*, const std::string&)> point = [&](const CXXRecordDecl* record,
                                                                            const std::string& owner) {
    for (const FieldDecl* f : record->fields()) {
      QualType t = f->getType();
      if (!t->isPointerType() || !is_floating(t->getPointeeType())) continue;
      const std::string memory = "_seed_memory" + std::to_string(count++);
      setup += "  ::adjoint::detail::unit_direction<" + types.str(t->getPointeeType().getUnqualifiedType()) + "> " +
               memory + (f == seed.field ? "(" + element + ")" : "(0, 0)") + ";\n";
      setup += "  _seed." + owner + f->getNameAsString() + " = " + memory + ".data();\n";
    }
    for (const CXXBaseSpecifier& base : record->bases())
      if (const CXXRecordDecl* b = base.getType()->getAsCXXRecordDecl(); b && b->hasDefinition())
        point(b, types.str(base.getType().getUnqualifiedType()) + "::");
  };
  point(cast<CXXRecordDecl>(seed.field->getParent()), "");
  if (!seed.field->getType()->isPointerType())
    setup += "  _seed." + seed.field->getNameAsString() + (element.empty() ? "" : "[" + element + "]") + " = 1;\n";
}

bool TangentGenerator::Impl::element_seed(const Var* v, long element, std::string& setup, std::string& arg,
                                          SourceLocation where) {
  auto quoted = [](const std::string& s) { return "'" + s + "'"; };
  QualType pointee = Emitter::adjoint_pointee(v->param_type, context);
  const std::string index = std::to_string(element);
  unsigned long n = fixed_length(cast<ParmVarDecl>(v->decl), context);
  if (n == 0 && v->param_type->isPointerType() && is_floating(pointee)) {
    // Of unknown length: a direction longer than any array (include/adjoint/unit_direction.hpp).
    setup +=
        "  ::adjoint::detail::unit_direction<" + types.str(pointee.getUnqualifiedType()) + "> _seed(" + index + ");\n";
    arg = "_seed.data()";
    return true;
  }
  if (n == 0 && is_vector(pointee)) {
    // Its length when the derivative runs.
    setup += "  " + types.str(pointee.getUnqualifiedType()) + " _seed(" + v->name + ".size());\n";
    setup += "  ::adjoint::detail::check_element(" + index + ", _seed.size(), \"" + v->source_name() + "\");\n";
    setup += "  _seed[" + index + "] = 1;\n";
    arg = "&_seed";
    return true;
  }
  if (n == 0) {
    diags.error(where, Diag::derivative_element_of_pointer, {quoted(v->source_name()), quoted(v->source_name())});
    return false;
  }
  if (element >= long(n)) {
    diags.error(where, Diag::request_parameter_unreadable, {quoted(v->source_name() + "[" + index + "]")});
    return false;
  }
  bool whole = pointee->isRecordType();  // a std::array: its tangent is one too
  QualType element_type = whole ? context.DoubleTy : pointee;
  if (whole) setup += "  " + types.str(pointee) + " _seed{};\n";
  else
    setup +=
        "  " +
        types.declare(context.getConstantArrayType(pointee, llvm::APInt(64, n), nullptr, ArraySizeModifier::Normal, 0),
                      "_seed") +
        "{};\n";
  setup += "  _seed[" + index + "] = " + literal(1, element_type) + ";\n";
  arg = whole ? "&_seed" : "_seed";
  return true;
}

bool TangentGenerator::Impl::seeds(const FunctionIR& ir, const TangentSeed& seed, std::string& args, std::string& setup,
                                   std::string& direction, SourceLocation where) {
  auto quoted = [](const std::string& s) { return "'" + s + "'"; };
  for (const Var* v : ir.params) {
    if (!v->differentiable) continue;
    std::string arg;
    bool scalar = v->floating && !v->memory && !v->pointer && !v->reference;
    QualType pointee = Emitter::adjoint_pointee(v->param_type, context);
    if (v->param_index != int(seed.param)) {
      arg = scalar ? literal(0, v->param_type) : "nullptr";
    } else if (!seed.member.empty()) {
      if (!member_seed(ir.fn, v, seed.member, setup, arg, where)) return false;
    } else if (scalar) {
      arg = literal(1, v->param_type);
    } else if (seed.field) {
      object_seed(pointee, seed, setup);
      arg = "&_seed";
    } else if (seed.element < 0 && is_floating(pointee)) {
      if (v->reference) {  // a `const double&`: its tangent through a seed of ours
        setup += "  " + types.str(pointee) + " _seed = " + literal(1, pointee) + ";\n";
        arg = "&_seed";
      } else {
        direction = Emitter::adjoint_param(v->param_type, "_d_" + v->name, types, context);
        arg = "_d_" + v->name;
      }
    } else if (seed.element < 0 && (pointee->isArrayType() || is_container(pointee))) {
      direction = Emitter::adjoint_param(v->param_type, "_d_" + v->name, types, context);
      arg = "_d_" + v->name;
    } else if (seed.element >= 0 && v->decl) {
      if (!element_seed(v, seed.element, setup, arg, where)) return false;
    } else {
      diags.error(where, Diag::derivative_parameter_unsupported,
                  {quoted(v->source_name()), quoted(v->param_type.getAsString())});
      return false;
    }
    args += ", " + arg;
  }
  return true;
}

// Clad's users declare a member function's derivative in its class to call it (`virtual float
// vm_darg0(float x, float y);` beside `vm`): the class's declaration without a body, or, when only a
// base class declares it virtual, an override the request adds to the class (`member`), so that a
// call through a base pointer runs this class's derivative. Its definition calls the generated
// `derivative` (which takes the object first); "" when the class has no such member.
std::string TangentGenerator::Impl::member_derivative(const FunctionDecl* fn, const std::string& name,
                                                      const std::string& derivative) {
  const auto* method = dyn_cast<CXXMethodDecl>(fn);
  auto id = context.Idents.find(name);
  if (!method || id == context.Idents.end()) return "";
  const CXXRecordDecl* record = method->getParent();
  std::string owner;  // the class as its enclosing namespace names it (`Outer::A`)
  for (const DeclContext* dc = record; auto* r = dyn_cast<CXXRecordDecl>(dc); dc = dc->getParent()) {
    if (!r->getIdentifier() || r->getDescribedClassTemplate() || isa<ClassTemplateSpecializationDecl>(r)) return "";
    owner = r->getName().str() + (owner.empty() ? "" : "::" + owner);
  }
  const IdentifierInfo* ident = id->getValue();
  const CXXMethodDecl* declared = member_like(record, method, ident, /*any=*/true);
  if (declared && declared->isDefined()) return "";
  if (!declared) {
    const CXXMethodDecl* base_member = nullptr;
    record->forallBases([&](const CXXRecordDecl* base) {
      if (!base_member) base_member = member_like(base, method, ident, /*any=*/false);
      return true;
    });
    SourceLocation brace = record->getBraceRange().getEnd();
    if (!base_member || !brace.isFileID() || !context.getSourceManager().isInMainFile(brace)) return "";
    std::string params;
    for (unsigned i = 0; i < method->getNumParams(); ++i)
      params += (i ? ", " : "") + types.str(method->getParamDecl(i)->getType());
    const char* access = base_member->getAccess() == AS_private     ? "private"
                         : base_member->getAccess() == AS_protected ? "protected"
                                                                    : "public";
    members.push_back({record, std::string(access) + ": " + types.str(base_member->getReturnType()) + " " + name + "(" +
                                   params + ")" + (method->isConst() ? " const" : "") + " override;"});
    declared = base_member;
  }
  std::string params, args = method->isStatic() ? "" : "this";
  for (unsigned i = 0; i < method->getNumParams(); ++i) {
    params += (i ? ", " : "") + types.str(method->getParamDecl(i)->getType()) + " _p" + std::to_string(i);
    args += (args.empty() ? "_p" : ", _p") + std::to_string(i);
  }
  return "inline " + types.str(declared->getReturnType()) + " " + owner + "::" + name + "(" + params + ")" +
         (method->isConst() ? " const" : "") + " {\n  return " + derivative + "(" + args + ");\n}\n";
}

TangentGenerator::TangentGenerator(Generator& planned, ASTContext& context, const UnitFacts& unit, Diagnostics& diags)
    : impl_(std::make_unique<Impl>(planned, context, unit, diags)) {}
TangentGenerator::~TangentGenerator() = default;

GeneratedGradient TangentGenerator::request(const FunctionDecl* fn, const TangentSeed& seed, SourceLocation where) {
  Impl& I = *impl_;
  GeneratedGradient out;
  fn = fn->getDefinition();
  auto quoted = [](const std::string& s) { return "'" + s + "'"; };
  // A struct of numbers: the derivative is the struct of its members' derivatives.
  if (!is_floating(result_type(fn)) && !struct_result(fn, I.unit)) {
    I.diags.error(where, Diag::derivative_result_not_floating, {quoted(fn->getNameAsString())});
    return out;
  }
  FunctionState* state = I.state_of(fn);
  if (!state) return out;
  IntegerScalars integers(*state->ir);
  const FunctionIR& ir = *state->ir;
  Mask mask(ad_params(fn).size(), false);
  mask[seed.param] = true;
  Activity act = analyze_activity(ir, mask);
  for (const Var* v : ir.params)
    if (v->param_index != int(seed.param) && v->differentiable && (v->memory || v->pointer) && act.of(v)) {
      I.diags.error(
          where, Diag::derivative_unselected_memory_varied,
          {quoted(v->source_name()), quoted(fn->getNameAsString()), quoted(ir.params[seed.param]->source_name())});
      return out;
    }
  std::string args, setup, direction;
  if (!I.seeds(ir, seed, args, setup, direction, where) || !I.generate(fn, mask)) return out;

  Emitter names(ir, state->plan, state->loops, state->iteration, I.types, I.context.getSourceManager());
  std::string base = base_name(fn, I.unit);
  // Named after the parameter's position among f's own (a member function's object is not one).
  int position = int(seed.param) - (ir.self ? 1 : 0);
  if (seed.field) position = int(seed.field->getFieldIndex());  // Clad's: the member's among the class's
  std::string name = base + "_darg" + (position < 0 ? "this" : std::to_string(position)) +
                     (seed.element >= 0 ? "_" + std::to_string(seed.element) : "");
  for (char c : seed.member) name += c == '.' ? '_' : c;  // "t.x": f_darg0_x
  std::string params = names.params(), call_args, param_types;
  for (const Var* v : ir.params) {
    // A `T&&` parameter is passed on as one.
    const bool moved = v->param_type->isRValueReferenceType();
    call_args += (call_args.empty() ? "" : ", ") +
                 (moved ? "static_cast<" + I.types.str(v->param_type) + ">(" + v->name + ")" : v->name);
    param_types += (param_types.empty() ? "" : ", ") + I.types.str(v->param_type);
  }
  if (!direction.empty()) {
    params += (params.empty() ? "" : ", ") + direction;
    param_types += (param_types.empty() ? "" : ", ") +
                   Emitter::adjoint_param(ir.params[seed.param]->param_type, "", I.types, I.context);
  }
  if (call_args.empty()) args = args.empty() ? "" : args.substr(2);
  std::string result = I.types.str(result_type(fn).getUnqualifiedType());
  const std::string call = pushforward_name(fn, mask, I.unit) + "(" + call_args + args + ")";
  // A struct result goes through locals: a derivative of this function (a higher order, a gradient
  // over it) differentiates its body, and adjc takes a struct's value from a variable only.
  const std::string body = struct_result(fn, I.unit)
                               ? "  ::adjoint::value_and_pushforward<" + result + "> _result = " + call + ";\n  " +
                                     result + " _tangent = _result.pushforward;\n  return _tangent;\n"
                               : "  return " + call + ".pushforward;\n";
  std::string definition = "inline " + result + " " + name + "(" + params + ") {\n" + setup + body + "}\n";
  std::string source_fn = fresh_name(I.context, "_adjc_tangent_source_" + base, I.sources.size(), I.source_names);
  std::set<std::pair<const FunctionDecl*, std::string>> seen;
  std::string text = definition + "\n" + I.source_of({fn, Impl::key_of(mask, 0)}, seen);
  I.sources.push_back(I.wrap(fn, "inline const char* " + source_fn + "() {\n  return R\"adjc_source(" +
                                     without_line_directives(text) + ")adjc_source\";\n}\n"));
  // Defined once; an earlier stage's output may hold it already (nesting.hpp).
  // Overloads (`f1(float)`, `f1(double)`) have derivatives of one name, told apart by their function.
  if (I.requested.insert({fn, name}).second && !declared_beside(fn, name)) {
    I.declarations.push_back(I.wrap(fn, "inline " + result + " " + name + "(" + params + ");\n"));
    I.definitions.push_back(I.wrap(fn, definition));
    if (direction.empty()) {
      if (std::string clad_named = clad_named_derivative(fn, name, I.types); !clad_named.empty())
        I.definitions.push_back(I.wrap(fn, clad_named));
      if (std::string member = I.member_derivative(fn, name, qualifier(fn) + name); !member.empty())
        I.definitions.push_back(I.wrap(fn, member));
    }
  }
  // A request inside its member function's class (in another member's body) is declared before the
  // class, which the declaration names.
  std::string owner;
  const auto* record = isa<CXXMethodDecl>(fn) ? cast<CXXMethodDecl>(fn)->getParent() : nullptr;
  if (record && record->getIdentifier() && record->getDeclContext()->isFileContext() &&
      !isa<ClassTemplateSpecializationDecl>(record) &&
      I.context.getSourceManager().isBeforeInTranslationUnit(where, record->getBraceRange().getEnd()))
    owner = std::string(record->getKindName()) + " " + record->getName().str() + "; ";
  out.declaration = I.wrap(
      fn, owner + "inline " + result + " " + name + "(" + params + "); inline const char* " + source_fn + "();\n");
  // One line: inserting it must not shift the user's line numbers.
  for (char& c : out.declaration)
    if (c == '\n') c = ' ';
  out.function_value = "static_cast<" + result + " (*)(" + param_types + ")>(&" + qualifier(fn) + name + ")";
  out.source_function = qualifier(fn) + source_fn;
  out.qualified_name = qualifier(fn) + name;
  return out;
}

GeneratedGradient TangentGenerator::pushforward(const FunctionDecl* fn, const Mask& mask, int lanes) {
  Impl& I = *impl_;
  GeneratedGradient out;
  fn = fn->getDefinition();
  if (!I.generate(fn, mask, lanes)) return out;
  auto key = std::make_pair(fn, Impl::key_of(mask, lanes));
  std::string source_fn = "_adjc_tangent_source_" + base_name(fn, I.unit) + "_" + std::to_string(I.sources.size());
  std::set<std::pair<const FunctionDecl*, std::string>> seen;
  I.sources.push_back(I.wrap(fn, "inline const char* " + source_fn + "() {\n  return R\"adjc_source(" +
                                     without_line_directives(I.source_of(key, seen)) + ")adjc_source\";\n}\n"));
  out.declaration = I.wrap(fn, "inline " + I.signatures[key] + "; inline const char* " + source_fn + "();\n");
  for (char& c : out.declaration)
    if (c == '\n') c = ' ';
  out.function_value =
      qualifier(fn) + (lanes ? vector_pushforward_name(fn, mask, lanes, I.unit) : pushforward_name(fn, mask, I.unit));
  out.source_function = qualifier(fn) + source_fn;
  return out;
}

const std::vector<std::pair<const CXXRecordDecl*, std::string>>& TangentGenerator::member_declarations() const {
  return impl_->members;
}

void TangentGenerator::define(const FunctionDecl* fn, const std::string& name, const std::string& code) {
  Impl& I = *impl_;
  if (I.requested.insert({fn, name}).second) I.definitions.push_back(I.wrap(fn, code));
}

std::string TangentGenerator::generated_code() const {
  const Impl& I = *impl_;
  if (I.sources.empty()) return "";
  return generated_section("forward-mode derivative code", I.types.private_members(), I.declarations, I.definitions,
                           I.sources);
}

}  // namespace adjc
