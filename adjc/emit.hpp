#pragma once
// Emission: prints one function's forward sweep (`f_forward`) and its reverse sweep for one
// activity pattern (`f_reverse`), and the signatures of its pullback, as C++ text. The members
// are defined by job: emit.cpp (signatures, declarations, tape pushes and pops shared by both
// sweeps), emit_forward.cpp, emit_reverse.cpp (the reverse's control flow) and emit_statement.cpp
// (the reverse of one assignment or call).

#include <clang/Basic/SourceManager.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "derivatives.hpp"
#include "print.hpp"
#include "tape_plan.hpp"

namespace adjc {

// Which parameters are active: one flag per ad_params entry.
using Mask = std::vector<bool>;

// A mask as text ("101"), the key of what is generated per (function, mask).
inline std::string mask_key(const Mask& m) {
  std::string s;
  for (bool b : m) s += b ? '1' : '0';
  return s;
}

// A callee's generated reverse sweep for an activity pattern, requested while emitting a caller:
// `family` is "" for the sweeps planned under full activity, or the suffix of the pair planned for
// the pattern (Emitter::family).
struct CalleeRequest {
  const clang::FunctionDecl* fn;
  Mask mask;
  std::string family;
};

// Emits the sweeps of one function.
class Emitter {
  using Expr = clang::Expr;
  using FunctionDecl = clang::FunctionDecl;
  using QualType = clang::QualType;
  using SourceLocation = clang::SourceLocation;
  using SourceManager = clang::SourceManager;

 public:
  // The planned function: its tape plan, loop plans, and locals private to each iteration of a loop.
  Emitter(const FunctionIR& ir, const TapePlan& plan, const LoopPlans& loops, const IterationLocals& iteration,
          const TypePrinter& types, SourceManager& sm)
      : ir_(ir), plan_(plan), loops_(loops), iteration_(iteration), types_(types), sm_(sm), print_(ir, types) {}

  std::vector<CalleeRequest> callees;
  // The suffix of this function's sweeps (`f_forward<family>`, `f_reverse<family>`): "" for the
  // pair planned under full activity, which every pattern may use.
  std::string family;
  // The family of a callee's sweeps for a pattern (the generator's choice); unset: "".
  std::function<std::string(const FunctionDecl*, const Mask&)> callee_family;

  // Signatures; given the body, parameters it never uses are marked [[maybe_unused]].
  std::string forward_signature(const Code* body = nullptr) const;
  std::string reverse_signature(const Mask& mask, const std::string& suffix, const Code* body = nullptr) const;
  std::string params(const Code* body = nullptr) const;
  // The adjoint result argument and one adjoint per differentiable parameter.
  std::string adjoint_params(const Mask& mask, const Code* body = nullptr) const;
  // The type a parameter's adjoint points to: what the parameter points or refers to, unqualified
  // (array elements too).
  static QualType adjoint_pointee(QualType t, clang::ASTContext& context);
  // The declaration of the adjoint parameter `name` of a parameter of type `t` (its type alone for
  // an empty name).
  static std::string adjoint_param(QualType t, const std::string& name, const TypePrinter& types,
                                   clang::ASTContext& context);
  // f_forward: the original computation plus the pushes the reverse sweep pops.
  std::string forward();
  // f_reverse for one activity pattern.
  std::string reverse(const Mask& mask, const Activity& act);

 private:
  const FunctionIR& ir_;
  const TapePlan& plan_;
  const LoopPlans& loops_;
  const IterationLocals& iteration_;
  const TypePrinter& types_;
  SourceManager& sm_;
  Printer print_;
  Activity act_;
  int temp_ = 0;
  Node* parallel_ = nullptr;                                     // parallel loop being emitted
  std::set<const Var*> partitioned_;                             // its regions each thread owns a part of
  std::vector<std::pair<Node*, size_t>> scopes_;                 // reverse: blocks and the child being reversed
  std::map<const clang::CallExpr*, std::string> call_families_;  // the reverse's choice, which the forward follows

