// The generator: runs the pipeline (pipeline.cpp) for the requested function and every function it
// calls, emits their forward and reverse sweeps per activity mask, and assembles the generated code.
#include <clang/AST/DeclCXX.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "containers.hpp"
#include "emit.hpp"
#include "nesting.hpp"
#include "pipeline.hpp"

namespace adjc {

using namespace clang;

namespace {

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// Clad's form of a generated gradient the unit declares with an adjoint for each integer parameter
// too (`void f_grad(float x, int y, float* _d_x, int* _d_y);`): a definition forwarding to adjc's
// `f_grad`, which leaves integer adjoints as they were (docs/adjc.md, "For Clad users"); "" when
// the unit declares none, or when a parameter is neither differentiable and requested nor an integer.
std::string integer_adjoint_form(const FunctionDecl* fn, const FunctionIR& ir, const Mask& mask,
                                 const std::string& grad_name, const std::vector<std::string>& adjoint_types,
                                 const TypePrinter& types) {
  ASTContext& context = fn->getASTContext();
  auto id = context.Idents.find(grad_name);
  if (isa<CXXMethodDecl>(fn) || id == context.Idents.end()) return "";
  const size_t n = ir.params.size();
  for (const NamedDecl* d : fn->getDeclContext()->getRedeclContext()->lookup(DeclarationName(id->getValue()))) {
    auto* declared = dyn_cast<FunctionDecl>(d);
    if (!declared || declared->getNumParams() != 2 * n || !declared->getReturnType()->isVoidType()) continue;
    std::string params, adjoint_params, pass, adjoints;
    bool fits = true, integers = false;
    for (size_t i = 0, adjoint = 0; i < n && fits; ++i) {
      const Var* v = ir.params[i];
      QualType own = declared->getParamDecl(i)->getType(), d_own = declared->getParamDecl(n + i)->getType();
      const std::string p = "_p" + std::to_string(i), d_p = "_d" + std::to_string(i);
      params += (i ? ", " : "") + types.str(own) + " " + p;
      pass += (i ? ", " : "") + p;
      if (v->differentiable && mask[v->param_index]) {
        fits = adjoint < adjoint_types.size() &&
               without_spaces(types.str(d_own)) == without_spaces(adjoint_types[adjoint++]);
        adjoints += ", " + d_p;
        adjoint_params += ", " + types.str(d_own) + " " + d_p;
      } else {
        adjoint_params += ", " + types.str(d_own);  // unnamed: an integer's adjoint is left as it was
        fits = own->isIntegralOrEnumerationType() && d_own->isPointerType() &&
               context.hasSameUnqualifiedType(d_own->getPointeeType(), own);
        integers = true;
      }
      fits = fits && context.hasSameType(own, fn->getParamDecl(i)->getType());
    }
    if (fits && integers)
      return "void " + grad_name + "(" + params + adjoint_params + ") {\n  " + grad_name + "(" + pass + adjoints +
             ");\n}\n";
  }
  return "";
}

}  // namespace

struct Generator::Impl {
  ASTContext& context;
  Diagnostics& diags;
  const UnitFacts& unit;
  PipelineRunner& pipeline;
  TypePrinter types;
  std::map<const FunctionDecl*, std::unique_ptr<FunctionState>> states;
  std::map<const FunctionDecl*, std::string> forwards;
  std::map<std::string, const FunctionDecl*> overloads;                         // name(parameter types) -> function
  std::map<std::pair<const FunctionDecl*, std::string>, Activity> activities;   // (fn, mask)
  std::map<std::pair<const FunctionDecl*, std::string>, std::string> reverses;  // (fn, mask)
  std::map<std::pair<const FunctionDecl*, std::string>, std::vector<std::pair<const FunctionDecl*, std::string>>> deps;
  std::vector<std::string> declarations;
  std::vector<std::string> definitions;
  std::vector<std::string> sources;  // per request
  std::set<std::string> source_names;
  std::set<std::string> grads;
  std::map<std::string, std::string> grad_masks;  // f_grad's parameter types -> the mask that has that name

  Impl(ASTContext& c, const UnitFacts& u, Diagnostics& d, PipelineRunner& p)
      : context(c), diags(d), unit(u), pipeline(p), types(c) {}

  // `fn` lowered and planned, once (nullptr when it cannot be differentiated). A call within a
  // recursion finds its callee's state already there, lowered but not yet planned.
  const FunctionState* state_of(const FunctionDecl* fn) {
    fn = fn->getDefinition();
    auto& slot = states[fn];
    if (!slot) {
      slot = std::make_unique<FunctionState>(fn, unit, context, diags);
      slot->plan_callee = [this](const FunctionDecl* callee) { state_of(callee); };
      if (!pipeline.run(*slot)) slot->ir->valid = false;
    }
    return slot->ir->valid ? slot.get() : nullptr;
  }

