#pragma once
// Printing: C++ text for types, literals and the expressions of one function (primal values, with
// the reverse sweep's temporaries substituted, and the adjoint that mirrors a memory expression),
// and indented lines of code that record which variables they use.

#include <clang/AST/PrettyPrinter.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "classify.hpp"

namespace adjc {

// "::a::b::" for a declaration in namespaces a::b (anonymous and inline namespaces skipped).
std::string qualifier(const clang::Decl* d);

// Opening and closing lines of the namespaces enclosing `d`.
std::pair<std::string, std::string> namespaces(const clang::Decl* d);

// Types printed so they mean the same anywhere in the translation unit.
struct TypePrinter {
  clang::ASTContext& context;
  clang::PrintingPolicy policy;

  explicit TypePrinter(clang::ASTContext& c);
  std::string str(clang::QualType t) const;
  std::string declare(clang::QualType t, const std::string& name) const;
  // `<float>` for a template specialization ("" otherwise): calls spell it, since the arguments
  // may not be deducible.
  std::string template_arguments(const clang::FunctionDecl* f) const;
  // `base.name` or `base->name` (`arrow`) for the data member or member function `d`; a member that
  // is not public, which code outside its class cannot name, through a pointer to it that
  // private_members() hands out.
  std::string member(const std::string& base, const clang::ValueDecl* d, bool arrow) const;
  // The explicit instantiations that hand out pointers to the private members member() printed.
  std::string private_members() const;

 private:
  mutable std::map<const clang::ValueDecl*, std::string> private_members_;  // -> its member_tag
};

// `::adjoint::custom_derivatives::[class_functions::]f_pullback`, a template's specialization with
// its arguments spelled (`<double>`): they may not be deducible from the call (a nullptr adjoint).
std::string custom_pullback_name(const clang::FunctionDecl* pullback, const TypePrinter& types);

// A floating literal of type `t` that reads back as `v`.
std::string literal(double v, clang::QualType t);

// The zero of an adjoint: 0 for a floating type, an empty handle `V{}` for a value class, a zero
// struct for a struct.
std::string zero(clang::QualType t, const TypePrinter& types, const UnitFacts& unit);
// A struct with every member zero: `T{}`, or `::adjoint::detail::zeroed<T>()` when T has a default
// constructor of the user's, default member initialisers, or no default constructor (and T can be
// made from bytes: trivially copyable, or copied by members; a struct held in place has a `T{}`
// that is zero).
std::string zero_struct(clang::QualType t, const TypePrinter& types);
// `to = from;` for a value of type `t`, or `::adjoint::detail::assign(to, from);` for a struct
// copied by members whose assignment the compiler deletes or deprecates (copy_assignable).
std::string assignment(const std::string& to, const std::string& from, clang::QualType t);

// A variable's name (marked as a use), or `(*name)`.
bool is_identifier(const std::string& s);

// Uses of generated code's variables (a variable of the IR, its adjoint `_d_x`, a parameter's
// accumulator `_d_x_acc`, a temporary of the reverse sweep) are marked in the text where they are
// printed: Code records them per line and drops the marks. Declarations, [[maybe_unused]] and the
// tidying of a statement's reverse ask Code which names its lines use.
std::string use(const std::string& name);     // `name`, a use of it
std::string define(const std::string& name);  // `name`, a temporary's definition (`const T name = ...`)
std::string mention(const std::string& name);  // no text, a use (a name in text printed by clang)

// Prints expressions of one function: primal values (with reverse-sweep temporaries substituted)
// and the adjoint lvalue or pointer that mirrors a memory expression.
class Printer {
 public:
  Printer(const FunctionIR& ir, const TypePrinter& types) : ir_(ir), types_(types) {}

  std::map<const clang::Expr*, std::string> temps;  // marked names (use)

  std::string primal(const clang::Expr* e) const;
  // A call as the user wrote it (member calls and operators keep their syntax, so overloading
  // and argument-dependent lookup resolve as in the original), with its arguments' values.
  std::string call_text(const clang::CallExpr* call) const;
  // An argument as passed to a derivative function: the object of a member call by address.
  std::string argument(const AdArg& a) const { return a.address ? "&" + primal(a.expr) : primal(a.expr); }
  // The adjoint of a scalar variable.
  std::string scalar_adjoint(const Var* v) const;
  // The adjoint memory mirroring memory expression `e` (an lvalue or a pointer).
  std::string adjoint(const clang::Expr* e) const;

 private:
  const FunctionIR& ir_;
  const TypePrinter& types_;
  std::string mentions(const clang::Expr* e) const;
};

// Indented lines of code, each with the names it uses (marked where they were printed).
struct Code {
  struct Line {
    std::string text;
    std::vector<std::string> uses;
    std::string defines;  // a temporary defined by the line, if any
    bool block = false;   // opens or closes a block
    // `target += value;` (add_to): target and value as printed, and whether it is atomic.
    bool accumulation = false, atomic = false;
    std::string target, value;
    int depth = 0;
  };
  std::vector<Line> lines;
  int depth = 0;

  void line(const std::string& s);
  void open(const std::string& s);
  void close(const std::string& s = "}");
  // `target += value;` (after `#pragma omp atomic` when `atomic`).
  void add_to(const std::string& target, const std::string& value, bool atomic);
  void append(const Code& other);
  // Whether some line uses `name`.
  bool uses(const std::string& name) const { return used_.count(name) > 0; }
  std::string str() const;
  // The line `depth`, `text` and marks stand for, its uses recorded.
  static Line parse(const std::string& s, int depth);

 private:
  std::set<std::string> used_;
  void add(Line l);
};

}  // namespace adjc
