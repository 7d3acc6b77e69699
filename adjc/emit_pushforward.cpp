// Emission of a pushforward (tangent.hpp): the function's statements, each assignment preceded by
// the assignment of its target's tangent, from the derivative rules of derivatives.cpp (the table
// reverse mode reads too). Tangents are named as adjoints are (`_d_x`): a floating scalar's is a
// scalar, memory's is memory of the same shape (Printer::adjoint mirrors a memory expression).
#include <algorithm>

#include "containers.hpp"
#include "tangent.hpp"

namespace adjc {

using namespace clang;

namespace {

// A variable whose tangent is a scalar of the pushforward's own (not memory).
bool scalar_tangent(const Var* v) { return v && v->floating && !v->memory && !v->pointer && !v->reference; }

// An expression Printer::adjoint mirrors: a variable, memory, or a pointer into memory.
bool has_place(const Expr* e) {
  if (isa<DeclRefExpr>(e) || isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e) || isa<CXXThisExpr>(e)) return true;
  if (auto* u = dyn_cast<UnaryOperator>(e)) return u->getOpcode() == UO_Deref || u->getOpcode() == UO_AddrOf;
  if (auto* b = dyn_cast<BinaryOperator>(e)) return b->isAdditiveOp() && e->getType()->isPointerType();
  return false;
}

// Whether custom pushforward `f` returns a struct with `value` and `pushforward` members (or a type
// only its instantiation knows).
bool holds_value_and_pushforward(const FunctionDecl* f) {
  if (!f) return false;
  const QualType t = f->getReturnType();
  if (t->isDependentType() || t->isUndeducedType()) return true;
  const CXXRecordDecl* record = t->getAsCXXRecordDecl();
  if (!record || !record->hasDefinition()) return false;
  bool value = false, pushforward = false;
  for (const FieldDecl* field : record->fields()) {
    value |= field->getName() == "value";
    pushforward |= field->getName() == "pushforward";
  }
  return value && pushforward;
}

// A local pointer declared where the source declares it (or, assigned once, where it is assigned),
// with its initialiser: adjc reads a local pointer only with one (an outer request differentiates
// this code), and a walking pointer (`p = p + 1`) keeps the region its declaration names.
bool declared_in_place(const Var* v) {
  return v->kind == VarKind::Local && v->pointer && (v->assignments == 1 || v->definition);
}
// A floating scalar local the source declares with an initialiser is declared there too, and its
// tangent with it: declared in a loop's body, it is then private to the iteration for an outer
// reverse request, which recomputes it instead of taping it per iteration (tape_recompute.cpp).
bool scalar_declared_in_place(const Var* v) { return v->kind == VarKind::Local && scalar_tangent(v) && v->definition; }
// The assignment that declares such a pointer or scalar.
bool declares(const Node* n) {
  const Var* v = n->target;
  if (!v || n->op != BO_Assign) return false;
  if (scalar_declared_in_place(v)) return v->definition == n;
  return declared_in_place(v) && (v->assignments == 1 || v->definition == n);
}

// `s` as an operand: in parentheses unless it is a name, a literal, a call or already in them.
std::string parenthesised(const std::string& s) {
  const std::string text = Code::parse(s, 0).text;
  size_t open = text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:");
  if (!text.empty() && open == std::string::npos) return s;
  if (open == std::string::npos || text[open] != '(' || text.back() != ')') return "(" + s + ")";
  // A call or parentheses: the '(' at `open` must close at the end.
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < text.size()) return "(" + s + ")";
  }
  return s;
}

}  // namespace

bool struct_result(const FunctionDecl* f, const UnitFacts& unit) {
  QualType t = result_type(f);
  return t->isRecordType() && !is_value_class(t, unit) && !is_container(t);
}

std::string pushforward_name(const FunctionDecl* fn, const Mask& mask, const UnitFacts& unit) {
  std::vector<bool> all = all_differentiable(fn);
  // With integer tangents, another function than the one without (its integers' tangents are 0).
  std::string name = base_name(fn, unit) + (integer_tangents() ? "_pushforward_int" : "_pushforward");
  if (std::vector<bool>(mask.begin(), mask.end()) == all) return name;
  name += "_";
  for (bool b : mask) name += b ? '1' : '0';
  return name;
}