  // The activity of `ir` under `mask`, computed once per (function, mask).
  const Activity& activity_of(const FunctionIR& ir, const Mask& mask) {
    auto key = std::make_pair(ir.fn, mask_key(mask));
    auto it = activities.find(key);
    if (it == activities.end()) it = activities.emplace(key, analyze_activity(ir, mask)).first;
    return it->second;
  }

  // Derivatives of template specializations are overloads named after the template, told apart
  // by their parameter types: two specializations with the same parameter types cannot both have one.
  bool distinct_overload(const FunctionDecl* f) {
    std::string key = qualifier(f) + base_name(f, unit) + "(";
    for (const AdParam& p : ad_params(f)) key += types.str(p.type) + ",";
    auto [it, inserted] = overloads.emplace(key, f);
    if (inserted || it->second == f) return true;
    diags.error(f->getPointOfInstantiation().isValid() ? f->getPointOfInstantiation() : f->getLocation(),
                Diag::specializations_same_parameter_types, {f->getNameAsString(), types.template_arguments(f)});
    return false;
  }

  std::string wrap(const FunctionDecl* fn, const std::string& text) {
    auto [open, close] = namespaces(fn);
    return open + text + close;
  }

  // A pattern's own tape plan (pattern_plan_passes) and the sweeps it gives.
  struct PatternPlan {
    TapePlan plan;
    std::set<Var*> written;
    IterationLocals iteration;
    std::map<const Node*, const ReadSite*> save_reads;
    LoopPlans loops;
  };
  struct FamilySweeps {
    std::string forward_declaration, reverse_declaration, pullback_declaration, forward, reverse, pullback;
    std::vector<CalleeRequest> callees;
  };
  std::map<std::pair<const FunctionDecl*, std::string>, std::string> families;  // (fn, mask) -> family
  std::map<std::pair<const FunctionDecl*, std::string>, FamilySweeps> family_sweeps;
  std::map<const FunctionDecl*, std::string> full_forwards;  // f_forward's text, to compare with
  std::map<const FunctionDecl*, bool> acyclic;
  std::set<std::pair<const FunctionDecl*, std::string>> pullbacks;  // (fn, mask)

  // Whether no call chain from `f` through planned functions reaches a function twice: a recursion's
  // shared forward sweep calls its callees' full-activity sweeps, so they keep one family.
  bool acyclic_below(const FunctionDecl* f, std::set<const FunctionDecl*>& path) {
    if (auto it = acyclic.find(f); it != acyclic.end()) return it->second;
    if (!path.insert(f).second) return false;
    bool ok = true;
    for (const Node* n : states.at(f)->all) {
      const FunctionDecl* callee = n->kind == NodeKind::Call && n->call ? n->call->getDirectCallee() : nullptr;
      if (callee && callee->getDefinition() && states.count(callee->getDefinition()))
        ok = acyclic_below(callee->getDefinition(), path) && ok;
    }
    path.erase(f);
    return acyclic[f] = ok;
  }

  // The tape plan passes again with `act` in place of full activity; the state's plan restored.
  PatternPlan plan_pattern(FunctionState& s, const Activity& act) {
    PatternPlan full{std::move(s.plan), std::move(s.written), std::move(s.iteration), std::move(s.save_reads),
                     std::move(s.loops)};
    Activity full_activity = std::move(s.full);
    s.full = act;
    s.plan = {}, s.written = {}, s.iteration = {}, s.save_reads = {}, s.loops = {};
    pipeline.run(s, pattern_plan_passes());
    PatternPlan pattern{std::move(s.plan), std::move(s.written), std::move(s.iteration), std::move(s.save_reads),
                        std::move(s.loops)};
    s.full = std::move(full_activity);
    s.plan = std::move(full.plan), s.written = std::move(full.written), s.iteration = std::move(full.iteration);
    s.save_reads = std::move(full.save_reads), s.loops = std::move(full.loops);
    return pattern;
  }

  const std::string& full_forward(const FunctionState& s) {
    auto [it, fresh] = full_forwards.emplace(s.ir->fn, "");
    if (fresh) it->second = Emitter(*s.ir, s.plan, s.loops, s.iteration, types, context.getSourceManager()).forward();
    return it->second;
  }

