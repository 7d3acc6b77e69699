#pragma once
// The small statement IR adjc differentiates: the function body lowered from clang's AST into
// assignments, calls, ifs, loops and jumps, with every variable hoisted and uniquely named.
// Expressions stay clang Exprs. The IR holds what lowering builds; the analyses' decisions are
// result objects beside it (Activity, IterationLocals, TapePlan, LoopPlans: tape_plan.hpp).

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "adjc.hpp"

namespace adjc {

struct Node;
struct UnitFacts;

enum class VarKind { Param, Local, CallResult, Return };

struct Var {
  int index = 0;
  // Unique in the function (generated code; Lowering::unique_name); diagnostics use source_name().
  // Never starts with `_d` and is never `result`: its adjoint is `_d_<name>`, the seed `_d_result`.
  std::string name;
  clang::QualType type;  // for references: the referenced type
  const clang::VarDecl* decl = nullptr;
  VarKind kind = VarKind::Local;
  bool floating = false;  // a floating scalar (has a scalar adjoint)
  bool value = false;     // a value-class handle (its adjoint is another handle, starting empty)
  bool pointer = false;   // a pointer variable (its adjoint is derived from its root's)
  bool memory = false;    // the variable is memory: array, struct, or reference
  // A local pointer given `new T[n]` (or `new T(v)`): memory of its own, of `heap_size` elements,
  // allocated by the forward sweep and freed, with its adjoint, at the end of the reverse.
  bool heap = false;
  Var* heap_size = nullptr;
  bool reference = false;
  bool differentiable = false;        // parameters: can have an adjoint
  int param_index = -1;               // position in FunctionIR::params
  clang::QualType param_type;         // parameters: the declared type (the object: `const C*`)
  Var* root = nullptr;                // pointers: the memory they point into (pointer params: self)
  const clang::Expr* base = nullptr;  // local pointers: the root pointer expression they offset
  Node* parallel = nullptr;           // the parallel loop whose threads own it (nullptr: function)
  Node* block = nullptr;              // the block that declares it (locals)
  Node* definition = nullptr;         // the declaring assignment (locals)
  bool counter = false;               // the counter of a canonical loop
  int assignments = 0;                // assignment nodes writing it

  // The name as the user wrote it (a shadowing local or a parameter's copy is `x`, not `x_1`).
  std::string source_name() const {
    return decl && decl->getIdentifier() ? decl->getName().str() : name;
  }
};

// The reverse sweep's sum of the adjoints of a parameter's assignments (`_dsum_x`: no variable's
// adjoint starts `_ds`).
inline std::string accumulator_name(const Var* v) { return "_dsum_" + v->name; }

enum class NodeKind { Block, Assign, Call, If, Loop, Jump };
enum class JumpKind { Break, Continue, Return };
enum class LoopForm { For, While, Do };

struct Node {
  NodeKind kind = NodeKind::Block;
  const clang::Stmt* stmt = nullptr;  // source statement (locations, #line)
  clang::SourceLocation loc;
  int order = 0;  // pre-order position
  Node* parent = nullptr;
  std::vector<Node*> loops;  // enclosing loops, outermost first

  // Block
  std::vector<Node*> children;

  // Assign: `lhs op rhs`; a scalar target is `target`, memory targets are `lhs`.
  Var* target = nullptr;
  const clang::Expr* lhs = nullptr;
  clang::BinaryOperatorKind op = clang::BO_Assign;
  const clang::Expr* rhs = nullptr;  // nullptr: ++/-- (op is BO_AddAssign / BO_SubAssign)
  bool definition = false;           // a declaration's initialisation
  Var* memory_root = nullptr;        // memory targets: the region written
  Var* allocates = nullptr;          // `_n = size` of a heap array: the forward allocates it after

  // Call: a call to a user function (or one with a custom pullback), hoisted out of expressions.
  const clang::CallExpr* call = nullptr;
  Var* result = nullptr;  // nullptr for a discarded result
  // A local std::vector's resize, assign or clear (lower_containers.cpp): the forward tapes the
  // vector whole before it, the reverse restores it and clears the adjoints of what it replaced.
  Var* refilled = nullptr;

  // If
  const clang::Expr* cond = nullptr;
  Node* then_node = nullptr;
  Node* else_node = nullptr;