std::string PushforwardEmitter::tangent_params() const {
  std::string s;
  for (const Var* v : ir_.params)
    if (v->differentiable) s += ", [[maybe_unused]] " + tangent_parameter(v, "_d_" + v->name);
  return s;
}

// The type a pushforward of result type `r` returns: its value and its tangent (a vector of
// tangents in vector mode).
std::string PushforwardEmitter::value_and_pushforward(QualType r) const {
  return "::adjoint::value_and_pushforward<" + types_.str(r) + (lanes_ ? ", " + tangent_declaration(r, "") : "") + ">";
}

std::string PushforwardEmitter::signature(const Emitter& names, const Code* body) const {
  QualType r = result_type(ir_.fn).getUnqualifiedType();
  std::string result = ir_.returns_value || struct_result(ir_.fn, ir_.unit) ? value_and_pushforward(r) : types_.str(r);
  std::string params = names.params(body) + tangent_params();
  if (ir_.params.empty() && !params.empty()) params = params.substr(2);
  return result + " " + name_of(ir_.fn, mask_) + "(" + params + ")";
}

std::string PushforwardEmitter::definition(const Emitter& names) {
  Code body;
  body.depth = 1;
  for (Node* c : ir_.body->children) node(c, body);
  const auto& top = ir_.body->children;
  bool ends_in_return = !top.empty() && top.back()->kind == NodeKind::Jump && top.back()->jump == JumpKind::Return;
  if (!ends_in_return && ir_.ret) body.line(return_statement());
  Code code;
  code.open("inline " + signature(names, &body) + " {");
  for (auto& v : ir_.vars) {
    // A loop counter is declared by its loop, so that an outer request sees a canonical loop.
    if (v->kind == VarKind::Param || v->counter) continue;
    for (const std::string& name : {v->name, "_d_" + v->name}) {
      if ((name == v->name && declared_in_place(v.get())) || scalar_declared_in_place(v.get())) continue;
      if (!body.uses(name)) continue;
      std::string declared =
          "[[maybe_unused]] " + (name == v->name || !lanes_ ? types_.declare(v->type.getUnqualifiedType(), name)
                                                            : tangent_declaration(v->type.getUnqualifiedType(), name));
      std::string z = v->type->isRecordType() && !is_container(v->type) ? zero_struct(v->type, types_) : "";
      // A scalar initialised by `=`: the pushforward stays in the language adjc reads, so an outer
      // request can differentiate it (docs/adjc-internals.md, "Nested requests").
      if (v->type->isScalarType())
        z = v->type->isFloatingType() ? literal(0, v->type) : v->type->isPointerType() ? "nullptr" : "0";
      code.line(!z.empty() && z.back() != '}' ? declared + " = " + z + ";" : declared + "{};");
    }
  }
  code.append(body);
  code.close();
  return code.str();
}

// Returns at the return itself (no tape to unwind): the pushforward needs no goto.
std::string PushforwardEmitter::return_statement() const {
  if (!ir_.ret) return "return;";
  if (!ir_.returns_value && !struct_result(ir_.fn, ir_.unit)) return "return " + use(ir_.ret->name) + ";";
  std::string d = act_.of(ir_.ret) ? use("_d_" + ir_.ret->name) : zero_of(ir_.ret->type);
  return "return {" + use(ir_.ret->name) + ", " + d + "};";
}

void PushforwardEmitter::node(Node* n, Code& code) {
  switch (n->kind) {
    case NodeKind::Block:
      code.open("{");
      children(n, code);
      code.close();
      return;
    case NodeKind::Assign: return assign(n, code);
    case NodeKind::Call: return call(n, code);
    case NodeKind::If:
      code.open("if (" + print_.primal(n->cond) + ") {");
      children(n->then_node, code);
      if (n->else_node) {
        code.close("} else {");
        ++code.depth;
        children(n->else_node, code);
      }
      code.close();
      return;
    case NodeKind::Loop: return loop(n, code);
    case NodeKind::Jump: return jump(n, code);
  }
}