  // The family of f's sweeps for `mask`: "" for the full-activity pair, or "_<mask>" when the
  // pattern's own plan gives another forward sweep (less taped: values only inactive adjoints need).
  // Decided once per (f, mask), and then the sweeps are emitted (family_sweeps).
  std::string family_of(const FunctionDecl* f, const Mask& mask) {
    f = f->getDefinition();
    auto key = std::make_pair(f, mask_key(mask));
    if (auto it = families.find(key); it != families.end()) return it->second;
    families[key] = "";
    auto state = states.find(f);
    if (state == states.end() || !state->second->ir->valid || diags.failed()) return "";
    FunctionState& s = *state->second;
    const Activity& act = activity_of(*s.ir, mask);
    std::set<const FunctionDecl*> path;
    if (act.varied == s.full.varied || !acyclic_below(f, path)) return "";
    PatternPlan p = plan_pattern(s, act);
    auto emit = [&](const std::string& family) {
      Emitter e(*s.ir, p.plan, p.loops, p.iteration, types, context.getSourceManager());
      e.family = family;
      e.callee_family = [this](const FunctionDecl* g, const Mask& m) { return family_of(g, m); };
      FamilySweeps out;
      out.reverse = e.reverse(mask, act);  // first: the forward calls the callees' families it chose
      out.forward = e.forward();
      out.forward_declaration = wrap(f, "inline " + e.forward_signature() + ";\n");
      out.reverse_declaration = wrap(f, "inline " + e.reverse_signature(mask, "_reverse" + family) + ";\n");
      out.pullback_declaration = wrap(f, "inline " + e.reverse_signature(mask, "_pullback") + ";\n");
      out.pullback = pullback(*s.ir, e, mask);
      out.callees = e.callees;
      return out;
    };
    if (emit("").forward == full_forward(s)) return "";
    const std::string family = "_" + mask_key(mask);
    family_sweeps[key] = emit(family);
    return families[key] = family;
  }

  // Generates f's forward and reverse sweeps and f_pullback for `mask`, and everything they call.
  // The requested function's full-activity pair is generated too: code calls `f_forward` and
  // `f_reverse` by name (docs/adjc.md, "Generated names"); f_pullback and f_grad run its family.
  bool generate(const FunctionDecl* fn, const Mask& mask) {
    std::vector<CalleeRequest> work = {{fn->getDefinition(), mask, ""}};
    if (std::string family = family_of(fn, mask); !family.empty()) work.push_back({fn->getDefinition(), mask, family});
    while (!work.empty()) {
      CalleeRequest r = work.back();
      work.pop_back();
      const FunctionDecl* f = r.fn->getDefinition();
      auto key = std::make_pair(f, mask_key(r.mask) + r.family);
      if (reverses.count(key)) continue;
      const FunctionState* state = state_of(f);
      if (!state || diags.failed()) return false;
      std::vector<CalleeRequest> callees =
          r.family.empty() ? emit_full_activity(*state, r.mask, key) : emit_family(f, r.mask, key);
      if (diags.failed()) return false;
      for (auto& c : callees) {
        deps[key].push_back({c.fn->getDefinition(), mask_key(c.mask) + c.family});
        work.push_back(c);
      }
    }
    return !diags.failed();
  }

  // f_forward (once per function) and f_reverse for `mask`, planned under full activity.
  std::vector<CalleeRequest> emit_full_activity(const FunctionState& state, const Mask& m,
                                                const std::pair<const FunctionDecl*, std::string>& key) {
    const FunctionDecl* f = key.first;
    const FunctionIR* ir = state.ir.get();
    Emitter emitter(*ir, state.plan, state.loops, state.iteration, types, context.getSourceManager());
    if (!forwards.count(f) && !declared_beside(f, base_name(f, unit) + "_forward")) {
      if (!distinct_overload(f)) return {};
      forwards[f] = emitter.forward();
      declarations.push_back(wrap(f, "inline " + emitter.forward_signature() + ";\n"));
      definitions.push_back(wrap(f, forwards[f]));
    }
    std::string rev = emitter.reverse(m, activity_of(*ir, m));
    reverses[key] = rev;
    // An earlier stage's sweeps of f for m (a nested request reaching what a request of that stage
    // reached) are called, not defined again.
    const std::string reverse_declaration = wrap(f, "inline " + emitter.reverse_signature(m, "_reverse") + ";\n");
    if (!generated_earlier(context, reverse_declaration)) {
      declarations.push_back(reverse_declaration);
      definitions.push_back(wrap(f, rev));
      if (pullbacks.insert({f, mask_key(m)}).second) {
        declarations.push_back(wrap(f, "inline " + emitter.reverse_signature(m, "_pullback") + ";\n"));
        definitions.push_back(wrap(f, pullback(*ir, emitter, m)));
      }
    }
    return emitter.callees;
  }

