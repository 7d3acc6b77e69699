#pragma once
// Lowering (clang AST -> IR) as one object per function: the state it keeps while it walks the
// body, and its members, defined by construct in lower*.cpp; the pipeline (pipeline.cpp) runs its
// steps as passes (docs/adjc-internals.md).

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "closures.hpp"
#include "containers.hpp"
#include "function_pointers.hpp"
#include "passes.hpp"
#include "pointer_results.hpp"
#include "walk.hpp"

namespace clang {
class OMPLoopDirective;
}

namespace adjc {

struct Pass;

class Lowering {
 public:
  Lowering(FunctionIR& ir, clang::ASTContext& context, Diagnostics& diags)
      : ir_(ir), context_(context), diags_(diags) {}

  // The pipeline (pipeline.cpp) runs lowering's steps as passes of their own.
  friend std::vector<Pass> lowering_passes();

 private:
  void lower_signature();
  void lower_body();
  FunctionIR& ir_;
  clang::ASTContext& context_;
  Diagnostics& diags_;
  std::map<std::string, int> names_;
  std::vector<Node*> loops_;
  Node* parallel_ = nullptr;
  int next_id_ = 1;
  std::set<Node*> returns_from_;               // loops a `return` inside leaves
  const clang::VarDecl* returned_ = nullptr;   // `_returned`, set by a return inside a loop
  std::set<const clang::VarDecl*> split_;      // local structs split into one variable per member
  std::set<const clang::VarDecl*> objects_;    // local structs whose member functions are called: one object
  std::set<const clang::VarDecl*> addressed_;  // floating locals passed by address or non-const reference
  std::set<const clang::VarDecl*> aliases_;    // local references: each use is rewritten into the referent
  // Floating parameters passed by address or non-const reference, with the local (a one-element
  // region) that stands for each in the body.
  std::vector<std::pair<const clang::ParmVarDecl*, const clang::VarDecl*>> copied_params_;
  std::vector<std::pair<const clang::VarDecl*, const clang::VarDecl*>> global_copies_;  // global, its copy
  // Constructors lowered in place: the local object that stands for each one's `this`.
  std::map<const clang::CXXConstructorDecl*, const clang::VarDecl*> constructed_;
  const clang::VarDecl* ret_decl_ = nullptr;   // a struct result: `_ret`, written member by member
  std::set<std::pair<const clang::VarDecl*, const clang::FieldDecl*>> addressed_members_;  // the same, `s.x`
  std::set<const clang::VarDecl*> heap_;       // local pointers given a `new`: heap arrays
  // `p = (T*)realloc(p, ...)`: the new heap array's declaration, and p's (find_heap_arrays).
  std::map<const clang::VarDecl*, const clang::VarDecl*> reallocated_;
  std::set<const clang::VarDecl*> realloc_from_null_;  // `T* p = nullptr; p = (T*)realloc(p, ...);`
  std::set<const clang::VarDecl*> rejected_;   // locals whose declaration was reported: their uses are not
  // Pointer members whose values the function, or a function it calls, reads: the first read of each.
  std::optional<std::map<const clang::FieldDecl*, const clang::MemberExpr*>> pointer_reads_;
  // The uses of non-const integer globals in the function and its callees (check_global_counters).
  GlobalUses global_uses_;

