// `--remarks`: the tape plan's decisions a user cares about, one line each at the statement or
// loop they are about: why a value is taped, why a loop's taped write is saved one element at a
// time rather than in bulk, why a loop's reverse is not vectorised; and at a kernel call reading
// what the call before it wrote, whether their loops fuse or why not.
#include <clang/Basic/SourceManager.h>

#include "pipeline.hpp"

namespace adjc {

using namespace clang;

namespace {

struct RemarkPrinter {
  const SourceManager& sm;
  std::FILE* out;

  std::string line_of(SourceLocation loc) const {
    PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(loc));
    return p.isValid() ? std::to_string(p.getLine()) : "?";
  }
  void remark(SourceLocation loc, const std::string& text) const {
    PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(loc));
    if (p.isInvalid()) return;
    std::fprintf(out, "%s:%u:%u: remark: %s\n", p.getFilename(), p.getLine(), p.getColumn(), text.c_str());
  }
};

// Whether `loop` directly holds a statement whose old value is taped.
bool tapes_in_body(const TapePlan& plan, const Node* loop) {
  for (const Node* n : loop->body->children)
    if (plan[n].save) return true;
  return false;
}

bool has_inner_loop(const Node* loop) {
  bool inner = false;
  for_each_node(loop->body, [&](const Node* n) { inner |= n->kind == NodeKind::Loop; });
  return inner;
}

std::string called_name(const Node* call) { return call->call->getDirectCallee()->getNameAsString(); }

}  // namespace

void print_remarks(const FunctionState& state, std::FILE* out) {
  RemarkPrinter p{state.context.getSourceManager(), out};
  const std::string fn = "'" + state.ir->fn->getNameAsString() + "'";
  for (const Node* n : state.all) {
    if (n->kind == NodeKind::Assign && state.plan[n].save) {
      const Var* written = n->target ? n->target : n->memory_root;
      auto read = state.save_reads.find(n);
      std::string why = read != state.save_reads.end()
                            ? "the reverse sweep of line " + p.line_of(read->second->node->loc) + " reads it"
                            : "the reverse sweep reads it";
      p.remark(n->loc, "in " + fn + ", the value this assignment overwrites in '" + written->source_name() +
                           "' is taped" + (state.loops.saved_in_bulk(n) ? " (in bulk, with its loop)" : "") + ": " +
                           why);
    }
    if (n->kind != NodeKind::Loop) continue;
    if (auto it = state.loops.not_bulk.find(n); it != state.loops.not_bulk.end() && tapes_in_body(state.plan, n))
      p.remark(n->loc,
               "in " + fn + ", this loop's taped writes are saved one element at a time, not in bulk: " + it->second);
    // A loop around other loops is not vectorised itself: its inner loops' remarks say more.
    if (auto it = state.loops.not_simd.find(n); it != state.loops.not_simd.end() && !has_inner_loop(n))
      p.remark(n->loc, "in " + fn + ", this loop's reverse is not vectorised: " + it->second);
  }
  for (const FusionDecision& d : state.fusions) {
    const std::string pair = "in " + fn + ", the calls of '" + called_name(d.producer) + "' (line " +
                             p.line_of(d.producer->loc) + ") and '" + called_name(d.consumer) + "'";
    const std::string kept = d.kept_for.empty() ? "" : ", keeping it stored for line " + d.kept_for;
    if (d.fused) p.remark(d.consumer->loc, pair + " are fused " + d.space + " through '" + d.intermediate + "'" + kept);
    else if (d.refusal.empty())
      p.remark(d.consumer->loc, pair + " can fuse " + d.space + " through '" + d.intermediate + "'" + kept +
                                    " (not fused: " + d.unfused + ")");
    else p.remark(d.consumer->loc, pair + " cannot fuse through '" + d.intermediate + "': " + d.refusal);
  }
}

}  // namespace adjc
