#pragma once
// adjc: the pieces the driver (driver.cpp) and the generator (generator.cpp) share.
// How the passes fit together: docs/adjc-internals.md.

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <memory>
#include <string>
#include <vector>

#include "diagnostics.hpp"

namespace adjc {

struct UnitFacts;
struct FunctionState;
struct Pass;
class PipelineRunner;

// The generated `<fn>_grad` for one adjoint::gradient request.
struct GeneratedGradient {
  std::string declaration;      // namespace-qualified declarations to insert before the request
  std::string function_value;   // expression of the grad's exact function-pointer type
  std::string source_function;  // qualified name of the function returning the generated text
  int object_adjoint = -1;      // the index of the object's adjoint among the grad's parameters, if it has one
  std::string qualified_name;   // the generated function's name, with its namespaces
};

// Builds derivative functions on demand and prints them at the end of the translation unit.
class Generator {
 public:
  // `unit`: what the translation unit declares (classify.hpp), found once by the caller;
  // `pipeline` runs the passes on each function (pipeline.hpp).
  Generator(clang::ASTContext& context, const UnitFacts& unit, Diagnostics& diagnostics, PipelineRunner& pipeline);
  ~Generator();

  // `selected[i]` marks parameter i of `fn`. `seeded`: the gradient takes the seed of `fn`'s result
  // after `fn`'s parameters (Clad's pullback requests; a void function has none). Returns nothing
  // useful after an error.
  GeneratedGradient request(const clang::FunctionDecl* fn, const std::vector<bool>& selected,
                            clang::SourceLocation where, bool seeded = false);

  // `fn` lowered and planned, once per unit (nullptr when it cannot be differentiated): forward
  // mode (tangent.hpp) starts from the same state.
  FunctionState* planned(const clang::FunctionDecl* fn);
  // Runs more passes (forward mode's) on a planned function under the same options (printing,
  // verification, times); false when its IR fails verification.
  bool run_passes(FunctionState& state, const std::vector<Pass>& passes);

  // Every generated function: declarations, then definitions, then the source-text functions.
  std::string generated_code();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A section of generated code as both modes print it: the marker comment naming `what`, the
// includes, the accessors of private members, then the declarations, definitions and sources.
std::string generated_section(const std::string& what, const std::string& private_members,
                              const std::vector<std::string>& declarations, const std::vector<std::string>& definitions,
                              const std::vector<std::string>& sources);

// Whether a parameter of type `t` can get an adjoint (floating scalars, value classes,
// pointers/references/arrays to floating data or to structs, structs).
bool is_differentiable(clang::QualType t);

}  // namespace adjc