  // ----- variables and nodes (lower.cpp)
  void fail(clang::SourceLocation where, Diag id, std::vector<std::string> args = {});
  void fail(clang::SourceLocation where, const Message& m) { fail(where, m.id, m.args); }
  Node* make(NodeKind kind, const clang::Stmt* stmt);
  std::string unique_name(const std::string& wanted);
  static bool generated_name(const std::string& name);
  void check_unchanged(const std::string& what, const clang::VarDecl* decl, clang::SourceLocation loc);
  bool modelled_class(const std::string& what, clang::QualType type, clang::SourceLocation loc);
  Var* make_var(const std::string& name, clang::QualType type, VarKind kind, const clang::VarDecl* decl,
                clang::SourceLocation loc);
  void check_result_type(clang::QualType type, VarKind kind, clang::SourceLocation loc);
  void set_kind_of_storage(Var* v, const std::string& name, clang::QualType type, VarKind kind,
                           clang::SourceLocation loc);
  void add(Node* block, Node* n);
  const clang::Expr* new_ref(const clang::VarDecl* vd);
  const clang::Expr* int_literal(int value, clang::QualType t = clang::QualType());
  const clang::Expr* rvalue(const clang::VarDecl* vd);
  const clang::VarDecl* new_local(const std::string& name, clang::QualType type, clang::SourceLocation at,
                                  Node* block);
  void define(const clang::VarDecl* vd, const clang::Expr* value, const clang::Stmt* stmt, Node* block);
  clang::VarDecl* synthesized(const std::string& name, clang::QualType type, clang::SourceLocation at);