void PushforwardEmitter::children(Node* block, Code& code) {
  for (Node* c : block->children) node(c, code);
}

void PushforwardEmitter::assign(Node* n, Code& code) {
  std::string lhs = n->target ? use(n->target->name) : print_.primal(n->lhs);
  QualType t = n->target ? n->target->type : n->lhs->getType();
  const Var* region = n->target ? n->target : n->memory_root;
  // The tangent first: it reads the values the assignment overwrites.
  if (n->rhs && region && act_.of(region) && (is_floating(t) || t->isRecordType())) {
    std::string d = n->target && scalar_tangent(n->target) ? use("_d_" + n->target->name) : tangent_place(n->lhs);
    if (!t->isRecordType()) name_call_values(n->rhs, code);
    const std::string r = parenthesised(print_.primal(n->rhs)), l = parenthesised(lhs);
    if (t->isRecordType()) {
      const Expr* rhs = strip(n->rhs, ir_.unit);
      bool varied = reads_varied(ir_, act_, rhs);
      if (varied && !has_place(rhs) && !(isa<CallExpr>(rhs) && ir_.call_result.count(cast<CallExpr>(rhs))))
        diags_.error(rhs->getBeginLoc(), Diag::tangent_unsupported_expression, {"this struct value"});
      else if (n->op == BO_Assign) code.line(assignment(d, varied ? tangent_place(rhs) : zero_of(t), t));
    } else {
      std::string dr = tangent(n->rhs);
      switch (n->op) {
        case BO_Assign:
          if (declares(n)) {
            QualType u = t.getUnqualifiedType();
            d = "[[maybe_unused]] " + (lanes_ ? tangent_declaration(u, d) : types_.declare(u, d));
          }
          code.line(declares(n) ? initialised(d, dr.empty() ? zero_of(t) : dr)
                                : d + " = " + (dr.empty() ? zero_of(t) : dr) + ";");
          break;
        case BO_AddAssign:
          if (!dr.empty()) code.line(d + " += " + dr + ";");
          break;
        case BO_SubAssign:
          if (!dr.empty()) code.line(d + " -= " + dr + ";");
          break;
        case BO_MulAssign:
          code.line(dr.empty() ? d + " *= " + r + ";" : d + " = " + d + " * " + r + " + " + l + " * " + dr + ";");
          break;
        case BO_DivAssign:
          code.line(dr.empty() ? d + " /= " + r + ";"
                               : d + " = (" + d + " * " + r + " - " + l + " * " + dr + ") / (" + r + " * " + r + ");");
          break;
        default: diags_.error(n->loc, Diag::tangent_unsupported_expression, {"this compound assignment"});
      }
    }
  }
  if (!n->rhs) code.line(std::string(n->op == BO_AddAssign ? "++" : "--") + lhs + ";");
  else if (declares(n))
    // A later stage's copy of a value may be set and never read, as at the top.
    code.line((scalar_declared_in_place(n->target) ? "[[maybe_unused]] " : "") +
              types_.declare(n->target->type.getUnqualifiedType(), lhs) + " = " + print_.primal(n->rhs) + ";");
  else code.line(lhs + " " + BinaryOperator::getOpcodeStr(n->op).str() + " " + print_.primal(n->rhs) + ";");
  print_.temps.clear();
}

void PushforwardEmitter::name_call_values(const Expr* e, Code& code) {
  if (!e || isa<ConditionalOperator>(e) || isa<LambdaExpr>(e)) return;  // a branch may not run it
  if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isLogicalOp()) return;
  for (const Stmt* child : e->children()) name_call_values(dyn_cast_or_null<Expr>(child), code);
  const Expr* s = strip(e, ir_.unit);
  if (!isa<CallExpr>(s) || print_.temps.count(s) || !is_floating(s->getType()) || !reads_varied(ir_, act_, s)) return;
  std::optional<DerivativeRule> rule = derivative_rule(s);
  if (!rule || !rule->needs_value) return;
  // Unlike the function's locals, which may hold an earlier stage's temporaries.
  std::string name;
  auto taken = [&](const std::string& n) {
    return std::any_of(ir_.vars.begin(), ir_.vars.end(), [&](const auto& v) { return v->name == n; });
  };
  do name = "_value" + std::to_string(temp_++);
  while (taken(name));
  code.line("const " + types_.declare(s->getType().getUnqualifiedType(), name) + " = " + print_.primal(s) + ";");
  print_.temps[s] = name;
}