  // The sweeps family_of emitted for a pattern with a plan of its own.
  std::vector<CalleeRequest> emit_family(const FunctionDecl* f, const Mask& m,
                                         const std::pair<const FunctionDecl*, std::string>& key) {
    if (!distinct_overload(f)) return {};
    const FamilySweeps& sweeps = family_sweeps.at({f, mask_key(m)});
    reverses[key] = sweeps.forward + "\n" + sweeps.reverse;
    if (!generated_earlier(context, sweeps.reverse_declaration)) {
      declarations.push_back(sweeps.forward_declaration);
      declarations.push_back(sweeps.reverse_declaration);
      definitions.push_back(wrap(f, sweeps.forward));
      definitions.push_back(wrap(f, sweeps.reverse));
      if (pullbacks.insert({f, mask_key(m)}).second && !generated_earlier(context, sweeps.pullback_declaration)) {
        declarations.push_back(sweeps.pullback_declaration);
        definitions.push_back(wrap(f, sweeps.pullback));
      }
    }
    return sweeps.callees;
  }

  std::string pullback(const FunctionIR& ir, const Emitter& e, const Mask& m) {
    std::string args;
    for (Var* v : ir.params) args += (args.empty() ? "" : ", ") + v->name;
    std::string adjoints = args;
    if (ir.returns_value) adjoints += std::string(args.empty() ? "" : ", ") + "_d_result";
    for (Var* v : ir.params)
      if (v->differentiable) adjoints += std::string(adjoints.empty() ? "" : ", ") + "_d_" + v->name;
    std::string name = base_name(ir.fn, unit);
    return "inline " + e.reverse_signature(m, "_pullback") + " {\n  " + name + "_forward" + e.family + "(" + args +
           ");\n  " + name + "_reverse" + e.family + "(" + adjoints + ");\n}\n";
  }

  std::string source_of(const std::pair<const FunctionDecl*, std::string>& key,
                        std::set<std::pair<const FunctionDecl*, std::string>>& seen) {
    if (!seen.insert(key).second) return "";
    std::string s;
    // A family's entry holds its forward sweep too; a key of full activity is the mask alone.
    bool full_activity = key.second.find('_') == std::string::npos;
    if (full_activity && !seen.count({key.first, "forward"})) {
      seen.insert({key.first, "forward"});
      s += forwards[key.first] + "\n";
    }
    s += reverses[key] + "\n";
    for (auto& d : deps[key]) s += source_of(d, seen);
    return s;
  }

  static std::string strip_line_directives(const std::string& s) {
    std::string out;
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("#line", 0) != 0) out += line + "\n";
    return out;
  }
};

Generator::Generator(ASTContext& context, const UnitFacts& unit, Diagnostics& diagnostics, PipelineRunner& pipeline)
    : impl_(std::make_unique<Impl>(context, unit, diagnostics, pipeline)) {}
Generator::~Generator() = default;