  // ----- shared by both sweeps (emit.cpp)
  bool exit_codes() const;
  void line_directive(Code& code, SourceLocation loc) const;
  bool in_scope(const Var* v, const Node* parallel) const;
  std::string zero_declaration(const Var* v, const std::string& name) const;
  // Clad's `::clad::zero_like(v)`: the zero adjoint of a class value shaped as v's (has_zero_like).
  std::string zero_like(const Var* v) const;
  std::string stateful_forward_call(Node* n, QualType state, Code& code);
  void declare_vars(Code& code, const Node* parallel, const Code& body, bool reverse) const;
  std::vector<Var*> kept(const Node* parallel) const;
  void push_kept(Code& code, const Node* parallel) const;
  void pop_kept(Code& code, const Node* parallel) const;
  std::string heap_allocation(const Var* heap, bool adjoint) const;
  std::string push(const std::string& value, const Var* v = nullptr) const;
  std::string pop(const std::string& lvalue, QualType type, const Var* v = nullptr) const;
  std::vector<Var*> iteration_kept(const Node* loop) const;
  void push_iteration(Code& code, const Node* loop) const;
  bool pop_iteration_needed(const Node* loop) const;
  void pop_iteration(Code& code, const Node* loop) const;
  std::string callee_name(const FunctionDecl* f, const std::string& suffix) const;
  std::string accumulation(const std::string& target, const std::string& value, QualType t) const;
  const Node* branch_bits_loop(const Node* n) const;
  std::vector<const Node*> branch_bits(const Node* loop) const;
  static std::string branch_word(const Node* branch);
  bool has_continue(const Node* loop) const;
  std::string bulk_first(const Node* loop) const;

  // ----- the forward sweep (emit_forward.cpp)
  void forward_node(Node* n, Code& code);
  void forward_children(Node* block, Code& code);
  void forward_jump(Node* n, Code& code);
  void forward_loop(Node* n, Code& code);
  void forward_parallel(Node* n, Code& code);
  static std::string parallel_counter(const Node* n);

  // ----- the reverse sweep: control flow (emit_reverse.cpp)
  void recompute(Node* block, size_t upto, Code& code);
  void reverse_block(Node* block, Code& code, bool recompute_locals);
  void reverse_node(Node* n, Code& code);
  void reverse_jump(Node* n, Code& code);
  void dispatch(Node* loop, const std::string& exit, Code& code);
  const Node* only_branch(const Node* loop) const;
  void reverse_taken_iterations(Node* n, const Node* branch, Code& code);
  void reverse_loop(Node* n, Code& code);
  bool simd_pragma(const Node* n, Code& code) const;
  void declare_iteration_locals(const Node* loop, Code& code) const;
  std::string bulk_restore(const Node* loop) const;
  void reverse_parallel(Node* n, Code& code);

  // ----- the reverse of one statement (emit_statement.cpp)
  void reverse_statement(Node* n, Code& out);
  static void prune_temps(std::vector<Code::Line>& lines);
  static void merge_accumulations(std::vector<Code::Line>& lines);
  void reverse_assign(Node* n, Code& code);
  void reverse_call(Node* n, Code& code);
  std::string declare_scalar_adjoint(QualType t, Code& code);
  // A value-initialised local of type `t` (an enum too) a custom pullback may write and adjc drops.
  std::string declare_scratch(QualType t, Code& code);
  std::string temp(const std::string& prefix = "_t");
  bool private_adjoint(const Expr* e) const;
  void accumulate(Code& code, const std::string& target, const std::string& value, bool is_private, QualType t = {});
  void bind_values(const Expr* e, Code& code, const std::vector<const Expr*>& extra = {});
  std::string bind_adjoint(const std::string& adj, QualType t, Code& code);
  std::string value(const Expr* x) const;
  std::string expand(const std::string& pattern, const std::string& adj, const DerivativeRule& rule, const Expr* e,
                     QualType t) const;
  void propagate(const Expr* e, const std::string& adj_in, Code& code);
};

}  // namespace adjc
