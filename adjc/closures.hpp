#pragma once
// Lambdas with captures (docs/adjc.md, "Lambdas"). A capturing lambda is a function object whose
// members are its captures; its closure type cannot be named in generated code, so adjc
// differentiates it as a free function `lambdaN` whose first parameters are the captures, and a
// call `f(x)` becomes `lambdaN(<captures>, x)`: a by-copy capture is passed the member the lambda
// copied it into (a local `f_k` set where the lambda is declared, as a split struct's member, or a
// local struct of its own), a by-reference capture the variable itself (by reference if the lambda
// writes it, else its value), a capture of another lambda with captures that lambda's captures.

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>

#include "ir.hpp"

namespace adjc {

// One capture of a lambda as a parameter of its function.
struct ClosureCapture {
  const clang::VarDecl* var = nullptr;      // the captured variable (or the init-capture's variable)
  const clang::FieldDecl* field = nullptr;  // its member of the closure
  bool by_copy = false;
  const clang::ParmVarDecl* param = nullptr;  // the function's parameter standing for it
  clang::SourceLocation at;                   // where the lambda captures it
  unsigned index = 0;                         // its position among the lambda's captures (capture_inits)
  // A capture of another lambda with captures (`[&inner]`) stands for that lambda's captures, one
  // parameter each (`var` is the captured lambda's capture), passed on to its calls: `lambda` is
  // the captured lambda's variable.
  const clang::VarDecl* lambda = nullptr;
};

struct ClosureFunction {
  const clang::FunctionDecl* fn = nullptr;  // nullptr when the lambda cannot be one (`why`)
  std::vector<ClosureCapture> captures;     // the function's first parameters, in order
  Message why{};
  clang::SourceLocation where;
};

// The function of a lambda with captures, built once per lambda (UnitFacts::closures).
const ClosureFunction& closure_function(const clang::CXXRecordDecl* closure, const UnitFacts& unit,
                                        clang::ASTContext& context);
// The function's closure when `fn` is a lambda's function, else nullptr.
const ClosureFunction* as_closure_function(const clang::FunctionDecl* fn, const UnitFacts& unit);
// A lambda's function (with or without captures): generated code cannot name its closure, so each
// of its calls goes to its forward, whether or not the call has derivative work.
bool called_through_forward(const clang::FunctionDecl* fn, const UnitFacts& unit);
// The variable a capture by reference passes, from its initialiser (`x` in `[&x]`, `[&r = x]`, or
// the enclosing lambda's parameter standing for x), or nullptr.
const clang::VarDecl* closure_referent(const clang::Expr* init);
// The lambda local `vd` holds (its initialiser, parens and braces looked through), or nullptr.
const clang::LambdaExpr* closure_lambda(const clang::VarDecl* vd);
// A lambda with captures: its closure type.
const clang::CXXRecordDecl* capturing_lambda(clang::QualType t);

// For a gradient request of a lambda with captures (`target`: the lambda written in the request,
// or the local variable holding one), the captured values `execute` passes ahead of its arguments
// (", k, ::std::ref(acc)": copies as the lambda made them, references to what it captures by
// reference). Reports what a request cannot read (false).
bool closure_request_arguments(const ClosureFunction& c, const clang::Expr* target, const UnitFacts& unit,
                               clang::ASTContext& context, Diagnostics& diags, std::string& out);

// Rewrites, in `fn`'s body, each call of a lambda with captures declared in it (`f(x)`,
// `f.operator()(x)`, through a local reference to `f`, or a lambda called where it is written) into
// the call of its function, and declares the lambda's copies of structs with it. Reports other uses of such a
// lambda and captures adjc does not model. False on errors.
bool rewrite_closure_calls(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context,
                           Diagnostics& diags);

}  // namespace adjc
