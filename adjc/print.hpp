#pragma once
// Printing: C++ text for types, literals and the expressions of one function (primal values, with
// the reverse sweep's temporaries substituted, and the adjoint that mirrors a memory expression),
// and indented lines of code.

#include <clang/AST/PrettyPrinter.h>

#include <map>
#include <string>
#include <utility>

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
};

// A floating literal of type `t` that reads back as `v`.
std::string literal(double v, clang::QualType t);

// The zero of an adjoint: 0 for a floating type, an empty handle `V{}` for a value class.
std::string zero(clang::QualType t, const TypePrinter& types);

// A name, or `(*name)`.
bool is_identifier(const std::string& s);

// Prints expressions of one function: primal values (with reverse-sweep temporaries substituted)
// and the adjoint lvalue or pointer that mirrors a memory expression.
class Printer {
 public:
  Printer(const FunctionIR& ir, const TypePrinter& types) : ir_(ir), types_(types) {}

  std::map<const clang::Expr*, std::string> temps;

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
};

// Text with indentation.
struct Code {
  std::string text;
  int depth = 0;
  void line(const std::string& s);
  void open(const std::string& s);
  void close(const std::string& s = "}");
};

}  // namespace adjc
