// Emission of the reverse of one assignment or call: restoring the taped value and propagating the
// adjoint through the expression (emit.hpp).
#include <clang/AST/ExprCXX.h>

#include <algorithm>

#include "derivatives.hpp"
#include "emit.hpp"
#include "ir_walk.hpp"

namespace adjc {

using namespace clang;

// The reverse of an assignment or call, tidied.
void Emitter::reverse_statement(Node* n, Code& out) {
  Code code;
  code.depth = out.depth;
  if (n->kind == NodeKind::Assign) reverse_assign(n, code);
  else reverse_call(n, code);
  prune_temps(code.lines);
  merge_accumulations(code.lines);
  out.append(code);
}

// Drops temporaries (`const T _t3 = ...;`) nothing in the statement's reverse code uses.
void Emitter::prune_temps(std::vector<Code::Line>& lines) {
  auto used = [&](size_t i) {
    for (size_t j = 0; j < lines.size(); ++j)
      if (j != i && std::count(lines[j].uses.begin(), lines[j].uses.end(), lines[i].defines)) return true;
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < lines.size() && !changed; ++i)
      if (!lines[i].defines.empty() && !used(i)) {
        lines.erase(lines.begin() + long(i));
        changed = true;
      }
  }
}

// Merges `t += a; ...; t += b;` within one statement's reverse into `t += a + b;` at the second
// place (when nothing between reads or writes t otherwise, and no block starts or ends between),
// shortening the chain of dependent additions.
void Emitter::merge_accumulations(std::vector<Code::Line>& lines) {
  // Whether line `l` uses the adjoint variable (`_d_...`) `target` is stored in.
  auto touches = [](const Code::Line& l, const Code::Line& target) {
    for (const std::string& u : target.uses)
      if (u.rfind("_d_", 0) == 0 && std::count(l.uses.begin(), l.uses.end(), u)) return true;
    return false;
  };
  for (size_t j = 0; j < lines.size(); ++j) {
    if (!lines[j].accumulation || lines[j].atomic) continue;
    for (size_t i = j; i-- > 0;) {
      const Code::Line& l = lines[i];
      bool same = l.accumulation && l.target == lines[j].target;
      if (same && l.depth == lines[j].depth && !l.atomic) {
        Code::Line& merged = lines[j];
        merged.value = l.value + " + " + merged.value;
        merged.text = merged.target + " += " + merged.value + ";";
        merged.uses.insert(merged.uses.end(), l.uses.begin(), l.uses.end());
        lines.erase(lines.begin() + long(i));
        --j;
        break;
      }
      if (same || l.block || (!l.accumulation && touches(l, lines[j]))) break;
    }
  }
}

