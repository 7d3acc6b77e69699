// `--print-after`: one function's IR and the analyses' results so far, as indented text. Each
// node is one line (`#order kind what [flags]`), each variable one line of the table; what the
// pipeline keeps beside the IR (activity, reverse reads, written regions) follows.
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
    flag(v->read_in_reverse, "read-in-reverse");
    flag(v->recompute, "recompute");
    flag(v->kept, "kept");
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
    flag(n->active, "active");
    flag(n->save, "save");
    flag(n->reverse, "reverse");
    flag(n->result_in_target, "result-in-target");
    flag(n->bulk, "bulk");
    flag(n->bulk_write, "bulk-write=" + node_ref(n->bulk_write));
    flag(n->simd_reverse, "simd-reverse sums=" + names(n->simd_sums));
    flag(n->bounds_in_reverse, "bounds-in-reverse");
    flag(n->cond_in_reverse, "cond-in-reverse");
    flag(n->recomputed_sum, "recomputed-sum=" + name(n->recomputed_sum));
    flag(!n->taped_regions.empty(), "taped=" + names(n->taped_regions));
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
  if (!state.reads.empty()) {
    p.out += "reverse reads:";
    for (const ReadSite& r : state.reads) p.out += " " + p.name(r.var) + "@" + p.node_ref(r.node);
    p.out += "\n";
  }
  if (!state.written.empty()) {
    p.out += "written regions:";
    for (const auto& v : ir.vars)
      if (state.written.count(v.get())) p.out += " " + v->name;
    p.out += "\n";
  }
  std::fputs(p.out.c_str(), out);
}

}  // namespace adjc