void PushforwardEmitter::call(Node* n, Code& code) {
  const FunctionDecl* f = n->call->getDirectCallee();
  const NamedDecl* custom = custom_pushforward(f, ir_.unit);
  bool generated = !custom && callee_kind(f, ir_.unit) != CalleeKind::Plain && f->getDefinition();
  // A custom pushforward returning void for a callee returning a value says the callee has no
  // derivative (Clad's convention): the call runs as written, its result's tangent 0. A void
  // callee's pushforward returns void and writes its tangents through its tangent parameters.
  const auto* custom_fn = dyn_cast_or_null<FunctionDecl>(custom);
  // So does a function marked non_differentiable.
  const bool no_derivative =
      (custom_fn && custom_fn->getReturnType()->isVoidType() && !f->getReturnType()->isVoidType()) ||
      non_differentiable(f);
  if (no_derivative || n->refilled || !ir_.hoisted.count(n->call) || !call_active(ir_, act_, n) ||
      carries_no_tangent(n)) {
    std::string s = print_.call_text(n->call);
    code.line(n->result ? assignment(use(n->result->name), s, n->result->type) : s + ";");
    if (no_derivative && n->result && act_.of(n->result))
      code.line(assignment(use("_d_" + n->result->name), "0", n->result->type));
    return;
  }
  if (!custom && !generated) {
    // Reported by check-tangents, except an integer result under integer tangents, unchecked there.
    diags_.error(n->call->getBeginLoc(), Diag::tangent_call_without_pushforward,
                 {f->getQualifiedNameAsString(), base_name(f, ir_.unit) + "_pushforward"});
    return;
  }
  Mask callee_mask;
  std::string targs = call_tangent_args(n, callee_mask, code);
  std::string args;
  for (const AdArg& a : ad_args(n->call)) args += (args.empty() ? "" : ", ") + print_.argument(a);
  if (!args.empty() && !targs.empty()) args += ", ";
  if (custom && lanes_)
    diags_.error(n->call->getBeginLoc(), Diag::tangent_unsupported_expression, {"a custom pushforward in vector mode"});
  std::string name = custom ? qualifier(custom) + custom->getNameAsString() : qualifier(f) + name_of(f, callee_mask);
  if (generated) callees.push_back({f, callee_mask});
  std::string text = name + "(" + args + targs + ")";
  // A generated pushforward returns a struct result with its tangent, as a floating one; a custom
  // one must declare a result holding both (Clad's ValueAndPushforward, say).
  bool with_tangent = is_floating(result_type(f)) ||
                      (struct_result(f, ir_.unit) && (generated || (custom && holds_value_and_pushforward(custom_fn))));
  if (n->result && !with_tangent && act_.of(n->result)) {
    // Its pushforward returns the value alone.
    diags_.error(n->call->getBeginLoc(), Diag::tangent_unsupported_expression,
                 {"a call whose result of type '" + result_type(f).getAsString() + "' carries a derivative"});
    return;
  }
  if (!n->result || !with_tangent) {
    code.line(n->result ? assignment(use(n->result->name), text, n->result->type) : text + ";");
    return;
  }
  std::string t = "_pf" + std::to_string(temp_++);
  code.open("{");
  // Of its type, written out: an outer request reads this pushforward too.
  // A custom pushforward returns what it declares (Clad's ValueAndPushforward, say).
  const std::string type = !custom ? value_and_pushforward(result_type(f).getUnqualifiedType())
                           : custom_fn && !custom_fn->getReturnType()->isDependentType()
                               ? types_.str(custom_fn->getReturnType().getUnqualifiedType())
                               : "auto";
  code.line(type + " " + t + " = " + text + ";");
  code.line(assignment(use(n->result->name), t + ".value", n->result->type));
  if (act_.of(n->result)) code.line(assignment(use("_d_" + n->result->name), t + ".pushforward", n->result->type));
  code.close();
}