void Emitter::reverse_assign(Node* n, Code& code) {
  line_directive(code, n->loc);
  code.open("{");
  std::string lhs = n->target ? use(n->target->name) : print_.primal(n->lhs);
  if (plan_[n].result_in_target) {  // the call's value, read before the pop restores the old one
    std::string value = temp();
    code.line("const " + types_.str(n->lhs->getType().getUnqualifiedType()) + " " + define(value) + " = " + lhs + ";");
    print_.temps[strip(n->rhs, ir_.unit)] = use(value);
  }
  if (plan_[n].save && !loops_.saved_in_bulk(n))
    code.line(pop(lhs, n->target ? n->target->type : n->lhs->getType(), n->target));
  if (plan_[n].undone_by_inverse)  // `m *= r` undone as `m = m / r`, `m /= s` as `m = m * s`
    code.line(lhs + " = " + lhs + (n->op == BO_MulAssign ? " / " : " * ") + print_.primal(n->rhs) + ";");
  Var* written = n->target ? n->target : n->memory_root;
  bool floating = n->target ? n->target->floating || n->target->value : is_floating(n->lhs->getType());
  if (floating && act_.of(written) && n->rhs) {
    std::string adj = n->target ? print_.scalar_adjoint(n->target) : print_.adjoint(n->lhs);
    QualType t = n->target ? n->target->type : n->lhs->getType();
    bool target_private = n->target ? n->target->parallel == parallel_ : true;
    std::string r_name = temp("_r"), r = use(r_name);
    code.line("const " + types_.str(t.getUnqualifiedType()) + " " + define(r_name) + " = " + adj + ";");
    std::vector<const Expr*> extra;
    if (n->op == BO_MulAssign || n->op == BO_DivAssign) extra.push_back(n->rhs);
    bind_values(n->rhs, code, extra);
    std::string R = value(n->rhs);
    auto set = [&](const std::string& value) {
      if (!target_private) code.line("#pragma omp atomic write");
      code.line(adj + " = " + value + ";");
    };
    switch (n->op) {
      case BO_Assign: {
        set(zero(t, types_, ir_.unit));
        // `y = f(...)` of a value class: the result's adjoint is still empty (the call appears
        // once, here) and `d_y` was just reset, so its storage is handed over rather than
        // copied by accumulate_adjoint.
        auto* call = dyn_cast<CallExpr>(strip(n->rhs, ir_.unit));
        if (is_value_class(t, ir_.unit) && call && ir_.call_result.count(call) && act_.of(ir_.call_result.at(call)))
          code.line(use("_d_" + ir_.call_result.at(call)->name) + " = " + r + ";");
        else propagate(n->rhs, r, code);
        break;
      }
      case BO_AddAssign: propagate(n->rhs, r, code); break;
      case BO_SubAssign: propagate(n->rhs, "-" + r, code); break;
      case BO_MulAssign:
        set(r + " * " + R);
        propagate(n->rhs, r + " * " + lhs, code);
        break;
      case BO_DivAssign:
        set(r + " / " + R);
        propagate(n->rhs, "-" + r + " * " + lhs + " / (" + R + " * " + R + ")", code);
        break;
      default: break;
    }
  }
  print_.temps.clear();
  code.close();
}

