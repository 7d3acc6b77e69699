// Emission of the reverse sweep, `f_reverse`: the control flow run backwards, with the pops and
// the recomputation of locals (emit.hpp).
#include <algorithm>

#include "containers.hpp"
#include "emit.hpp"
#include "iteration.hpp"

namespace adjc {

using namespace clang;

// f_reverse for one activity pattern.
std::string Emitter::reverse(const Mask& mask, const Activity& act) {
  act_ = act;
  Code body;
  body.depth = 1;
  if (ir_.ret && ir_.returns_value && act_.of(ir_.ret))
    body.line(assignment(use("_d_" + ir_.ret->name), use("_d_result"), ir_.ret->type));
  if (exit_codes()) body.line("const long _exit = ::adjoint::detail::pop_count();");
  pop_kept(body, nullptr);
  const size_t after_pops = body.lines.size();
  if (exit_codes())
    for (Node* r : ir_.returns)
      body.line("if (_exit == " + std::to_string(r->id) + ") goto _L" + std::to_string(r->id) + ";");
  reverse_block(ir_.body, body, false);
  // A local std::vector's adjoint has the vector's (final) size, zero; a heap array's is allocated
  // zero here and freed, with the array, at the end; a class with Clad's zero_like starts as
  // zero_like of the value.
  Code sizes;
  sizes.depth = 1;
  for (auto& v : ir_.vars) {
    const std::string adjoint = "_d_" + v->name;
    if (v->kind != VarKind::Param && v.get() != ir_.ret && body.uses(adjoint) && has_zero_like(v->type))
      sizes.line(assignment(use(adjoint), zero_like(v.get()), v->type));
    if (v->kind == VarKind::Local && is_vector(v->type) && body.uses(adjoint))
      sizes.line(use(adjoint) + ".resize(" + use(v->name) + ".size());");
    if (v->heap && v->heap_size && body.uses(adjoint))
      sizes.line(use(adjoint) + " = " + heap_allocation(v.get(), true) + ";");
  }
  body.lines.insert(body.lines.begin() + after_pops, sizes.lines.begin(), sizes.lines.end());
  for (auto& v : ir_.vars)
    if (v->kind == VarKind::Param && (v->floating || v->value) && v->assignments > 0 && mask[v->param_index])
      body.line(accumulation("*" + use("_d_" + v->name), use(accumulator_name(v.get())), v->type));
  for (auto& v : ir_.vars)
    if (v->heap) {
      if (body.uses("_d_" + v->name)) body.line("delete[] " + use("_d_" + v->name) + ";");
      body.line("delete[] " + use(v->name) + ";");
    }
  Code code;
  line_directive(code, ir_.fn->getLocation());
  code.open("inline " + reverse_signature(mask, "_reverse", &body) + " {");
  declare_vars(code, nullptr, body, true);
  code.append(body);
  code.close();
  return code.str();
}

void Emitter::recompute(Node* block, size_t upto, Code& code) {
  for (size_t i = 0; i < upto && i < block->children.size(); ++i) {
    Node* c = block->children[i];
    if (c->kind == NodeKind::Assign && c->definition && c->target && plan_[c->target].recompute)
      code.line(use(c->target->name) + " = " + print_.primal(c->rhs) + ";");
    else if (c->kind == NodeKind::Call && c->result && plan_[c->result].recompute)
      code.line(assignment(use(c->result->name), print_.call_text(c->call), c->result->type));
    else if (c->kind == NodeKind::Loop && plan_[c].recomputed_sum)
      code.line("for (" + use(c->counter->name) + " = " + print_.primal(c->start) + "; " + print_.primal(c->cond) +
                "; " + use(c->counter->name) + " += " + std::to_string(c->step) + ") " +
                use(plan_[c].recomputed_sum->name) + " " +
                BinaryOperator::getOpcodeStr(c->body->children[0]->op).str() + " " +
                print_.primal(c->body->children[0]->rhs) + ";");
  }
}

void Emitter::reverse_block(Node* block, Code& code, bool recompute_locals) {
  if (recompute_locals) recompute(block, block->children.size(), code);
  scopes_.push_back({block, 0});
  for (size_t i = block->children.size(); i-- > 0;) {
    scopes_.back().second = i;
    Node* c = block->children[i];
    if (plan_[c].reverse) reverse_node(c, code);
  }
  scopes_.pop_back();
}

void Emitter::reverse_node(Node* n, Code& code) {
  switch (n->kind) {
    case NodeKind::Block:
      code.open("{");
      reverse_block(n, code, true);
      code.close();
      return;
    case NodeKind::Assign:
    case NodeKind::Call: return reverse_statement(n, code);
    case NodeKind::If:
      line_directive(code, n->loc);
      if (plan_[n].cond_in_reverse) code.open("if (" + print_.primal(n->cond) + ") {");
      else if (const Node* bits = branch_bits_loop(n))
        code.open("if (((" + branch_word(n) + " >> (_k" + std::to_string(bits->id) + " & 63)) & 1) != 0) {");
      else code.open("if (::adjoint::detail::pop_branch()) {");
      reverse_block(n->then_node, code, true);
      code.close("} else {");
      ++code.depth;
      if (n->else_node) reverse_block(n->else_node, code, true);
      code.close();
      return;
    case NodeKind::Loop: return n->parallel ? reverse_parallel(n, code) : reverse_loop(n, code);
    case NodeKind::Jump: return reverse_jump(n, code);
  }
}

void Emitter::reverse_jump(Node* n, Code& code) {
  std::string label = "_L" + std::to_string(n->id) + ":;";
  if (n->jump == JumpKind::Return) {
    if (exit_codes()) code.line(label);
    return;
  }
  code.line(label);
  // Locals defined before the jump in this iteration: the dispatch skipped their recomputation.
  size_t first = 0;
  while (first < scopes_.size() && scopes_[first].first != n->target_loop->body) ++first;
  for (size_t i = first; i < scopes_.size(); ++i) recompute(scopes_[i].first, scopes_[i].second, code);
}

void Emitter::dispatch(Node* loop, const std::string& exit, Code& code) {
  for (Node* j : loop->jumps)
    code.line("if (" + exit + " == " + std::to_string(j->id) + ") goto _L" + std::to_string(j->id) + ";");
}

// A loop whose only reverse work is one branch recorded in bits (a running maximum's `if`):
// iterations that did not take it have nothing to undo, so the reverse visits only the set bits.
const Node* Emitter::only_branch(const Node* loop) const {
  std::vector<const Node*> bits = branch_bits(loop);
  if (bits.size() != 1 || loops_.bulk_of(loop) || (bits[0]->else_node && plan_[bits[0]->else_node].reverse))
    return nullptr;
  for (const Node* c : loop->body->children)
    if (plan_[c].reverse && c != bits[0]) return nullptr;
  return bits[0];
}

void Emitter::reverse_taken_iterations(Node* n, const Node* branch, Code& code) {
  std::string id = std::to_string(n->id), word = branch_word(branch), k = "_k" + id;
  if (!plan_[n].bounds_in_reverse) code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
  code.line("const long _w" + id + " = (_n" + id + " + 63) / 64;");
  code.line("unsigned long long " + word + " = (_n" + id +
            " & 63) != 0 ? ::adjoint::detail::pop<unsigned long long>() : 0;");
  code.open("for (long _i" + id + " = _w" + id + " - 1; _i" + id + " >= 0; --_i" + id + ") {");
  code.line("if (_i" + id + " != _w" + id + " - 1 || (_n" + id + " & 63) == 0) " + word +
            " = ::adjoint::detail::pop<unsigned long long>();");
  code.open("while (" + word + " != 0) {");
  code.line("const int _bit" + id + " = ::adjoint::detail::highest_bit(" + word + ");");
  code.line("const long " + k + " = _i" + id + " * 64 + _bit" + id + ";");
  code.line(use(n->counter->name) + " = _s" + id + " + " + k +
            (n->step == 1 ? "" : " * " + std::to_string(n->step) + "l") + ";");
  reverse_block(n->body, code, true);
  code.line(word + " &= ~(1ull << _bit" + id + ");");
  code.close();
  code.close();
}

void Emitter::reverse_loop(Node* n, Code& code) {
  std::string id = std::to_string(n->id);
  line_directive(code, n->loc);
  code.open("{");
  const BulkSave* bulk = loops_.bulk_of(n);
  if (plan_[n].bounds_in_reverse) {
    // Evaluated as the forward loop did (NodePlan::bounds_in_reverse): s, then ceil((E - s) / step).
    std::string trips = "::adjoint::detail::trip_count(_s" + id + ", " +
                        (n->end ? print_.primal(n->end) : "(" + print_.primal(n->last) + ") + 1l") + ")";
    code.line("const long _s" + id + " = " + print_.primal(n->start) + ";");
    code.line("const long _n" + id + " = " +
              (n->step == 1 ? trips : "(" + trips + " + " + std::to_string(n->step - 1) + ") / " +
                                          std::to_string(n->step)) +
              ";");
  } else {
    code.line("const long _n" + id + " = ::adjoint::detail::pop_count();");
  }
  if (const Node* branch = only_branch(n); branch && !pop_iteration_needed(n)) {
    reverse_taken_iterations(n, branch, code);
    code.close();
    return;
  }
  if (n->counter && n->jumps.empty()) {
    // The counter steps back from the forward loop's exit value (start + trip count * step,
    // which the forward computed), so it is an induction variable of its own type: computed
    // from the long trip counter instead, an int counter is a truncation that keeps GCC from
    // vectorising the loop.
    const std::string i = use(n->counter->name);
    std::string step = std::to_string(n->step);
    if (!plan_[n].bounds_in_reverse) code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
    code.line(i + " = _s" + id + " + _n" + id + (n->step == 1 ? "" : " * " + step + "l") + ";");
    if (bulk && bulk->restore_first) code.line(bulk_restore(n));
    std::vector<const Node*> words = branch_bits(n);  // popped in the reverse of their push order
    std::reverse(words.begin(), words.end());
    for (const Node* b : words)
      code.line("unsigned long long " + branch_word(b) + " = (_n" + id +
                " & 63) != 0 ? ::adjoint::detail::pop<unsigned long long>() : 0;");
    bool simd = simd_pragma(n, code);
    code.open("for (long _k" + id + " = _n" + id + " - 1; _k" + id + " >= 0; --_k" + id + ") {");
    code.line(n->step == 1 ? "--" + i + ";" : n->step == -1 ? "++" + i + ";" : i + " -= " + step + ";");
    if (simd) declare_iteration_locals(n, code);
    for (const Node* b : words)
      code.line("if ((_k" + id + " & 63) == 63) " + branch_word(b) +
                " = ::adjoint::detail::pop<unsigned long long>();");
  } else if (n->counter) {
    code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
    code.open("for (long _k" + id + " = _n" + id + " - 1; _k" + id + " >= 0; --_k" + id + ") {");
    code.line(use(n->counter->name) + " = _s" + id + " + _k" + id +
              (n->step == 1 ? "" : " * " + std::to_string(n->step) + "l") + ";");
  } else {
    code.open("for (long _k" + id + " = 0; _k" + id + " < _n" + id + "; ++_k" + id + ") {");
  }
  std::string exit = "_exit" + id;
  if (!n->jumps.empty()) code.line("const long " + exit + " = ::adjoint::detail::pop_count();");
  if (n->inc && plan_[n->inc].reverse) {
    std::string breaks;
    for (Node* j : n->jumps)
      if (j->jump == JumpKind::Break) breaks += (breaks.empty() ? "" : " && ") + exit + " != " + std::to_string(j->id);
    if (!breaks.empty()) code.open("if (" + breaks + ") {");
    reverse_block(n->inc, code, false);
    if (!breaks.empty()) code.close();
  }
  pop_iteration(code, n);
  dispatch(n, exit, code);
  reverse_block(n->body, code, true);
  code.close();
  if (bulk && !bulk->restore_first) code.line(bulk_restore(n));
  code.close();
}

// `omp simd` for a loop whose reverse iterations share nothing but sums (LoopPlans::simd_sums),
// when some of the sums are active under this mask, or which has no sums at all (it was marked for
// the arrays it writes); the counter steps back by the loop's step.
bool Emitter::simd_pragma(const Node* n, Code& code) const {
  const std::vector<Var*>* simd_sums = loops_.simd_of(n);
  if (!simd_sums) return false;
  std::string sums;
  for (const Var* v : *simd_sums)
    if (act_.of(v)) sums += (sums.empty() ? "" : ", ") + print_.scalar_adjoint(v);
  if (sums.empty() && !simd_sums->empty()) return false;
  const std::string linear = "linear(" + use(n->counter->name) + " : " + std::to_string(-n->step) + ")";
  code.line("ADJOINT_SIMD(" + linear + (sums.empty() ? "" : " reduction(+ : " + sums + ")") + ")");
  return true;
}

// The locals of a vectorised reverse loop's iteration, and their adjoints, declared in it so that
// each iteration has its own (their adjoints start at zero in every iteration, as in sequence).
void Emitter::declare_iteration_locals(const Node* loop, Code& code) const {
  for (auto& v : ir_.vars) {
    if (v->kind != VarKind::Local || !declared_in(v.get(), loop->body)) continue;
    code.line(zero_declaration(v.get(), v->name));
    if (v->floating) code.line(zero_declaration(v.get(), "_d_" + v->name));
  }
}

std::string Emitter::bulk_restore(const Node* loop) const {
  return "::adjoint::detail::pop_n(" + bulk_first(loop) + ", _n" + std::to_string(loop->id) + ");";
}

void Emitter::reverse_parallel(Node* n, Code& code) {
  std::string id = std::to_string(n->id);
  line_directive(code, n->loc);
  code.open("{");
  code.line("const long _threads" + id + " = ::adjoint::detail::pop_count();");
  code.line("const long _n" + id + " = ::adjoint::detail::pop_count();");
  code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
  // Adjoints every iteration may add into (summed_regions): each thread adds into a copy of its
  // own, declared in the region under the adjoint's name, and the copies are summed after the loop.
  partitioned_ = counter_indexed_regions(ir_, n);
  std::vector<std::string> sums, copies;
  for (auto [region, extent] : summed_regions(ir_, plan_, n)) {
    if (!act_.of(region)) continue;
    std::string slot = std::to_string(sums.size()), name = "_sums" + id + "_" + slot;
    code.line("::adjoint::detail::thread_sums " + name + "(_d_" + region->name + ", " + print_.primal(extent) +
              ", _threads" + id + ", " + slot + ");");
    sums.push_back(name);
    copies.push_back("const auto _d_" + region->name + " = " + name + ".part(::adjoint::detail::thread_index());");
    partitioned_.insert(region);
  }
  code.line("#pragma omp parallel num_threads(_threads" + id + ")");
  code.open("{");
  Code body;
  body.depth = code.depth;
  body.line("::adjoint::detail::require_thread_count(static_cast<int>(_threads" + id + "));");
  for (const std::string& copy : copies) body.line(copy);
  Node* saved = parallel_;
  parallel_ = n;
  pop_kept(body, n);
  body.line("long _lo, _hi;");
  body.line("::adjoint::detail::thread_chunk(_n" + id +
            ", ::adjoint::detail::thread_index(), ::adjoint::detail::thread_count(), _lo, _hi);");
  body.open("for (long _k = _hi - 1; _k >= _lo; --_k) {");
  body.line(use(n->counter->name) + " = " + parallel_counter(n) + ";");
  pop_iteration(body, n);
  reverse_block(n->body, body, true);
  body.close();
  if (!sums.empty()) body.line("#pragma omp barrier");
  for (const std::string& name : sums) body.line(name + ".add_share(::adjoint::detail::thread_index());");
  parallel_ = saved;
  declare_vars(code, n, body, true);
  code.append(body);
  code.close();
  code.close();
}

}  // namespace adjc
