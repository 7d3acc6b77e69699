// A Hessian request (tangent.hpp, hessian_request): `adjoint::hessian(f, "x, y")`,
// `(f, "x, a[0:n]")`, `adjoint::hessian_diagonal`, `adjoint::hessian_vector(f, "a")`, and Clad's
// `clad::hessian` (its ranges include their upper bound; clad::opts::diagonal_only). This stage
// generates the first derivatives a request needs and replaces it with requests of the next stage
// (nesting.hpp) combined by adjoint/hessian.hpp: rows are gradients of first derivatives (reverse
// over forward), the diagonal second derivatives (forward over forward).
#include <clang/AST/ExprCXX.h>

#include <algorithm>

#include "print.hpp"
#include "tangent.hpp"

namespace adjc {

using namespace clang;

namespace {

enum class HessianKind { Full, Diagonal, Vector };

std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

// One part of what a Hessian is taken with respect to: a floating scalar parameter (length 0), or
// `length` elements of an array parameter from 0, of `extent` elements (its fixed size, else
// `length`); `param` orders the blocks as f's parameters.
struct HessianBlock {
  std::string name;
  long length = 0;
  size_t param = 0;
  unsigned long extent = 0;
};

// How the request is spelled: adjc's `a[0:n]` excludes n, Clad's `a[0:n]` (clad::hessian)
// includes it.
struct HessianSpelling {
  HessianKind kind;
  bool clad;
};

// The name of the parameter `seed` is along (`spelled` by position or name): the requests of the
// next stage name it in derivatives whose first parameters may be an object or captures.
std::string parameter_name(const FunctionDecl* fn, const TangentSeed& seed, const std::string& spelled) {
  const unsigned object = with_object(fn) ? 1 : 0;
  if (seed.field || seed.param < object) return spelled;
  return fn->getParamDecl(unsigned(seed.param) - object)->getNameAsString();
}

// The block `item` names ("x", "a[0:n]"; for hessian_vector, "a"; the parameters before `first`,
// a closure's captures, not counted), appended to `blocks`; false (reported) when it is none of those.
bool read_block(const FunctionDecl* fn, const std::string& item, HessianSpelling spelling, unsigned first,
                std::vector<HessianBlock>& blocks, Diagnostics& diags, SourceLocation at) {
  size_t open = item.find('[');
  TangentSeed seed;
  if (open == std::string::npos) {
    if (!parse_seed(fn, item, seed, diags, at, first)) return false;
    const bool floating = is_floating(ad_params(fn)[seed.param].type.getNonReferenceType());
    if (floating != (spelling.kind == HessianKind::Vector)) {
      blocks.push_back({parameter_name(fn, seed, item), 0, seed.param});
      return true;
    }
  } else if (spelling.kind != HessianKind::Vector && item.back() == ']' && item.compare(open + 1, 2, "0:") == 0) {
    const std::string end = item.substr(open + 3, item.size() - open - 4);
    const std::string name = trimmed(item.substr(0, open));
    if (!end.empty() && end.size() < 7 && end.find_first_not_of("0123456789") == std::string::npos &&
        parse_seed(fn, name, seed, diags, at, first)) {
      const long length = std::stol(end) + (spelling.clad ? 1 : 0);
      const ParmVarDecl* p = ad_params(fn)[seed.param].decl;
      unsigned long extent = p ? fixed_length(p, fn->getASTContext()) : 0;
      if (extent == 0) extent = length;
      if (length > 0 && (unsigned long)length <= extent) {
        blocks.push_back({parameter_name(fn, seed, name), length, seed.param, extent});
        return true;
      }
    }
    if (diags.failed()) return false;
  }
  diags.error(at, Diag::hessian_parameters_unsupported, {quoted(item)});
  return false;
}

// Reads `text` into blocks in f's parameter order; an empty list names every parameter (Clad's
// meaning). False (reported) when an item is not a block or hessian_vector names more than one.
bool read_spec(const FunctionDecl* fn, const std::string& text, HessianSpelling spelling, unsigned first,
               std::vector<HessianBlock>& blocks, Diagnostics& diags, SourceLocation at) {
  std::vector<std::string> items;
  if (text.find_first_not_of(" \t") == std::string::npos) {
    for (unsigned i = first; i < fn->getNumParams(); ++i) items.push_back(fn->getParamDecl(i)->getNameAsString());
  } else {
    for (size_t start = 0; start <= text.size();) {
      size_t comma = text.find(',', start);
      if (comma == std::string::npos) comma = text.size();
      items.push_back(trimmed(text.substr(start, comma - start)));
      start = comma + 1;
    }
  }
  for (const std::string& item : items)
    if (!read_block(fn, item, spelling, first, blocks, diags, at)) return false;
  if (spelling.kind == HessianKind::Vector && blocks.size() != 1) {
    diags.error(at, Diag::hessian_parameters_unsupported, {quoted(text)});
    return false;
  }
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const HessianBlock& a, const HessianBlock& b) { return a.param < b.param; });
  return true;
}