void Emitter::reverse_call(Node* n, Code& code) {
  line_directive(code, n->loc);
  code.open("{");
  if (n->refilled) {
    // The vector as it was before the call; the elements from its old size on (all, for assign and
    // clear) were filled with a constant or dropped: their adjoints are zero.
    const Var* v = n->refilled;
    code.line(pop(use(v->name), v->type, v));
    if (act_.of(v)) {
      bool resize = cast<CXXMemberCallExpr>(n->call)->getMethodDecl()->getName() == "resize";
      std::string first = resize ? use(v->name) + ".size()" : "0";
      code.line("::adjoint::detail::refill_adjoint(" + use("_d_" + v->name) + ", " + first + ", " + use(v->name) +
                ".size());");
    }
    code.close();
    return;
  }
  if (plan_[n].save) code.line(pop(use(n->result->name), n->result->type));
  const FunctionDecl* f = n->call->getDirectCallee();
  bool custom = callee_kind(f, ir_.unit) == CalleeKind::Custom;
  bool active = plan_[n].active && call_active(ir_, act_, n);
  // Clad's pullback state, which the forward sweep put on the tape (stateful_forward_call).
  QualType state;
  std::string state_name = plan_[n].active && custom && custom_reverse_forw(f, ir_.unit, &state) ? temp("_state") : "";
  if (!state_name.empty())
    code.line("auto* const " + state_name + " = ::adjoint::detail::pop<" + types_.str(state) + "*>();");
  if (plan_[n].active && (active || !custom)) {
    Mask mask;
    std::vector<std::string> args, adjoints;
    std::vector<std::pair<const Expr*, std::string>> scalar_adjoints;
    std::vector<AdParam> params = ad_params(f);
    std::vector<AdArg> call_args = ad_args(n->call);
    for (const AdArg& a : call_args) args.push_back(print_.argument(a));
    QualType rt = result_type(f);
    if (has_result_adjoint(rt, ir_.unit)) {
      Var* res = n->result;
      adjoints.push_back(res && act_.of(res) ? use("_d_" + res->name) : zero(rt, types_, ir_.unit));
    }
    for (size_t i = 0; i < params.size() && i < call_args.size(); ++i) {
      QualType pt = params[i].type.getCanonicalType();
      const Expr* arg = call_args[i].expr;
      bool varied = false;
      if (is_differentiable(pt)) {
        // A value class (or the object of its member function) has a handle as its adjoint.
        bool value =
            is_value_class(pt, ir_.unit) || (pt->isPointerType() && is_value_class(pt->getPointeeType(), ir_.unit));
        bool indirect = !value && (pt->isReferenceType() || pt->isPointerType() || pt->isRecordType());
        bool in_memory = indirect && !value_reference(ir_, pt, arg);  // else its adjoint is a scalar of ours
        // Without derivative work (a lambda's call whose result reaches nothing), the pullback
        // only pops: every argument inactive, so no partial meets the zero adjoint.
        varied = active && arg_varied(ir_, act_, pt, arg);
        if (!varied) {
          adjoints.push_back(custom ? (indirect || value ? "nullptr" : "&" + declare_scalar_adjoint(pt, code))
                                    : "::adjoint::inactive{}");
        } else if (value || (in_memory && (call_args[i].address || !pt->isPointerType()))) {
          adjoints.push_back("&" + print_.adjoint(arg));
        } else if (in_memory) {
          adjoints.push_back(print_.adjoint(arg));
        } else {
          std::string d = declare_scalar_adjoint(pt.getNonReferenceType().getUnqualifiedType(), code);
          scalar_adjoints.push_back({arg, d});
          adjoints.push_back("&" + d);
        }
      } else if (custom && integer_like_parameter(pt) && custom_pullback_takes_integer_adjoints(f, ir_.unit)) {
        // Clad's signature: integers carry no derivative in adjc, so the adjoint is scratch.
        adjoints.push_back(pt->isPointerType() ? "nullptr" : "&" + declare_scratch(pt.getNonReferenceType(), code));
      }
      mask.push_back(varied);
    }
    std::string family = !custom && callee_family ? callee_family(f, mask) : "";
    if (!custom) call_families_[n->call] = family;
    std::string call = custom ? custom_pullback_name(custom_pullback(f, ir_.unit), types_) + "("
                              : callee_name(f, "_reverse" + family) + "(";
    bool first = true;
    for (auto& a : args) call += (first ? "" : ", ") + a, first = false;
    for (auto& a : adjoints) call += (first ? "" : ", ") + a, first = false;
    if (!state_name.empty()) call += (first ? "*" : ", *") + state_name;
    code.line(call + ");");
    if (!custom) callees.push_back({f, mask, family});
    if (n->result && (n->result->floating || n->result->value || n->result->memory) && act_.of(n->result))
      code.line(
          assignment(use("_d_" + n->result->name),
                     has_zero_like(n->result->type) ? zero_like(n->result) : zero(n->result->type, types_, ir_.unit),
                     n->result->type));
    for (auto& [arg, d] : scalar_adjoints) {
      bind_values(arg, code);
      propagate(arg, d, code);
    }
    print_.temps.clear();
  }
  if (!state_name.empty()) code.line("delete " + state_name + ";");
  const std::vector<Var*>& taped = plan_[n].taped_regions;
  for (auto v = taped.rbegin(); v != taped.rend(); ++v) code.line(pop(use((*v)->name), (*v)->type, *v));
  code.close();
}

std::string Emitter::declare_scalar_adjoint(QualType t, Code& code) {
  std::string name = temp("_darg");
  code.line(types_.str(t.getUnqualifiedType()) + " " + name + " = 0;");
  return use(name);
}

std::string Emitter::declare_scratch(QualType t, Code& code) {
  std::string name = temp("_darg");
  code.line(types_.str(t.getUnqualifiedType()) + " " + name + "{};");
  return use(name);
}

std::string Emitter::temp(const std::string& prefix) { return prefix + std::to_string(temp_++); }

bool Emitter::private_adjoint(const Expr* e) const {
  if (!parallel_) return true;
  e = strip(e, ir_.unit);
  Var* v = ir_.var(e);
  if (!v) v = memory_root(ir_, e);
  return v && (v->parallel == parallel_ || partitioned_.count(v));
}

void Emitter::accumulate(Code& code, const std::string& target, const std::string& value, bool is_private, QualType t) {
  if (!is_value_class(t, ir_.unit)) return code.add_to(target, value, !is_private);
  if (!is_private) code.line("#pragma omp atomic");
  code.line(accumulation(target, value, t));
}