// The tangent arguments of call `n`, one per differentiable parameter of the callee; `callee_mask`
// gets which of them vary (the others are zero, or nullptr for memory, which the callee's
// pushforward for that mask never reads).
std::string PushforwardEmitter::call_tangent_args(Node* n, Mask& callee_mask, Code& code) {
  std::vector<AdParam> params = ad_params(n->call->getDirectCallee());
  std::vector<AdArg> args = ad_args(n->call);
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) {
    QualType pt = params[i].type.getCanonicalType();
    if (i >= args.size() || !is_differentiable(pt)) {
      callee_mask.push_back(false);
      continue;
    }
    const Expr* arg = args[i].expr;
    bool indirect = pt->isReferenceType() || pt->isPointerType() || pt->isRecordType();
    bool by_value = !indirect || value_reference(ir_, pt, arg);
    const Var* region = by_value ? nullptr : memory_root(ir_, arg);
    bool varied = arg_varied(ir_, act_, pt, arg) || (region && act_.of(region));
    callee_mask.push_back(varied);
    std::string d;
    if (!indirect) {
      d = varied ? tangent(arg) : "";
      if (d.empty()) d = zero_of(pt.getNonReferenceType());
    } else if (by_value) {
      // A `const T&` bound to a value: its tangent in a temporary of ours.
      QualType vt = pt.getNonReferenceType().getUnqualifiedType();
      std::string temp = "_dv" + std::to_string(temp_++), dt = varied ? tangent(arg) : "";
      code.line(initialised(tangent_declaration(vt, temp), dt.empty() ? zero_of(vt) : dt));
      d = "&" + temp;
    } else if (!varied) {
      d = "nullptr";
    } else if (!has_place(strip(arg, ir_.unit))) {
      diags_.error(arg->getBeginLoc(), Diag::tangent_unsupported_expression, {"this argument"});
      d = "nullptr";
    } else {
      d = (pt->isPointerType() && !args[i].address ? "" : "&") + tangent_place(arg);
    }
    out += (out.empty() ? "" : ", ") + d;
  }
  return out;
}

void PushforwardEmitter::loop(Node* n, Code& code) {
  std::string id = std::to_string(n->id);
  std::string cond = n->cond ? print_.primal(n->cond) : "true";
  code.open("{");
  if (n->parallel) {
    // Run serially: every variable is the function's (forward mode has no per-thread copies yet).
    const std::string i = use(n->counter->name);
    std::string compare = n->step > 0 ? (n->inclusive ? " <= " : " < ") : (n->inclusive ? " >= " : " > ");
    code.open("for (" + counter_declaration(n->counter) + " = " + print_.primal(n->start) + "; " + i + compare +
              print_.primal(n->bound) + "; " + i + " += " + std::to_string(n->step) + ") {");
  } else if (n->counter) {
    const std::string i = use(n->counter->name);
    std::string inc = n->step == 1 ? "++" + i : n->step == -1 ? "--" + i : i + " += " + std::to_string(n->step);
    code.open("for (" + counter_declaration(n->counter) + " = " + print_.primal(n->start) + "; " + cond + "; " + inc +
              ") {");
  } else if (n->form == LoopForm::Do) {
    code.open("do {");
  } else {
    code.open("while (" + cond + ") {");
  }
  children(n->body, code);
  bool has_continue = false;
  for (const Node* j : n->jumps) has_continue |= j->jump == JumpKind::Continue;
  if (!n->counter && has_continue) code.line("_continue" + id + ":;");
  if (n->inc) children(n->inc, code);
  code.close(n->form == LoopForm::Do && !n->counter ? "} while (" + cond + ");" : "}");
  code.close();
}

std::string PushforwardEmitter::counter_declaration(const Var* counter) const {
  return types_.declare(counter->type.getUnqualifiedType(), counter->name);
}