// The Hessian object built from one generated function per block (adjoint/hessian.hpp): the
// matrix's rows or the diagonal's entries, by `factory` ("hessian_of" or "hessian_diagonal_of").
// Scalars only, or one array, keep their own factories' shorter spelling.
std::string hessian_object(const std::string& factory, const std::vector<HessianBlock>& blocks,
                           const std::vector<std::string>& functions) {
  std::string list;
  bool scalars = true;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const HessianBlock& b = blocks[i];
    scalars = scalars && b.length == 0;
    const std::string extent = b.extent > (unsigned long)b.length ? ", " + std::to_string(b.extent) : "";
    list += std::string(i ? ", " : "") + "::adjoint::detail::block<" + std::to_string(b.length) + extent + ">(" +
            functions[i] + ")";
  }
  if (scalars) {
    list.clear();
    for (size_t i = 0; i < functions.size(); ++i) list += (i ? ", " : "") + functions[i];
    return "(::adjoint::detail::" + factory + "_scalars(" + list + "))";
  }
  if (blocks.size() == 1 && blocks[0].extent == (unsigned long)blocks[0].length)
    return "(::adjoint::detail::" + factory + "_array<" + std::to_string(blocks[0].length) + ">(" + functions[0] + "))";
  return "(::adjoint::detail::" + factory + "(" + list + "))";
}

// Clad's options word (clad::opts, CladConfig.h) has `option` set.
bool clad_option(const FunctionDecl* request, unsigned option) {
  const TemplateArgumentList* args = request->getTemplateSpecializationArgs();
  if (!args || args->size() == 0 || args->get(0).getKind() != TemplateArgument::Pack) return false;
  for (const TemplateArgument& a : args->get(0).pack_elements())
    if (a.getKind() == TemplateArgument::Integral && (a.getAsIntegral().getZExtValue() & option)) return true;
  return false;
}
constexpr unsigned clad_diagonal_only = 1u << 12;

// The first derivative of `fn` along `name` generated; its qualified name (`cast`: cast to its type,
// which tells it from overloads of its name: every operator()'s is `operator_call_darg0`), "" after
// an error.
std::string first_derivative(const FunctionDecl* fn, const std::string& name, bool cast, TangentGenerator& tangents,
                             Diagnostics& diags, SourceLocation at, std::string& declaration) {
  TangentSeed seed;
  if (!parse_seed(fn, name, seed, diags, at)) return "";
  GeneratedGradient g;
  {
    Diagnostics::InDerivative requested(diags, fn, nullptr, at);
    g = tangents.request(fn, seed, at);
  }
  if (diags.failed() || g.declaration.empty()) return "";
  declaration += g.declaration;
  return cast ? g.function_value : g.qualified_name;
}