// Binds the values the reverse of `e` needs to temporaries, innermost first.
void Emitter::bind_values(const Expr* e, Code& code, const std::vector<const Expr*>& extra) {
  std::vector<const Expr*> values = extra;
  needed_values(ir_, act_, e, values);
  // Operations whose derivative reads their own value (exp, sqrt, tanh, pow).
  walk_stripped(e, ir_.unit, [&](const Expr* x) {
    if (!reads_varied(ir_, act_, x)) return false;
    if (std::optional<DerivativeRule> rule = derivative_rule(x); rule && rule->needs_value) values.push_back(x);
    return true;
  });
  std::set<const Expr*> wanted;
  for (const Expr* v : values) wanted.insert(strip(v, ir_.unit));
  // Post-order, so inner temporaries exist before the outer ones that use them.
  walk_stripped_post(e, ir_.unit, [&](const Expr* x) {
    if (!wanted.count(x) || print_.temps.count(x) || isa<DeclRefExpr>(x) || isa<IntegerLiteral>(x) ||
        isa<FloatingLiteral>(x) || (isa<CallExpr>(x) && ir_.call_result.count(cast<CallExpr>(x))))
      return;
    std::string name = temp();
    code.line("const " + types_.str(x->getType().getUnqualifiedType()) + " " + define(name) + " = " + print_.primal(x) +
              ";");
    print_.temps[x] = use(name);
  });
}

std::string Emitter::bind_adjoint(const std::string& adj, QualType t, Code& code) {
  if (is_identifier(adj)) return adj;
  std::string name = temp("_a");
  code.line("const " + types_.str(t.getUnqualifiedType()) + " " + define(name) + " = " + adj + ";");
  return use(name);
}

// The primal value of `x` as an operand: parenthesised unless it is a single term.
std::string Emitter::value(const Expr* x) const {
  const Expr* s = strip(x, ir_.unit);
  std::string text = print_.primal(x);
  if (print_.temps.count(s) || isa<DeclRefExpr>(s) || isa<IntegerLiteral>(s) || isa<FloatingLiteral>(s) ||
      isa<CallExpr>(s) || isa<ArraySubscriptExpr>(s) || isa<MemberExpr>(s) || isa<ParenExpr>(x->IgnoreImpCasts()))
    return text;
  return "(" + text + ")";
}

// A rule's template (derivatives.hpp) for expression `e` of type `t`, as C++ text.
std::string Emitter::expand(const std::string& pattern, const std::string& adj, const DerivativeRule& rule,
                            const Expr* e, QualType t) const {
  return expand_rule(
      pattern, adj, [&](std::size_t i) { return value(rule.operands.at(i)); }, [&] { return value(e); }, t);
}

// Adds `adj` times the derivative of `e` to the adjoints of what `e` reads.
void Emitter::propagate(const Expr* e, const std::string& adj_in, Code& code) {
  e = strip(e, ir_.unit);
  if (!reads_varied(ir_, act_, e)) return;
  QualType t = e->getType();
  if (auto* call = dyn_cast<CallExpr>(e); call && ir_.call_result.count(call))
    return accumulate(code, use("_d_" + ir_.call_result.at(call)->name), adj_in,
                      ir_.call_result.at(call)->parallel == parallel_, t);
  if (isa<DeclRefExpr>(e) || isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e) ||
      (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref))
    return accumulate(code, print_.adjoint(e), adj_in, private_adjoint(e), t);
  if (is_value_class(t, ir_.unit)) return;  // value classes change only through calls
  std::string adj = bind_adjoint(adj_in, t, code);
  std::optional<DerivativeRule> rule = derivative_rule(e);
  if (!rule) return;
  if (!rule->condition.empty()) {
    code.open("if (" + expand(rule->condition, adj, *rule, e, t) + ") {");
    propagate(rule->operands[rule->chosen], adj, code);
    code.close("} else {");
    ++code.depth;
    propagate(rule->operands[rule->other], adj, code);
    code.close();
    return;
  }
  for (int i : differentiated_operands(*rule))
    propagate(rule->operands[i], expand(rule->partials[i], adj, *rule, e, t), code);
}

}  // namespace adjc
