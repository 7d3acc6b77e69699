#pragma once
// The lowering pass (lower, passes.hpp) as one object per function: the state it keeps while it
// walks the body, and its members, defined by construct in lower*.cpp (docs/adjc-internals.md).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "containers.hpp"
#include "passes.hpp"

namespace adjc {

class Lowering {
 public:
  Lowering(FunctionIR& ir, clang::ASTContext& context, Diagnostics& diags)
      : ir_(ir), context_(context), diags_(diags) {}

  void run();

 private:
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
  std::set<std::pair<const clang::VarDecl*, const clang::FieldDecl*>> addressed_members_;  // the same, `s.x`

  // ----- variables and nodes (lower.cpp)
  void fail(clang::SourceLocation where, const std::string& message);
  Node* make(NodeKind kind, const clang::Stmt* stmt);
  std::string unique_name(const std::string& base);
  Var* make_var(const std::string& name, clang::QualType type, VarKind kind, const clang::VarDecl* decl,
                clang::SourceLocation loc);
  void add(Node* block, Node* n);
  const clang::Expr* new_ref(const clang::VarDecl* vd);
  const clang::Expr* int_literal(int value, clang::QualType t = clang::QualType());
  const clang::Expr* rvalue(const clang::VarDecl* vd);

  // ----- statements (lower_statements.cpp)
  void lower_compound(const clang::CompoundStmt* cs, Node* block);
  Node* lower_scope(const clang::Stmt* s);
  void lower_decl(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_expr_stmt(const clang::Expr* e, Node* block);
  void lower_stmt(const clang::Stmt* s, Node* block);
  Node* lower_statements(const std::vector<const clang::Stmt*>& stmts, const clang::Stmt* owner);

  // ----- assignments and expressions (lower_expressions.cpp)
  void hoist_calls(const clang::Expr* e, Node* block, const clang::Stmt* stmt);
  bool holds_hoisted_call(const clang::Expr* e);
  clang::Expr* lower_branches(clang::Expr* e, Node* block, const clang::Stmt* stmt);
  clang::Expr* lower_branch(clang::Expr* e, Node* block, const clang::Stmt* stmt);
  void lower_assign(const clang::Stmt* stmt, const clang::Expr* lhs, clang::BinaryOperatorKind op,
                    const clang::Expr* rhs, Node* block);
  const clang::Expr* pointer_base(const clang::Expr* e);

  // ----- local structs and arrays (lower_structs.cpp)
  void find_split_structs(const clang::Stmt* body);
  bool splittable(clang::QualType t);
  const clang::Expr* zero_of(clang::QualType t);
  clang::Expr* member_ref(const clang::VarDecl* vd, const clang::FieldDecl* f);
  bool member_inits(const clang::VarDecl* vd, const clang::Expr* init, std::vector<const clang::Expr*>& out);
  void lower_split_struct(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_object(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_array_init(const clang::VarDecl* vd, const clang::InitListExpr* list, const clang::Stmt* stmt,
                        Node* block);
  void lower_array_elements(clang::Expr* array, const clang::InitListExpr* list, const clang::Stmt* stmt, Node* block);

  // ----- control flow: loops, returns, switch (lower_control.cpp)
  // A case label's statements, up to the next label.
  struct CaseGroup {
    std::vector<const clang::Expr*> values;  // empty with `is_default`
    bool is_default = false;
    std::vector<const clang::Stmt*> body;
    clang::SourceLocation loc;
  };
  void lower_return_value(const clang::Stmt* stmt, const clang::Expr* value, Node* block);
  void lower_for(const clang::ForStmt* fs, Node* block, bool parallel);
  void lower_loop(const clang::Stmt* s, LoopForm form, const clang::Expr* cond, const clang::Stmt* body,
                  const clang::Expr* inc, Node* block);
  void lower_return_in_loop(const clang::Stmt* s, Node* block);
  void leave_after_return(Node* n, Node* block);
  Node* jump(const clang::Stmt* s, JumpKind kind, Node* loop);
  const clang::VarDecl* returned_flag();
  void lower_switch(const clang::SwitchStmt* sw, Node* block);
  static const clang::Stmt* switch_break(const clang::Stmt* s);

  // ----- std::vector and std::array (lower_containers.cpp)
  void lower_container_local(const clang::VarDecl* vd, const clang::Stmt* stmt, Node* block);
  void lower_push_back(const clang::CXXMemberCallExpr* call, const clang::Stmt* stmt, Node* block);
  void lower_range_for(const clang::CXXForRangeStmt* rs, Node* block);
  static bool reads_variable(const clang::Expr* e);
  static bool writes_memory(const clang::Stmt* s);
};

}  // namespace adjc