// Clad's name for the Hessian of every parameter of `fn`, `f_hessian(<f's parameters>, T* H)`,
// when the unit declares it without a body (as Clad's users do, to call it): its definition by
// `hessian` (on one line, as it is inserted into the user's code), else "".
std::string clad_named_hessian(const FunctionDecl* fn, const std::string& hessian) {
  ASTContext& context = fn->getASTContext();
  auto id = context.Idents.find(fn->getNameAsString() + "_hessian");
  if (isa<CXXMethodDecl>(fn) || id == context.Idents.end()) return "";
  const unsigned n = fn->getNumParams();
  TypePrinter types(context);
  for (const NamedDecl* d : fn->getDeclContext()->getRedeclContext()->lookup(DeclarationName(id->getValue()))) {
    auto* declared = dyn_cast<FunctionDecl>(d);
    if (!declared || declared->isDefined() || declared->getNumParams() != n + 1 ||
        !declared->getReturnType()->isVoidType() || !declared->getParamDecl(n)->getType()->isPointerType() ||
        !is_floating(declared->getParamDecl(n)->getType()->getPointeeType()))
      continue;
    std::string params, args;
    bool same = true;
    for (unsigned i = 0; i <= n; ++i) {
      QualType t = declared->getParamDecl(i)->getType();
      same = same && (i == n || context.hasSameType(t, fn->getParamDecl(i)->getType()));
      params += (i ? ", " : "") + types.str(t) + " _p" + std::to_string(i);
      args += (i ? ", _p" : "_p") + std::to_string(i);
    }
    auto [open, close] = namespaces(fn);
    std::string definition =
        open + "void " + id->getKey().str() + "(" + params + ") { " + hessian + ".execute(" + args + "); }" + close;
    for (char& c : definition)
      if (c == '\n') c = ' ';
    if (same) return definition;
  }
  return "";
}

}  // namespace

std::string hessian_request(const CallExpr* call, const UnitFacts& unit, Diagnostics& diags, TangentGenerator& tangents,
                            std::string& declaration) {
  RequestedFunction req;
  if (!requested_target(call, unit, diags, Diag::hessian_target_not_a_function, req)) return "";
  const FunctionDecl* fn = req.fn;
  const SourceLocation at = call->getBeginLoc();
  const FunctionDecl* request = call->getDirectCallee();
  const std::string callee = request->getName().str();
  const bool clad = request->getQualifiedNameAsString() == "clad::hessian";
  const HessianKind kind = callee == "hessian_diagonal" || (clad && clad_option(request, clad_diagonal_only))
                               ? HessianKind::Diagonal
                           : callee == "hessian_vector" ? HessianKind::Vector
                                                        : HessianKind::Full;
  const Expr* arg = call->getNumArgs() < 2 ? nullptr : call->getArg(1);
  auto* lit = arg ? dyn_cast<StringLiteral>(strip(arg, unit)) : nullptr;
  if (!lit && !(clad && arg && isa<CXXDefaultArgExpr>(arg))) {
    diags.error(arg ? arg->getBeginLoc() : at, Diag::request_parameters_not_literal);
    return "";
  }
  std::vector<HessianBlock> blocks;
  if (!read_spec(fn, lit ? lit->getString().str() : "", {kind, clad}, req.closure_params, blocks, diags, at)) return "";
  // A function object's operator(), a lambda's or a member function cannot be named in the next
  // stage; its first derivatives, generated here, can.
  const bool named = !req.callable && !with_object(fn);
  const std::string f = qualifier(fn) + fn->getNameAsString();
  std::vector<std::string> functions;
  std::string all;
  for (const HessianBlock& b : blocks) all += (all.empty() ? "" : ", ") + b.name;
  for (const HessianBlock& b : blocks) {
    if (kind == HessianKind::Diagonal && named) {
      // Forward over forward: no derivative generated in this stage.
      functions.push_back("::adjoint::derivative<2>(" + f + ", \"" + b.name + "\")");
      continue;
    }
    std::string d = first_derivative(fn, b.name, !named, tangents, diags, at, declaration);
    if (d.empty()) return "";
    functions.push_back(kind == HessianKind::Diagonal ? "::adjoint::derivative(" + d + ", \"" + b.name + "\")"
                                                      : "::adjoint::gradient(" + d + ", \"" + all + "\")");
  }
  const std::string hessian = kind == HessianKind::Vector     ? "(" + functions[0] + ")"
                              : kind == HessianKind::Diagonal ? hessian_object("hessian_diagonal_of", blocks, functions)
                                                              : hessian_object("hessian_of", blocks, functions);
  const bool every_parameter = !lit || lit->getString().find_first_not_of(" \t") == StringRef::npos;
  if (clad && kind == HessianKind::Full && every_parameter && named)
    declaration += " " + clad_named_hessian(fn, hessian);
  return req.callable ? bound_request(req, hessian) : hessian;
}

}  // namespace adjc
