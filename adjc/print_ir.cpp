// `--print-after`: one function's IR and the analyses' results so far, as indented text. Each
// node is one line (`#order kind what [flags]`), each variable one line of the table; what the
// pipeline keeps beside the IR shows in the flags (activity, the tape plan's and the loop plans'
// decisions, once made) and after the body (reverse reads, written regions).
#include <clang/AST/PrettyPrinter.h>
#include <llvm/Support/raw_ostream.h>

#include "pipeline.hpp"
#include "print.hpp"

namespace adjc {

using namespace clang;

namespace {

struct IrPrinter {
  const FunctionState& state;
  PrintingPolicy policy;
  std::string out;

  std::string expr(const Expr* e) const {
    if (!e) return "-";
    std::string s;
    llvm::raw_string_ostream os(s);
    e->printPretty(os, nullptr, policy);
    return os.str();
  }
  static std::string name(const Var* v) { return v ? v->name : "-"; }
  static std::string node_ref(const Node* n) { return n ? "#" + std::to_string(n->order) : "-"; }
  static std::string names(const std::vector<Var*>& vars) {
    std::string s;
    for (const Var* v : vars) s += (s.empty() ? "" : ",") + v->name;
    return s;
  }

  void var_line(const Var* v) {
    static const char* kinds[] = {"param", "local", "call-result", "return"};
    std::string flags;
    auto flag = [&](bool on, const std::string& word) {
      if (on) flags += (flags.empty() ? "" : " ") + word;
    };
    flag(v->floating, "floating");
    flag(v->value, "value-class");
    flag(v->pointer, "pointer");
    flag(v->memory, "memory");
    flag(v->reference, "reference");
    flag(v->heap, "heap");
    flag(v->differentiable, "differentiable");
    flag(v->counter, "counter");
    flag(!state.full.varied.empty() && state.full.of(v), "varied");
    static const VarPlan unplanned;
    const VarPlan& plan = state.plan.vars.empty() ? unplanned : state.plan[v];
    flag(plan.read_in_reverse, "read-in-reverse");
    flag(plan.recompute, "recompute");
    flag(plan.kept, "kept");
    flag(state.iteration.of(v), "iteration=" + node_ref(state.iteration.of(v)));
    flag(v->root && v->root != v, "root=" + name(v->root));
    flag(v->assignments > 0, "assignments=" + std::to_string(v->assignments));
    out += "  %" + std::to_string(v->index) + " " + v->name + ": " + kinds[int(v->kind)] + " " +
           v->type.getAsString(policy) + (flags.empty() ? "" : " [" + flags + "]") + "\n";
  }

  std::string what(const Node* n) const {
    switch (n->kind) {
      case NodeKind::Block: return "block";
      case NodeKind::Assign: {
        std::string lhs = n->lhs ? expr(n->lhs) : name(n->target);
        std::string op = BinaryOperator::getOpcodeStr(n->op).str();
        return "assign " + lhs + (n->rhs ? " " + op + " " + expr(n->rhs) : op == "+=" ? "++" : "--");
      }
      case NodeKind::Call: return "call " + (n->result ? n->result->name + " = " : "") + expr(n->call);
      case NodeKind::If: return "if (" + expr(n->cond) + ")";
      case NodeKind::Loop:
        return std::string(n->parallel ? "parallel " : "") + "loop L" + std::to_string(n->id) +
               (n->counter ? " " + n->counter->name + " from " + expr(n->start) : "") + " while (" + expr(n->cond) +
               ")" + (n->step ? " step " + std::to_string(n->step) : "");
      case NodeKind::Jump: {
        static const char* jumps[] = {"break", "continue", "return"};
        return std::string(jumps[int(n->jump)]) + (n->target_loop ? " " + node_ref(n->target_loop) : "");
      }
    }
    return "?";
  }

  std::string flags(const Node* n) const {
    std::string s;
    auto flag = [&](bool on, const std::string& word) {
      if (on) s += (s.empty() ? "" : " ") + word;
    };
    flag(n->definition, "definition");
    static const NodePlan unplanned;
    const NodePlan& plan = state.plan.nodes.empty() ? unplanned : state.plan[n];
    const BulkSave* bulk = state.loops.bulk_of(n);
    const std::vector<Var*>* simd_sums = state.loops.simd_of(n);
    flag(plan.active, "active");
    flag(plan.save, "save");
    flag(plan.reverse, "reverse");
    flag(plan.result_in_target, "result-in-target");
    flag(state.loops.saved_in_bulk(n), "bulk");
    flag(bulk, "bulk-write=" + node_ref(bulk ? bulk->write : nullptr));
    flag(simd_sums, "simd-reverse sums=" + names(simd_sums ? *simd_sums : std::vector<Var*>{}));
    flag(plan.bounds_in_reverse, "bounds-in-reverse");
    flag(plan.cond_in_reverse, "cond-in-reverse");
    flag(plan.recomputed_sum, "recomputed-sum=" + name(plan.recomputed_sum));
    flag(!plan.taped_regions.empty(), "taped=" + names(plan.taped_regions));
    flag(n->refilled, "refilled=" + name(n->refilled));
    flag(!n->reductions.empty(), "reductions=" + names(n->reductions));
    return s.empty() ? "" : " [" + s + "]";
  }

  void node(const Node* n, int depth, const char* role) {
    if (!n) return;
    out += std::string(2 * depth, ' ') + (role ? std::string(role) + ": " : "") + node_ref(n) + " " + what(n) +
           flags(n) + "\n";
    for (const Node* c : n->children) node(c, depth + 1, nullptr);
    node(n->then_node, depth + 1, "then");
    node(n->else_node, depth + 1, "else");
    node(n->body, depth + 1, "body");
    node(n->inc, depth + 1, "inc");
  }
};

}  // namespace

void print_state(const FunctionState& state, const std::string& pass, std::FILE* out) {
  const FunctionIR& ir = *state.ir;
  IrPrinter p{state, PrintingPolicy(state.context.getLangOpts()), ""};
  p.policy.SuppressTagKeyword = true;
  p.out = "*** after " + pass + ": " + ir.fn->getQualifiedNameAsString() + (ir.valid ? "" : " (invalid)") + "\n";
  p.out += "vars:\n";
  for (const auto& v : ir.vars) p.var_line(v.get());
  if (ir.body) {
    p.out += "body:\n";
    p.node(ir.body, 1, nullptr);
  }
  if (!state.plan.reads.empty()) {
    p.out += "reverse reads:";
    for (const ReadSite& r : state.plan.reads) p.out += " " + p.name(r.var) + "@" + p.node_ref(r.node);
    p.out += "\n";
  }
  if (!state.written.empty()) {
    p.out += "written regions:";
    for (const auto& v : ir.vars)
      if (state.written.count(v.get())) p.out += " " + v->name;
    p.out += "\n";
  }
  for (const FusionDecision& d : state.fusions)
    p.out += "fusion " + p.node_ref(d.producer) + " -> " + p.node_ref(d.consumer) + " through " + d.intermediate +
             ": " + (d.refusal.empty() ? d.space : "no, " + d.refusal) +
             (d.kept_for.empty() ? "" : ", kept stored for line " + d.kept_for) +
             (d.fused ? ", fused into " + p.node_ref(d.fused) : "") +
             (d.unfused.empty() ? "" : ", not fused: " + d.unfused) + "\n";
  std::fputs(p.out.c_str(), out);
}

}  // namespace adjc
