// The diagnostics table (diagnostics.def) and how its messages are printed.
#include "diagnostics.hpp"

namespace adjc {

const std::vector<DiagnosticInfo>& diagnostic_table() {
  static const std::vector<DiagnosticInfo> table = {
#define ADJC_DIAGNOSTIC(id, severity, format) {#id, Severity::severity, format},
#include "diagnostics.def"
#undef ADJC_DIAGNOSTIC
  };
  return table;
}

const DiagnosticInfo& info(Diag d) { return diagnostic_table()[static_cast<size_t>(d)]; }

std::string text(const Message& m) {
  const char* format = info(m.id).format;
  std::string out;
  for (const char* p = format; *p; ++p) {
    if (p[0] == '%' && p[1] >= '0' && p[1] <= '9') {
      size_t n = size_t(*++p - '0');
      if (n < m.args.size()) out += m.args[n];
    } else {
      out += *p;
    }
  }
  return out;
}

void print_diagnostic_table(std::FILE* out) {
  std::fprintf(out, "| id | severity | message |\n| --- | --- | --- |\n");
  for (const DiagnosticInfo& d : diagnostic_table()) {
    std::string message;
    for (const char* p = d.format; *p; ++p) message += *p == '|' ? std::string("\\|") : std::string(1, *p);
    // A message with a backquote of its own is quoted with two.
    const char* quote = message.find('`') == std::string::npos ? "`" : "`` ";
    const char* unquote = message.find('`') == std::string::npos ? "`" : " ``";
    std::fprintf(out, "| `%s` | %s | %s%s%s |\n", d.id, d.severity == Severity::Error ? "error" : "note", quote,
                 message.c_str(), unquote);
  }
}

void Diagnostics::error(clang::SourceLocation where, Diag id, std::vector<std::string> args) {
  // An error without a place is a consequence of one already reported (on code adjc built for it).
  if (where.isInvalid() && failed_) return;
  failed_ = true;
  Message m{id, std::move(args)};
  if (!reported_.insert({where, text(m)}).second) return;
  ++errors_;
  report(where, m);
  for (auto link = chain_.rbegin(); link != chain_.rend(); ++link) {
    if (link->at == where) continue;  // the error is at the call or request itself
    if (link->caller)
      report(link->at, {Diag::note_called_from, {link->fn->getNameAsString(), link->caller->getNameAsString()}});
    else report(link->at, {Diag::note_requested_here, {link->fn->getNameAsString()}});
  }
}

void Diagnostics::report(clang::SourceLocation where, const Message& m) {
  auto level =
      info(m.id).severity == Severity::Error ? clang::DiagnosticsEngine::Error : clang::DiagnosticsEngine::Note;
  engine_.Report(where, engine_.getCustomDiagID(level, "%0")) << text(m);
}

}  // namespace adjc