GeneratedGradient Generator::request(const FunctionDecl* fn, const std::vector<bool>& selected, SourceLocation where,
                                     bool seeded) {
  Impl& I = *impl_;
  GeneratedGradient out;
  fn = fn->getDefinition();
  if (base_name(fn, I.unit).empty()) {
    I.diags.error(where, Diag::request_of_operator, {fn->getNameAsString()});
    return out;
  }
  if (is_value_class(fn->getReturnType(), I.unit) || fn->getReturnType()->isRecordType()) {
    I.diags.error(where, Diag::request_result_not_floating);
    return out;
  }
  const FunctionState* state = I.state_of(fn);
  if (!state || I.diags.failed()) return out;
  const FunctionIR* ir = state->ir.get();
  Mask mask(selected.begin(), selected.end());
  check_unselected_writes(*ir, I.activity_of(*ir, mask), mask, I.diags, where);
  if (I.diags.failed() || !I.generate(fn, mask)) return out;

  Emitter e(*ir, state->plan, state->loops, state->iteration, I.types, I.context.getSourceManager());
  // A member function's grad takes the object first, by pointer (`f_grad(const S* self, ...)`).
  std::string name = base_name(fn, I.unit);
  std::string params = e.params(), call_args, adjoint_params, pass;
  for (const Var* v : ir->params) call_args += (call_args.empty() ? "" : ", ") + v->name;
  pass = call_args;
  seeded = seeded && ir->returns_value;
  if (ir->returns_value)
    pass += std::string(pass.empty() ? "" : ", ") + (seeded ? "_d_result" : literal(1, result_type(fn)));
  std::string param_types;
  std::vector<std::string> adjoint_types;
  for (const Var* v : ir->params) param_types += (param_types.empty() ? "" : ", ") + I.types.str(v->param_type);
  if (seeded) {
    std::string seed_type = I.types.str(result_type(fn).getUnqualifiedType());
    params += std::string(params.empty() ? "" : ", ") + seed_type + " _d_result";
    param_types += (param_types.empty() ? "" : ", ") + seed_type;
  }
  for (const Var* v : ir->params) {
    if (!v->differentiable) continue;
    std::string d = "_d_" + v->name;
    if (mask[v->param_index]) {
      if (v == ir->self) out.object_adjoint = int(ir->params.size()) + (seeded ? 1 : 0);
      std::string t = Emitter::adjoint_param(v->param_type, "", I.types, I.context);
      adjoint_types.push_back(t);
      adjoint_params += ", " + Emitter::adjoint_param(v->param_type, d, I.types, I.context);
      param_types += (param_types.empty() ? "" : ", ") + t;
      pass += (pass.empty() ? "" : ", ") + d;
    } else {
      pass += std::string(pass.empty() ? "" : ", ") + "::adjoint::inactive{}";
    }
  }
  std::string all_params = params + adjoint_params;
  if (params.empty() && !adjoint_params.empty()) all_params = adjoint_params.substr(2);
  // Requests of one function for different parameters of the same types would be the same
  // overload of `f_grad`: the later ones are named after their parameters (`f_grad_01`).
  std::string grad_name = name + (seeded ? "_seeded_grad" : "_grad");
  std::string types_key = qualifier(fn) + grad_name + "(" + param_types + ")";
  auto [taken, fresh] = I.grad_masks.emplace(types_key, mask_key(mask));
  if (!fresh && taken->second != mask_key(mask)) grad_name += "_" + mask_key(mask);
  std::string signature = "void " + grad_name + "(" + all_params + ")";
  std::string key = qualifier(fn) + signature;
  size_t index = I.sources.size();
  std::string source_fn = fresh_name(I.context, "_adjc_source_" + name, index, I.source_names);
  std::set<std::pair<const FunctionDecl*, std::string>> seen;
  std::string grad_def = signature + " {\n  " + name + "_pullback(" + pass + ");\n}\n";
  std::string text = grad_def + "\n" + I.source_of({fn, mask_key(mask) + I.families[{fn, mask_key(mask)}]}, seen);
  I.sources.push_back(I.wrap(fn, "inline const char* " + source_fn + "() {\n  return R\"adjc_source(" +
                                     Impl::strip_line_directives(text) + ")adjc_source\";\n}\n"));
  if (I.grads.insert(key).second) {
    I.definitions.push_back(I.wrap(fn, grad_def));
    if (std::string clad_form = integer_adjoint_form(fn, *ir, mask, grad_name, adjoint_types, I.types);
        !clad_form.empty())
      I.definitions.push_back(I.wrap(fn, clad_form));
  }
  out.declaration = I.wrap(fn, signature + "; inline const char* " + source_fn + "();\n");
  // One line: inserting it must not shift the user's line numbers.
  for (char& c : out.declaration)
    if (c == '\n') c = ' ';
  out.function_value = "static_cast<void (*)(" + param_types + ")>(&" + qualifier(fn) + grad_name + ")";
  out.source_function = qualifier(fn) + source_fn;
  return out;
}

FunctionState* Generator::planned(const FunctionDecl* fn) {
  if (!fn->getDefinition()) return nullptr;
  return const_cast<FunctionState*>(impl_->state_of(fn));
}

bool Generator::run_passes(FunctionState& state, const std::vector<Pass>& passes) {
  return impl_->pipeline.run(state, passes);
}

std::string generated_section(const std::string& what, const std::string& private_members,
                              const std::vector<std::string>& declarations, const std::vector<std::string>& definitions,
                              const std::vector<std::string>& sources) {
  std::string s = "\n// ---- generated by adjc: " + what + " ----\n#include <cmath>\n#include <adjoint/ad.hpp>\n";
  s += private_members;
  for (auto& d : declarations) s += d;
  for (auto& d : definitions) s += "\n" + d;
  for (auto& d : sources) s += "\n" + d;
  return s;
}

std::string Generator::generated_code() {
  Impl& I = *impl_;
  return generated_section("derivative code", I.types.private_members(), I.declarations, I.definitions, I.sources);
}

}  // namespace adjc