  // Loop: form, cond, body; `init` runs before (non-canonical), `inc` at the end of each iteration.
  LoopForm form = LoopForm::For;
  Node* body = nullptr;
  Node* inc = nullptr;
  Var* counter = nullptr;  // canonical loops: `for (int i = start; cond; i += step)`
  const clang::Expr* start = nullptr;
  const clang::Expr* end = nullptr;   // counted upwards while `i < end`
  const clang::Expr* last = nullptr;  // or while `i <= last`
  long step = 0;
  bool parallel = false;
  // Parallel loops: the counter runs while `i < bound` (`<=` if inclusive; `>`, `>=` for a negative
  // step), so the trip count the threads split is known before the loop.
  const clang::Expr* bound = nullptr;
  bool inclusive = false;
  const clang::Expr* threads = nullptr;  // num_threads(k)
  // reduction(+ : s): shared scalars each thread sums into a copy of its own, which OpenMP adds
  // into the variable after the loop. The body only adds to them (`s += e`), so the reverse of
  // every iteration reads the same adjoint and none writes it.
  std::vector<Var*> reductions;
  std::vector<Node*> jumps;  // breaks/continues targeting this loop
  int id = 0;                // loops: label number; jumps: exit code

  // Jump
  JumpKind jump = JumpKind::Break;
  Node* target_loop = nullptr;
};

// A function lowered to the IR.
struct FunctionIR {
  FunctionIR(const clang::FunctionDecl* f, const UnitFacts& u) : fn(f), unit(u) {}

  const clang::FunctionDecl* fn;
  const UnitFacts& unit;  // what its translation unit declares (classify.hpp)
  std::vector<std::unique_ptr<Var>> vars;
  std::vector<std::unique_ptr<Node>> nodes;
  std::map<const clang::VarDecl*, Var*> var_of;
  // Local structs used only through their members (`s.x`) are split: each member is a variable.
  std::map<std::pair<const clang::VarDecl*, const clang::FieldDecl*>, Var*> member_var;
  std::map<const clang::CallExpr*, Var*> call_result;  // hoisted call -> its result temp
  // Constructors lowered in place (lower_structs.cpp): each `this` in them is a local object.
  std::map<const clang::CXXThisExpr*, Var*> this_object;
  std::set<const clang::CallExpr*> hoisted;
  // Non-const globals the function reads through a local copy made at its start (copy_read_globals).
  std::set<const clang::VarDecl*> copied_globals;
  Node* body = nullptr;
  std::vector<Var*> params;  // the object of a member function (`self`) first, then the parameters
  Var* self = nullptr;       // member functions: `this`
  Var* ret = nullptr;        // return value
  std::vector<Node*> returns;
  std::vector<Node*> parallel_loops;
  bool returns_value = false;  // returns a floating value or a value class (has a d_result)
  bool valid = true;

  // DeclRef to a variable of this function, `this`, a member `s.x` of a split local struct, or a
  // hoisted call (its result).
  Var* var(const clang::Expr* e) const;
};

// Visits `n` and every node under it in pre-order (a block's children, then an if's branches, a
// loop's body and increment): the order of Node::order.
template <class N, class F>
void for_each_node(N* n, F&& f) {
  if (!n) return;
  f(n);
  for (N* c : n->children) for_each_node(c, f);
  for_each_node(static_cast<N*>(n->then_node), f);
  for_each_node(static_cast<N*>(n->else_node), f);
  for_each_node(static_cast<N*>(n->body), f);
  for_each_node(static_cast<N*>(n->inc), f);
}

// The region (array, struct, reference or pointer parameter) an lvalue or pointer expression
// lies in; nullptr when `e` is not memory of this function's variables.
Var* memory_root(const FunctionIR& ir, const clang::Expr* e);

// The name of variable `v` as the user wrote it at `e`, which names it: `s.p` for a split struct's
// member (whose Var is `s_p`).
std::string written_name(const Var* v, const clang::Expr* e);

// `p[i]`, `s.m`, `*p`: an expression that reads memory.
bool is_memory_read(const clang::Expr* e);

// Whether `e` reads an arithmetic value from the memory of `region` (not an address).
bool reads_value_of(const FunctionIR& ir, const clang::Expr* e, const Var* region);
// Whether addressing the place `place` (`m[k]`, `s.x`) reads an arithmetic value from `region`.
bool place_reads_value_of(const FunctionIR& ir, const clang::Expr* place, const Var* region);

// Variables read anywhere in `e` (including through memory: the region roots), appended to `out`.
void variables_read(const FunctionIR& ir, const clang::Expr* e, std::vector<Var*>& out);

// Whether local `v` is declared in `block` or in a block inside it.
bool declared_in(const Var* v, const Node* block);

// Whether a and b run in a common loop; for a variable private to each iteration of `within`,
// only loops inside that iteration count.
bool shares_loop(const Node* a, const Node* b, const Node* within = nullptr);

// Whether node `n` lies in `block` (or is it).
bool encloses(const Node* block, const Node* n);

// Whether `n` is inside `loop`.
bool inside(const Node* n, const Node* loop);

}  // namespace adjc
