#pragma once
// adjc's diagnostics: the table of every message adjc reports (diagnostics.def), and the
// Diagnostics that prints them at source locations, each error followed by notes that say which
// request and which calls led to it.

#include <clang/AST/Decl.h>
#include <clang/Basic/Diagnostic.h>
#include <llvm/ADT/StringRef.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace adjc {

enum class Diag {
#define ADJC_DIAGNOSTIC(id, severity, format) id,
#include "diagnostics.def"
#undef ADJC_DIAGNOSTIC
};

enum class Severity { Error, Note };

// One row of the table.
struct DiagnosticInfo {
  const char* id;
  Severity severity;
  const char* format;
};

const DiagnosticInfo& info(Diag d);
const std::vector<DiagnosticInfo>& diagnostic_table();

// A message kept to be reported later: its row and the arguments for %0, %1, ...
struct Message {
  Diag id;
  std::vector<std::string> args;
};

// 'name', the way messages quote a name (built by appending: GCC 12 warns falsely on "'" + std::string).
inline std::string quoted(llvm::StringRef name) {
  std::string s(1, '\'');
  s.append(name.data(), name.size());
  s += '\'';
  return s;
}

// The text of `m`: its format with each %N replaced by argument N.
std::string text(const Message& m);

// Prints the table as a Markdown table (`adjc --list-diagnostics`; docs/adjc-diagnostics.md holds the output).
void print_diagnostic_table(std::FILE* out);

// Errors at source locations, printed by clang as file:line:col.
class Diagnostics {
 public:
  explicit Diagnostics(clang::DiagnosticsEngine& engine) : engine_(engine) {}
  void error(clang::SourceLocation where, Diag id, std::vector<std::string> args = {});
  void error(clang::SourceLocation where, const Message& m) { error(where, m.id, m.args); }
  bool failed() const { return failed_; }
  int errors() const { return errors_; }  // reported so far

  // While one lives, the errors reported are found in the derivative of `fn`: requested at `at`
  // (`caller` null), or called from `caller` at `at`. Each error is followed by one note per
  // derivative in the chain, innermost first.
  class InDerivative {
   public:
    InDerivative(Diagnostics& diags, const clang::FunctionDecl* fn, const clang::FunctionDecl* caller,
                 clang::SourceLocation at)
        : diags_(diags) {
      diags_.chain_.push_back({fn, caller, at});
    }
    ~InDerivative() { diags_.chain_.pop_back(); }
    InDerivative(const InDerivative&) = delete;
    InDerivative& operator=(const InDerivative&) = delete;

   private:
    Diagnostics& diags_;
  };

 private:
  struct Link {
    const clang::FunctionDecl* fn;
    const clang::FunctionDecl* caller;
    clang::SourceLocation at;
  };

  void report(clang::SourceLocation where, const Message& m);

  clang::DiagnosticsEngine& engine_;
  bool failed_ = false;
  int errors_ = 0;
  // What was reported, to say each error once where several checks meet the same expression.
  std::set<std::pair<clang::SourceLocation, std::string>> reported_;
  std::vector<Link> chain_;  // outermost (the request) first
};

}  // namespace adjc