void PushforwardEmitter::jump(Node* n, Code& code) {
  if (n->jump == JumpKind::Return) return code.line(return_statement());
  if (n->jump == JumpKind::Break) return code.line("break;");
  if (n->target_loop->counter) return code.line("continue;");
  code.line("goto _continue" + std::to_string(n->target_loop->id) + ";");
}

std::string PushforwardEmitter::tangent(const Expr* e) {
  e = strip(e, ir_.unit);
  if (!reads_varied(ir_, act_, e)) return "";
  if (auto* c = dyn_cast<CallExpr>(e); c && ir_.call_result.count(c)) {
    const Var* r = ir_.call_result.at(c);
    return act_.of(r) ? use("_d_" + r->name) : "";
  }
  if (scalar_tangent(ir_.var(e))) return use("_d_" + ir_.var(e)->name);
  if (is_value_class(e->getType(), ir_.unit)) {
    diags_.error(e->getBeginLoc(), Diag::tangent_unsupported_expression, {"a value class"});
    return "";
  }
  if (has_place(e) && is_floating(e->getType())) return tangent_place(e);
  return rule_tangent(e);
}

// An operation's tangent: the sum of its operands' tangents, each through its partial.
std::string PushforwardEmitter::rule_tangent(const Expr* e) {
  std::optional<DerivativeRule> rule = derivative_rule(e);
  if (!rule) {
    Message m = unsupported_construct(e);
    diags_.error(e->getBeginLoc(), Diag::tangent_unsupported_expression, {m.args.empty() ? "this" : m.args[0]});
    return "";
  }
  QualType t = e->getType();
  std::vector<std::string> operands;
  for (const Expr* o : rule->operands) operands.push_back(parenthesised(print_.primal(o)));
  const std::string value = parenthesised(print_.primal(e));
  auto operand = [&](std::size_t i) { return operands.at(i); };
  auto result = [&] { return value; };
  if (!rule->condition.empty()) {
    std::string a = tangent(rule->operands[rule->chosen]), b = tangent(rule->operands[rule->other]);
    if (a.empty() && b.empty()) return "";
    return "(" + expand_rule(rule->condition, "", operand, result, t) + " ? " + (a.empty() ? zero_of(t) : a) + " : " +
           (b.empty() ? zero_of(t) : b) + ")";
  }
  if (auto* b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Div && is_integer_number(t)) {
    // Clad's quotient rule, whose integer truncation a Clad user's numbers follow.
    std::string da = tangent(b->getLHS()), db = tangent(b->getRHS());
    const std::string a = operand(0), d = operand(1);
    return "((" + (da.empty() ? "0" : parenthesised(da) + " * " + d) + " - " +
           (db.empty() ? "0" : a + " * " + parenthesised(db)) + ") / (" + d + " * " + d + "))";
  }
  std::string sum;
  for (int i : differentiated_operands(*rule)) {
    std::string d = tangent(rule->operands[i]);
    if (d.empty()) continue;
    sum += (sum.empty() ? "" : " + ") + expand_rule(rule->partials[i], parenthesised(d), operand, result, t);
  }
  return sum.empty() ? "" : parenthesised(sum);
}

std::string PushforwardEmitter::tangent_place(const Expr* e) const {
  e = strip(e, ir_.unit);
  if (auto* c = dyn_cast<CallExpr>(e); c && ir_.call_result.count(c)) return use("_d_" + ir_.call_result.at(c)->name);
  if (scalar_tangent(ir_.var(e))) return use("_d_" + ir_.var(e)->name);
  return print_.adjoint(e);
}

std::string PushforwardEmitter::initialised(const std::string& declared, const std::string& value) const {
  return lanes_ ? declared + "(" + value + ");" : declared + " = " + value + ";";
}

std::string PushforwardEmitter::zero_of(QualType t) const {
  t = t.getNonReferenceType().getUnqualifiedType();
  return is_floating(t) ? literal(0, t) : zero(t, types_, ir_.unit);
}

}  // namespace adjc