  // ----- statements (lower_statements.cpp)
  void lower_compound(const clang::CompoundStmt* cs, Node* block);
  Node* lower_scope(const clang::Stmt* s);
  bool mentions_rejected(const clang::Stmt* s) const;
  void lower_decl(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_expr_stmt(const clang::Expr* e, Node* block);
  void lower_stmt(const clang::Stmt* s, Node* block);
  void lower_if(const clang::Stmt* s, const clang::Expr* cond, const clang::Stmt* then, const clang::Stmt* otherwise,
                Node* block);
  Node* lower_statements(const std::vector<const clang::Stmt*>& stmts, const clang::Stmt* owner);

  // ----- assignments and expressions (lower_expressions.cpp)
  void hoist_calls(const clang::Expr* e, Node* block, const clang::Stmt* stmt);
  bool holds_hoisted_call(const clang::Expr* e);
  clang::Expr* lower_branches(clang::Expr* e, Node* block, const clang::Stmt* stmt);
  clang::Expr* lower_branch(clang::Expr* e, Node* block, const clang::Stmt* stmt);
  clang::Expr* lower_side_effect(clang::Expr* e, Node* block, const clang::Stmt* stmt);
  const clang::Expr* lower_operands(const clang::Expr* e, Node* block, const clang::Stmt* stmt);
  void lower_assign(const clang::Stmt* stmt, const clang::Expr* lhs, clang::BinaryOperatorKind op,
                    const clang::Expr* rhs, Node* block);
  void lower_conditional_assign(const clang::Stmt* stmt, clang::ConditionalOperator* target,
                                clang::BinaryOperatorKind op, const clang::Expr* rhs, Node* block);
  const clang::Expr* pointer_base(const clang::Expr* e);
  bool point_at(Var* v, const clang::Expr* value);
  bool null_pointer(const clang::Expr* e);

  // ----- structured bindings (lower_bindings.cpp)
  void lower_bindings(clang::Stmt* body);
  void lower_binding(clang::DecompositionDecl* dd, clang::Stmt* body);
  static Message binding_outside_block(const clang::Stmt* s);

  // ----- local references and addressed parameters (lower_references.cpp)
  void find_aliases(clang::Stmt* body);
  void alias(clang::DeclStmt* decls, const clang::VarDecl* vd, clang::Stmt** rest, clang::Stmt** end);
  void pointer_alias(clang::DeclStmt* decls, const clang::VarDecl* vd, clang::Stmt** rest, clang::Stmt** end);
  void copy_addressed_params(clang::Stmt* body);
  void define_copies();
  void copy_read_globals(clang::Stmt* body);

  // ----- integer globals written as counters (global_counters.cpp)
  void check_global_counters();
  bool counter_global(const clang::Expr* target);

  // ----- local structs and arrays (lower_structs.cpp)
  void find_split_structs(const clang::Stmt* body);
  bool nested_plain_struct(clang::QualType t);
  bool splittable(clang::QualType t);
  const clang::Expr* zero_of(clang::QualType t);
  clang::InitListExpr* empty_list(clang::QualType t, clang::SourceLocation at);
  clang::Expr* member_ref(const clang::VarDecl* vd, const clang::FieldDecl* f);
  void lower_split_struct(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_object(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void check_carried_pointers(clang::QualType t, const std::string& what, clang::SourceLocation at);
  void lower_struct_assign(const clang::Stmt* stmt, const clang::Expr* lhs, const clang::Expr* value, Node* block);
  bool may_read_target(const clang::Expr* lhs, const clang::Expr* e);
  void assign_member(clang::Expr* target, const clang::Expr* init, const clang::Stmt* stmt, Node* block);
  void materialize_temporaries(clang::Expr* e, Node* block, const clang::Stmt* stmt);
  void copy_arguments_the_call_overwrites(clang::CallExpr* call, Node* block, const clang::Stmt* stmt);
  void lower_array_init(const clang::VarDecl* vd, const clang::InitListExpr* list, const clang::Stmt* stmt,
                        Node* block);
  void lower_array_elements(clang::Expr* array, const clang::InitListExpr* list, const clang::Stmt* stmt, Node* block);

  // ----- a local struct's initialisation and constructors (lower_struct_inits.cpp)
  bool member_inits(clang::QualType type, const clang::Expr* init, const clang::Stmt* stmt, Node* block,
                    std::vector<const clang::Expr*>& out);
  bool point_into(const clang::Expr* object, std::vector<const clang::Expr*>& inits, clang::SourceLocation at);
  bool listed_member_inits(const clang::RecordDecl* record, const clang::Expr* init, const clang::Stmt* stmt,
                           Node* block, std::vector<const clang::Expr*>& out);
  bool pair_member_inits(const clang::Expr* init, const std::vector<const clang::FieldDecl*>& fields,
                         std::vector<const clang::Expr*>& out);
  bool constructed_member_inits(const clang::CXXConstructExpr* construct,
                                const std::vector<const clang::FieldDecl*>& fields, const clang::Stmt* stmt,
                                Node* block, std::vector<const clang::Expr*>& out);
  bool inits_from_arguments(const clang::CXXConstructExpr* construct, const clang::CXXConstructorDecl* ctor,
                            const std::vector<const clang::FieldDecl*>& fields, std::vector<const clang::Expr*>& out);
  bool lower_constructor(const clang::CXXConstructExpr* construct, const clang::Stmt* stmt, Node* block,
                         std::vector<const clang::Expr*>& out);
  const clang::VarDecl* constructor_object(const clang::CXXConstructExpr* construct,
                                           const clang::CXXConstructorDecl* ctor);
  bool assign_constructor_parameters(const clang::CXXConstructExpr* construct, const clang::CXXConstructorDecl* ctor,
                                     const clang::Stmt* stmt, Node* block);
  // A lambda capturing by reference called where it is written (`d([&] { i *= 32; return 12.; }())`):
  // its statements lowered into `block`, and the value it returns (nullptr, reported, for another
  // such lambda); `e` itself for any other expression.
  const clang::Expr* inline_invoked_lambda(const clang::Expr* e, Node* block);
  bool lower_constructor_inits(const clang::CXXConstructorDecl* ctor, const clang::VarDecl* object,
                               const clang::Stmt* stmt, Node* block);
  bool empty_vector(const clang::Expr* e);

  // ----- control flow: loops, returns, switch (lower_control.cpp)
  // A case label's statements, up to the next label.
  struct CaseGroup {
    std::vector<const clang::Expr*> values;  // empty with `is_default`
    bool is_default = false;
    std::vector<const clang::Stmt*> body;
    clang::SourceLocation loc;
  };
  void lower_return_value(const clang::Stmt* stmt, const clang::Expr* value, Node* block);
  // What an OpenMP parallel loop's clauses ask of its lowering (lower_openmp.cpp).
  struct ParallelClauses {
    std::vector<const clang::VarDecl*> privates;    // the region's own copies: private(t), a counter declared before
    std::vector<const clang::VarDecl*> reductions;  // reduction(+ : s)
    const clang::Expr* threads = nullptr;           // num_threads(k)
  };
  void lower_for(const clang::ForStmt* fs, Node* block, const ParallelClauses* parallel = nullptr);
  void lower_loop(const clang::Stmt* s, LoopForm form, const clang::Expr* cond, const clang::Stmt* body,
                  const clang::Expr* inc, Node* block, const clang::DeclStmt* cond_decl = nullptr);
  void lower_return_in_loop(const clang::Stmt* s, Node* block);
  void leave_after_return(Node* n, Node* block);
  Node* jump(const clang::Stmt* s, JumpKind kind, Node* loop);
  const clang::VarDecl* returned_flag();
  void lower_switch(const clang::SwitchStmt* sw, Node* block);
  bool switch_cases(const clang::SwitchStmt* sw, std::vector<CaseGroup>& cases);
  bool case_fallthroughs(std::vector<CaseGroup>& cases, std::vector<bool>& falls);
  Node* case_chain(const clang::SwitchStmt* sw, const clang::Expr* cond, const std::vector<CaseGroup>& cases,
                   const std::function<Node*(size_t)>& body);
  void lower_fallthrough_cases(const clang::SwitchStmt* sw, const clang::Expr* cond,
                               const std::vector<CaseGroup>& cases, const std::vector<bool>& falls, Node* block);
  static const clang::Stmt* switch_break(const clang::Stmt* s);

  // ----- OpenMP parallel loops (lower_openmp.cpp)
  void lower_parallel_for(const clang::OMPLoopDirective* omp, Node* block);
  bool read_clauses(const clang::OMPLoopDirective* omp, clang::ForStmt* fs, ParallelClauses& clauses);
  const clang::VarDecl* region_copy(clang::ForStmt* fs, const clang::VarDecl* vd);
  void open_parallel(Node* loop, const ParallelClauses& clauses);
  void close_parallel(Node* loop);

  // ----- heap arrays: new and delete (lower_heap.cpp)
  void find_heap_arrays(const clang::Stmt* s);
  clang::VarDecl* redeclare_in_rest_of_block(clang::CompoundStmt* cs, clang::Stmt** at, const clang::VarDecl* old);
  void split_retargeted_pointers();
  void split_retargeted_pointers_in(clang::Stmt* s, std::set<const clang::VarDecl*> declared);
  void lower_heap_decl(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_allocation(const clang::VarDecl* vd, const clang::Expr* allocation, const clang::Stmt* stmt,
                        Node* block);
  bool struct_elements(const std::string& what, clang::QualType element, clang::SourceLocation at);
  void lower_delete(const clang::Expr* arg, clang::SourceLocation at, const std::string& what);
  const clang::Expr* element_count(const clang::Expr* bytes, clang::QualType element);

  // ----- std::vector and std::array (lower_containers.cpp)
  void lower_container_local(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_array_container(const clang::VarDecl* vd, const clang::Expr* init, const clang::Stmt* stmt, Node* block);
  void size_vector(const clang::VarDecl* vd, const std::vector<const clang::Expr*>& args, const clang::Stmt* stmt,
                   Node* block);
  void assign_listed(const clang::VarDecl* vd, const clang::InitListExpr* listed, const clang::Stmt* stmt, Node* block);
  void reject_closure_calls(const clang::Expr* e);
  void lower_closure(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void add_member_var(const clang::VarDecl* vd, const clang::FieldDecl* f, Var* v);
  void lower_push_back(const clang::CXXMemberCallExpr* call, const clang::Stmt* stmt, Node* block);
  void lower_refill(const clang::CXXMemberCallExpr* call, const clang::Stmt* stmt, Node* block);
  void lower_fill(const clang::CXXMemberCallExpr* call, const clang::Stmt* stmt, Node* block);
  const clang::Expr* fill_value(const clang::Expr* value, clang::QualType element, const clang::Stmt* stmt,
                                Node* block);
  void copy_container(const clang::Expr* to, const clang::Expr* from, const clang::Stmt* stmt, Node* block);
  void fill_elements(const clang::Expr* object, const clang::Expr* value, const clang::Expr* from,
                     const clang::Stmt* stmt, Node* block);
  Node* open_element_loop(clang::Expr* range, const clang::Expr* from, const clang::Stmt* stmt, const clang::Stmt* body,
                          clang::Expr*& item);
  void close_element_loop(Node* loop, Node* block);
  clang::VarDecl* loop_counter(const clang::Expr* from, clang::SourceLocation at);
  Node* open_counted_loop(clang::VarDecl* counter, clang::Expr* end, const clang::Stmt* stmt, const clang::Stmt* body);
  void copy_array_in_loop(clang::Expr* target, const clang::Expr* init, uint64_t count, const clang::Stmt* stmt,
                          Node* block);
  const clang::CallExpr* pointer_algorithm_call(const clang::Expr* e);
  void lower_pointer_algorithm(const clang::CallExpr* call, const clang::Stmt* stmt, Node* block);
  void assign_elements(clang::Expr* out, clang::Expr* from, const clang::Expr* value, const clang::Expr* count,
                       const clang::Stmt* stmt, Node* block);
  void lower_range_for(const clang::CXXForRangeStmt* rs, Node* block);
  static bool reads_variable(const clang::Expr* e);
  static const clang::InitListExpr* braced_range(const clang::CXXForRangeStmt* rs);
};

// Rewrites, in `fn`'s body, each call of an accessor (a function returning a reference that is one
// `return` of an element or member: `double& at(int i) { return d[i]; }`) into the place it names
// (inline_accessors.cpp). Calls it cannot rewrite are left, and reported by the checks.
void inline_accessor_calls(const clang::FunctionDecl* fn, clang::ASTContext& context);

// Rewrites, in place, what `fn`'s body does to std::complex values other than calls into calls of
// adjoint::complex_ops (complex_numbers.cpp): constructions from numbers, and updates in place as
// assignments `c = complex_ops::f(c, z)`. False on errors.
bool rewrite_complex_numbers(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context,
                             Diagnostics& diags);

// Whether the pointer bases `a` and `b` (pointer_base) name the same array: one variable, or one
// member of the same object.
bool same_base(const clang::Expr* a, const clang::Expr* b, const UnitFacts& unit);

// Whether evaluating `e` changes a variable or memory: an assignment, `++`/`--`, a comma operator.
bool has_side_effects(const clang::Expr* e);
// The pointer members a local struct's initialiser `init` has its constructor point at other
// members (`x_pointer(&x)`; lower_struct_inits.cpp): {pointer member, member}.
std::vector<std::pair<const clang::FieldDecl*, const clang::FieldDecl*>> own_addressed_members(const clang::Expr* init);
// Whether `vd`, an uninitialised local pointer, is only assigned and never read in `body`: it and
// its assignments are left out (lower_statements.cpp).
bool unread_local_pointer(const clang::VarDecl* vd, const clang::Stmt* body);

// Whether `stmt` writes the variable `decl` (assignment, ++/--, address taken, non-const reference
// argument).
bool writes_variable(const clang::Stmt* stmt, const clang::VarDecl* decl);

// The variables `s` names (a declaration alone names none), added to `out`.
void named_variables(const clang::Stmt* s, std::set<const clang::VarDecl*>& out);

// Each use of `vd` in `slot` (and below it, but for lambdas' bodies) replaced by what `with` gives for it.
void replace_uses(clang::Stmt*& slot, const clang::ValueDecl* vd,
                  const std::function<clang::Expr*(const clang::DeclRefExpr*)>& with);

}  // namespace adjc
