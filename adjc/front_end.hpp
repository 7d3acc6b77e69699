#pragma once
// The front end: what adjc does with the parsed unit (find the requests, generate their gradients,
// write the unit with each request rewritten and the generated code after it).

#include <clang/Tooling/Tooling.h>

#include <memory>
#include <string>
#include <vector>

namespace adjc {

class PipelineRunner;

// What one run produces.
struct Output {
  bool ok = false;
  std::string text;
  std::vector<std::string> inputs;  // every file the unit read, for the depfile
  // Requests left in `text` for the next stage (nesting.hpp): adjc parses its output again.
  size_t pending = 0;
};

// Appended to the unit for the parse: std::complex is differentiated with adjoint/complex.hpp's
// operations, which adjoint/ad.hpp includes only when <complex> came first; appended, it is there
// whichever order the unit includes them in (and line numbers stay).
inline constexpr llvm::StringLiteral kComplexSupport =
    "\n#if defined(_GLIBCXX_COMPLEX) || defined(_LIBCPP_COMPLEX)\n#include \"adjoint/complex.hpp\"\n#endif\n";

// The action a ClangTool runs on the unit; its result goes to `out`.
std::unique_ptr<clang::tooling::FrontendActionFactory> front_end_action(Output& out, PipelineRunner& pipeline);

}  // namespace adjc
