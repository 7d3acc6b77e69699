// Emission of the forward sweep, `f_forward`: the original computation plus the pushes the reverse
// sweep pops (emit.hpp).
#include "closures.hpp"
#include "emit.hpp"

namespace adjc {

using namespace clang;

// f_forward: the original computation plus the pushes the reverse sweep pops.
std::string Emitter::forward() {
  Code body;
  body.depth = 1;
  for (Node* c : ir_.body->children) forward_node(c, body);
  if (!ir_.returns.empty()) body.line("_forward_end:;");
  push_kept(body, nullptr);
  if (exit_codes()) body.line("::adjoint::detail::push(_exit);");
  // A struct whose move constructor is deleted is returned by its copy constructor.
  if (auto* record = ir_.ret ? ir_.ret->type->getAsCXXRecordDecl() : nullptr; record && deleted_move(record))
    body.line("return static_cast<const " + types_.str(ir_.ret->type.getUnqualifiedType()) + "&>(" +
              use(ir_.ret->name) + ");");
  else if (ir_.ret) body.line("return " + use(ir_.ret->name) + ";");
  Code code;
  line_directive(code, ir_.fn->getLocation());
  code.open("inline " + forward_signature(&body) + " {");
  declare_vars(code, nullptr, body, false);
  if (exit_codes()) code.line("long _exit = 0;");
  code.append(body);
  code.close();
  return code.str();
}

void Emitter::forward_node(Node* n, Code& code) {
  switch (n->kind) {
    case NodeKind::Block:
      code.open("{");
      for (Node* c : n->children) forward_node(c, code);
      code.close();
      return;
    case NodeKind::Assign: {
      line_directive(code, n->loc);
      std::string lhs = n->target ? use(n->target->name) : print_.primal(n->lhs);
      if (plan_[n].save && !loops_.saved_in_bulk(n)) code.line(push(lhs, n->target));
      if (!n->rhs) code.line(std::string(n->op == BO_AddAssign ? "++" : "--") + lhs + ";");
      else code.line(lhs + " " + BinaryOperator::getOpcodeStr(n->op).str() + " " + print_.primal(n->rhs) + ";");
      if (n->allocates) code.line(use(n->allocates->name) + " = " + heap_allocation(n->allocates, false) + ";");
      return;
    }
    case NodeKind::Call: {
      line_directive(code, n->loc);
      if (n->refilled) {  // a local vector's resize, assign or clear: the vector taped whole first
        code.line(push(use(n->refilled->name), n->refilled));
        code.line(print_.call_text(n->call) + ";");
        return;
      }
      for (const Var* v : plan_[n].taped_regions) code.line(push(use(v->name), v));
      const FunctionDecl* f = n->call->getDirectCallee();
      bool lambda = called_through_forward(f, ir_.unit);
      bool generated =
          ir_.hoisted.count(n->call) && (plan_[n].active || lambda) && callee_kind(f, ir_.unit) == CalleeKind::User;
      if (generated && !plan_[n].active) callees.push_back({f, Mask(ad_params(f).size(), false), ""});
      std::string s = print_.call_text(n->call) + ";";
      if (QualType state; plan_[n].active && custom_reverse_forw(f, ir_.unit, &state))
        s = stateful_forward_call(n, state, code);
      if (generated) {
        auto family = call_families_.find(n->call);
        s = callee_name(f, "_forward" + (family == call_families_.end() ? "" : family->second)) + "(";
        bool first = true;
        for (const AdArg& a : ad_args(n->call)) s += (first ? "" : ", ") + print_.argument(a), first = false;
        s += ");";
      }
      if (!plan_[n].save) {
        code.line(n->result ? assignment(use(n->result->name), s.substr(0, s.size() - 1), n->result->type) : s);
        return;
      }
      // The old value goes on the tape after the callee's own pushes, so that the reverse pops
      // it first (restoring what the arguments read) and the pullback then pops the callee's.
      const std::string r = use(n->result->name);
      code.open("{");
      code.line("const " + types_.declare(n->result->type.getUnqualifiedType(), "_saved") + " = " + r + ";");
      code.line(assignment(r, s.substr(0, s.size() - 1), n->result->type));
      code.line(push("_saved"));
      code.close();
      return;
    }
    case NodeKind::If: {
      line_directive(code, n->loc);
      code.open("if (" + print_.primal(n->cond) + ") {");
      forward_children(n->then_node, code);
      const Node* bits = branch_bits_loop(n);
      if (bits) code.line(branch_word(n) + " |= 1ull << ((_n" + std::to_string(bits->id) + " - 1) & 63);");
      bool record = plan_[n].reverse && !bits && !plan_[n].cond_in_reverse;
      if (record) code.line("::adjoint::detail::push(true);");
      if (n->else_node || record) {
        code.close("} else {");
        ++code.depth;
        if (n->else_node) forward_children(n->else_node, code);
        if (record) code.line("::adjoint::detail::push(false);");
      }
      code.close();
      return;
    }
    case NodeKind::Loop: return n->parallel ? forward_parallel(n, code) : forward_loop(n, code);
    case NodeKind::Jump: return forward_jump(n, code);
  }
}

// Clad's `f_reverse_forw(args..., adjoints..., *state)` in the place of `f(args...)` (its `.value`
// for a result it keeps), after a new clad::pullback_state<S> goes on the tape for the pullback. The forward
// sweep has no adjoints: it passes null pointers and zero values for them.
std::string Emitter::stateful_forward_call(Node* n, QualType state, Code& code) {
  const FunctionDecl* f = n->call->getDirectCallee();
  const std::string name = temp("_state");
  code.line("auto* const " + name + " = new " + types_.str(state) + "{};");
  code.line("::adjoint::detail::push(" + name + ");");
  std::string call = custom_pullback_name(custom_reverse_forw(f, ir_.unit), types_) + "(";
  for (const AdArg& a : ad_args(n->call)) call += print_.argument(a) + ", ";
  for (const AdParam& p : ad_params(f))
    if (is_differentiable(p.type))
      call += p.type->isPointerType() || p.type->isReferenceType() ? "nullptr, " : "{}, ";
  call += "*" + name + ")";
  return call + (n->result ? ".value;" : ";");
}

void Emitter::forward_children(Node* block, Code& code) {
  for (Node* c : block->children) forward_node(c, code);
}

void Emitter::forward_jump(Node* n, Code& code) {
  std::string id = std::to_string(n->id);
  if (n->jump == JumpKind::Return) {
    if (exit_codes()) code.line("_exit = " + id + ";");
    code.line("goto _forward_end;");
    return;
  }
  Node* loop = n->target_loop;
  std::string push = plan_[loop].reverse ? "::adjoint::detail::push(" + id + "l); " : "";
  if (n->jump == JumpKind::Break) return code.line("{ " + push + "break; }");
  if (loop->counter) return code.line("{ " + push + "continue; }");
  code.line("{ " + push + "goto _continue" + std::to_string(loop->id) + "; }");
}

void Emitter::forward_loop(Node* n, Code& code) {
  std::string id = std::to_string(n->id);
  line_directive(code, n->loc);
  code.open("{");
  // The trip count, for the tape or for the branch bits.
  const bool counted = plan_[n].reverse && (!plan_[n].bounds_in_reverse || !branch_bits(n).empty());
  if (counted) code.line("long _n" + id + " = 0;");
  std::string cond = n->cond ? print_.primal(n->cond) : "true";
  for (const Node* b : branch_bits(n)) code.line("unsigned long long " + branch_word(b) + " = 0;");
  if (n->counter) {
    code.line("const long _s" + id + " = " + print_.primal(n->start) + ";");
    if (loops_.bulk_of(n))
      code.line("::adjoint::detail::push_n(" + bulk_first(n) + ", ::adjoint::detail::trip_count(_s" + id + ", " +
                print_.primal(n->end) + "));");
    const std::string i = use(n->counter->name);
    std::string inc = n->step == 1 ? "++" + i : n->step == -1 ? "--" + i : i + " += " + std::to_string(n->step);
    code.open("for (" + i + " = _s" + id + "; " + cond + "; " + inc + ") {");
  } else if (n->form == LoopForm::Do) {
    code.open("do {");
  } else {
    code.open("while (" + cond + ") {");
  }
  if (counted) code.line("++_n" + id + ";");
  forward_children(n->body, code);
  push_iteration(code, n);
  for (const Node* b : branch_bits(n))
    code.line("if ((_n" + id + " & 63) == 0) { ::adjoint::detail::push(" + branch_word(b) + "); " + branch_word(b) +
              " = 0; }");
  if (plan_[n].reverse && !n->jumps.empty()) code.line("::adjoint::detail::push(0l);");
  if (!n->counter && has_continue(n)) code.line("_continue" + id + ":;");
  if (n->inc) forward_children(n->inc, code);
  code.close(n->form == LoopForm::Do ? "} while (" + cond + ");" : "}");
  for (const Node* b : branch_bits(n))
    code.line("if ((_n" + id + " & 63) != 0) ::adjoint::detail::push(" + branch_word(b) + ");");
  if (plan_[n].reverse && !plan_[n].bounds_in_reverse) {
    if (n->counter) code.line("::adjoint::detail::push(_s" + id + ");");
    code.line("::adjoint::detail::push(_n" + id + ");");
  }
  code.close();
}

void Emitter::forward_parallel(Node* n, Code& code) {
  std::string id = std::to_string(n->id);
  line_directive(code, n->loc);
  code.open("{");
  code.line("const long _s" + id + " = " + print_.primal(n->start) + ";");
  code.line("const long _n" + id + " = ::adjoint::detail::trip_count(_s" + id + ", " + print_.primal(n->bound) + ", " +
            std::to_string(n->step) + ", " + (n->inclusive ? "true" : "false") + ");");
  code.line("int _threads" + id + " = 1;");
  // Reduction variables: each thread adds into a copy of its own, which OpenMP adds into the
  // variable at the end of the region.
  std::string clauses = n->threads ? " num_threads(" + print_.primal(n->threads) + ")" : "";
  for (size_t r = 0; r < n->reductions.size(); ++r)
    clauses += (r == 0 ? " reduction(+ : " : ", ") + use(n->reductions[r]->name) +
               (r + 1 == n->reductions.size() ? ")" : "");
  code.line("#pragma omp parallel" + clauses);
  code.open("{");
  Code body;
  body.depth = code.depth;
  body.line("const int _thread = ::adjoint::detail::thread_index();");
  body.line("if (_thread == 0) _threads" + id + " = ::adjoint::detail::thread_count();");
  body.line("long _lo, _hi;");
  body.line("::adjoint::detail::thread_chunk(_n" + id + ", _thread, ::adjoint::detail::thread_count(), _lo, _hi);");
  body.open("for (long _k = _lo; _k < _hi; ++_k) {");
  body.line(use(n->counter->name) + " = " + parallel_counter(n) + ";");
  Node* saved = parallel_;
  parallel_ = n;
  forward_children(n->body, body);
  push_iteration(body, n);
  body.close();
  push_kept(body, n);
  parallel_ = saved;
  declare_vars(code, n, body, false);
  code.append(body);
  code.close();
  if (plan_[n].reverse) {
    code.line("::adjoint::detail::push(_s" + id + ");");
    code.line("::adjoint::detail::push(_n" + id + ");");
    code.line("::adjoint::detail::push(static_cast<long>(_threads" + id + "));");
  }
  code.close();
}

// The counter of parallel loop `n` in the iteration `_k` of its trip count.
std::string Emitter::parallel_counter(const Node* n) {
  std::string start = "_s" + std::to_string(n->id);
  return n->step == 1 ? start + " + _k" : start + " + _k * " + std::to_string(n->step) + "l";
}

}  // namespace adjc
