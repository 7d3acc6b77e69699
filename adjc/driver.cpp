// adjc: the driver. Parses the user's translation unit with clang, finds the gradient requests
// (calls of adjoint::gradient), asks the Generator for the derivative code, rewrites each request
// into a reference to its generated function, and writes the unit plus the generated code.
//
//   adjc <input.cpp> -o <output.cpp> [-MF <depfile>] -- <compiler flags>
#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTLambda.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Sema/Sema.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Syntax/Tokens.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <unistd.h>

#include "closures.hpp"
#include "depfile.hpp"
#include "function_pointers.hpp"
#include "passes.hpp"
#include "pipeline.hpp"
#include "tangent.hpp"

namespace adjc {

namespace {

using namespace clang;

// What one run produces.
struct Output {
  bool ok = false;
  std::string text;
  std::vector<std::string> inputs;  // every file the unit read, for the depfile
};

// Pass: finds gradient requests in the main file (calls of adjoint::gradient, or of Clad's
// clad::gradient from include/clad), with the top-level declaration each one is in, and the calls
// of Clad's other modes, which adjc reports.
class RequestFinder : public RecursiveASTVisitor<RequestFinder> {
 public:
  struct Request {
    const CallExpr* call;
    const Decl* top;
  };
  std::vector<Request> requests;
  std::vector<Request> derivatives;  // forward mode (tangent.hpp)
  std::vector<const CallExpr*> other_modes;
  const Decl* top = nullptr;

  bool VisitCallExpr(CallExpr* call) {
    const FunctionDecl* f = call->getDirectCallee();
    if (!f) return true;
    const std::string name = f->getQualifiedNameAsString();
    if (name == "adjoint::gradient" || name == "clad::gradient") requests.push_back({call, top});
    if (name == "adjoint::derivative" || name == "clad::differentiate") derivatives.push_back({call, top});
    if (name == "clad::hessian" || name == "clad::jacobian") other_modes.push_back(call);
    return true;
  }
};

// A parameter named in a request's list: Clad's spelling of part of an array (`x[0:2]`, `x[1]`)
// names the whole array, whose adjoint adjc computes whole; "" when the brackets are malformed.
std::string requested_parameter(const std::string& item) {
  size_t open = item.find('[');
  if (open == std::string::npos) return item;
  if (item.back() != ']' || open == 0) return "";
  const std::string range = item.substr(open + 1, item.size() - open - 2);
  size_t colon = range.find(':');
  auto number = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789 ") == std::string::npos;
  };
  if (!number(range.substr(0, colon)) || (colon != std::string::npos && !number(range.substr(colon + 1)))) return "";
  std::string name = item.substr(0, open);
  name.erase(name.find_last_not_of(" \t") + 1);
  return name;
}

// The variable `e` names (a function pointer in a request: `*fpp` names `fpp`), else nullptr.
const VarDecl* named_variable(const Expr* e) {
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) return dyn_cast<VarDecl>(ref->getDecl());
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c))
      if (const VarDecl* vd = named_variable(ce)) return vd;
  return nullptr;
}

// The constexpr (or consteval) function, or constexpr variable, a request is written in, through
// lambdas and local variables ("constexpr function 'f'"); "" when there is none.
std::string constant_evaluated_place(const CallExpr* call, ASTContext& context) {
  for (DynTypedNodeList parents = context.getParents(*call); !parents.empty();
       parents = context.getParents(parents[0])) {
    // A lambda's operator() is constexpr where it can be, without being asked for.
    if (auto* f = parents[0].get<FunctionDecl>(); f && !isLambdaCallOperator(f))
      return f->isConstexpr() ? std::string(f->isConsteval() ? "consteval" : "constexpr") + " function '" +
                                    f->getNameAsString() + "'"
                              : "";
    if (auto* v = parents[0].get<VarDecl>(); v && v->isConstexpr())
      return "the initializer of constexpr variable '" + v->getNameAsString() + "'";
  }
  return "";
}

// Appended to the unit for the parse: std::complex is differentiated with adjoint/complex.hpp's
// operations, which adjoint/ad.hpp includes only when <complex> came first; appended, it is there
// whichever order the unit includes them in (and line numbers stay).
constexpr llvm::StringLiteral kComplexSupport =
    "\n#if defined(_GLIBCXX_COMPLEX) || defined(_LIBCPP_COMPLEX)\n#include \"adjoint/complex.hpp\"\n#endif\n";

class Consumer : public ASTConsumer {
 public:
  Consumer(CompilerInstance& ci, Output& out, PipelineRunner& pipeline, std::unique_ptr<syntax::TokenCollector> tokens)
      : ci_(ci), out_(out), pipeline_(pipeline), collector_(std::move(tokens)) {}

  void HandleTranslationUnit(ASTContext& context) override {
    if (context.getDiagnostics().hasErrorOccurred()) return;
    SourceManager& sm = context.getSourceManager();
    Diagnostics diags(context.getDiagnostics());
    RequestFinder finder;
    for (Decl* d : context.getTranslationUnitDecl()->decls()) {
      if (!sm.isInMainFile(sm.getExpansionLoc(d->getBeginLoc()))) continue;
      finder.top = d;
      finder.TraverseDecl(d);
    }
    // Requests written in a header the unit includes would stay unrewritten (and fail to compile).
    RequestFinder elsewhere;
    for (Decl* d : context.getTranslationUnitDecl()->decls()) {
      SourceLocation loc = sm.getExpansionLoc(d->getBeginLoc());
      if (loc.isInvalid() || sm.isInMainFile(loc) || sm.isInSystemHeader(loc)) continue;
      elsewhere.TraverseDecl(d);
    }
    for (const CallExpr* call : finder.other_modes)
      diags.error(call->getBeginLoc(), Diag::clad_mode_not_supported,
                  {call->getDirectCallee()->getQualifiedNameAsString()});
    for (auto& r : elsewhere.requests) diags.error(r.call->getBeginLoc(), Diag::request_in_header);
    for (auto& r : elsewhere.derivatives) diags.error(r.call->getBeginLoc(), Diag::request_in_header);
    if (diags.failed()) return;
    for (auto& r : finder.requests) instantiate_requested(r.call->getArg(0));
    if (context.getDiagnostics().hasErrorOccurred()) return;
    const UnitFacts unit = find_unit_facts(context, ci_.getSema());
    for (const NamedDecl* p : unit.custom.misplaced)
      diags.error(p->getLocation(), Diag::custom_pullback_outside_namespace, {p->getQualifiedNameAsString()});
    if (diags.failed()) return;
    Generator generator(context, unit, diags, pipeline_);
    Rewriter rewriter(sm, context.getLangOpts());
    std::set<std::string> inserted;
    std::vector<Replacement> replacements;
    for (auto& r : finder.requests) handle(r, context, unit, diags, generator, rewriter, inserted, replacements);
    TangentGenerator tangents(generator, context, unit, diags);
    for (auto& r : finder.derivatives) {
      std::string declaration, text = derivative_request(r.call, unit, diags, tangents, declaration);
      if (text.empty()) continue;
      replacements.push_back({r.call, text});
      if (inserted.insert(declaration).second)
        rewriter.InsertTextBefore(sm.getExpansionLoc(r.top->getBeginLoc()), declaration + " ");
    }
    if (diags.failed() || context.getDiagnostics().hasErrorOccurred()) return;
    replace_requests(replacements, sm, context.getLangOpts(), rewriter);

    const FileEntryRef main = *sm.getFileEntryRefForID(sm.getMainFileID());
    std::string path = main.getName().str();
    llvm::SmallString<256> absolute(path);
    llvm::sys::fs::make_absolute(absolute);
    std::string unit_text;
    llvm::raw_string_ostream unit_stream(unit_text);
    rewriter.getEditBuffer(sm.getMainFileID()).write(unit_stream);
    // The parse saw the unit with kComplexSupport appended; the output carries it only where the
    // generated code may need it.
    if (llvm::StringRef(unit_text).ends_with(kComplexSupport)) unit_text.resize(unit_text.size() - kComplexSupport.size());
    Preprocessor& pp = ci_.getPreprocessor();
    if (pp.isMacroDefined("_GLIBCXX_COMPLEX") || pp.isMacroDefined("_LIBCPP_COMPLEX"))
      unit_text += "\n#include \"adjoint/complex.hpp\"\n";
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "#line 1 \"" << escape(absolute.str().str()) << "\"\n" << unit_text;
    os << generator.generated_code() << tangents.generated_code();
    out_.text = os.str();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) out_.inputs.push_back(it->first.getName().str());
    out_.ok = true;
  }

 private:
  CompilerInstance& ci_;
  Output& out_;
  PipelineRunner& pipeline_;
  std::unique_ptr<syntax::TokenCollector> collector_;

  // A member of a class template that nothing calls has no body (`E<double> e; gradient(e)` of a
  // template's operator()): the request needs one, so it is instantiated here, as a call would.
  void instantiate_requested(const Expr* e) {
    if (!e) return;
    auto instantiate = [&](const CXXMethodDecl* m) {
      if (m->getDefinition() || !m->getTemplateInstantiationPattern()) return;
      Sema& sema = ci_.getSema();
      sema.InstantiateFunctionDefinition(e->getBeginLoc(), const_cast<CXXMethodDecl*>(m), /*Recursive=*/true,
                                         /*DefinitionRequired=*/false, /*AtEndOfTU=*/true);
      sema.PerformPendingInstantiations();
    };
    if (auto* ref = dyn_cast<DeclRefExpr>(e))
      if (auto* m = dyn_cast<CXXMethodDecl>(ref->getDecl())) instantiate(m);
    if (auto* record = e->getType().getNonReferenceType()->getAsCXXRecordDecl();
        record && isa<ClassTemplateSpecializationDecl>(record))
      for (const CXXMethodDecl* m : record->methods())
        if (m->getOverloadedOperator() == OO_Call) instantiate(m);
    for (const Stmt* c : e->children()) instantiate_requested(dyn_cast_or_null<Expr>(c));
  }

  // A request's call and the expression that replaces it.
  struct Replacement {
    const CallExpr* call;
    std::string text;
  };

  // Rewrites each request in place. A request spelled in the file is replaced as written; one
  // written as a macro argument (`CHECK(adjoint::gradient(f))`) is replaced where it is spelled; one
  // produced by a macro body (`#define GRAD(f) adjoint::gradient(f)`) cannot be edited there, so
  // the whole outermost macro invocation is replaced by its expansion, with the requests in it
  // replaced, on the invocation's first line (newlines appended keep the later line numbers).
  void replace_requests(const std::vector<Replacement>& replacements, SourceManager& sm, const LangOptions& lo,
                        Rewriter& rewriter) {
    std::map<unsigned, std::vector<const Replacement*>> expansions;  // by the invocation's file offset
    std::map<unsigned, CharSourceRange> invocation;
    for (const Replacement& r : replacements) {
      SourceLocation b = r.call->getBeginLoc(), e = r.call->getEndLoc();
      if (!b.isMacroID() && !e.isMacroID()) {
        rewriter.ReplaceText(CharSourceRange::getTokenRange(r.call->getSourceRange()), r.text);
        continue;
      }
      SourceLocation sb = sm.getSpellingLoc(b), se = sm.getSpellingLoc(e);
      if (sm.isMacroArgExpansion(b) && sm.isMacroArgExpansion(e) && sm.isInMainFile(sb) &&
          sm.getFileID(sb) == sm.getFileID(se) && !sm.isBeforeInTranslationUnit(se, sb) &&
          sm.getExpansionRange(b).getBegin() == sm.getExpansionRange(e).getBegin()) {
        rewriter.ReplaceText(CharSourceRange::getTokenRange(sb, se), r.text);
        continue;
      }
      CharSourceRange range = sm.getExpansionRange(r.call->getSourceRange());
      unsigned offset = sm.getFileOffset(range.getBegin());
      expansions[offset].push_back(&r);
      invocation[offset] = range;
    }
    if (expansions.empty()) return;
    syntax::TokenBuffer tokens = std::move(*collector_).consume();
    for (auto& [offset, group] : expansions) {
      CharSourceRange range = invocation[offset];
      unsigned end = sm.getFileOffset(Lexer::getLocForEndOfToken(range.getEnd(), 0, sm, lo));
      if (range.isCharRange()) end = sm.getFileOffset(range.getEnd());
      FileID file = sm.getFileID(range.getBegin());
      std::string text;
      const Replacement* open = nullptr;
      for (const syntax::Token& t : tokens.expandedTokens()) {
        if (t.kind() == tok::eof) continue;
        SourceLocation at = sm.getExpansionLoc(t.location());
        if (sm.getFileID(at) != file || sm.getFileOffset(at) < offset || sm.getFileOffset(at) >= end) continue;
        if (!open)
          for (const Replacement* r : group)
            if (r->call->getBeginLoc() == t.location()) open = r;
        if (open) {
          if (t.location() == open->call->getEndLoc()) {
            text += (text.empty() ? "" : " ") + open->text;
            open = nullptr;
          }
          continue;
        }
        text += (text.empty() ? "" : " ") + t.text(sm).str();
      }
      StringRef original = Lexer::getSourceText(CharSourceRange::getCharRange(range.getBegin(),
                                                                              range.getBegin().getLocWithOffset(
                                                                                  int(end - offset))),
                                                sm, lo);
      text += std::string(std::count(original.begin(), original.end(), '\n'), '\n');
      rewriter.ReplaceText(CharSourceRange::getCharRange(range.getBegin(), range.getBegin().getLocWithOffset(
                                                                               int(end - offset))),
                           text);
    }
  }

  // 'name' (built by appending: GCC 12 warns falsely on "'" + std::string).
  static std::string quoted(llvm::StringRef name) {
    std::string s(1, '\'');
    s.append(name.data(), name.size());
    s += '\'';
    return s;
  }

  static std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) out += (c == '\\' || c == '"') ? std::string("\\") + c : std::string(1, c);
    return out;
  }

  void handle(const RequestFinder::Request& r, ASTContext& context, const UnitFacts& unit, Diagnostics& diags,
              Generator& generator, Rewriter& rewriter, std::set<std::string>& inserted,
              std::vector<Replacement>& replacements) {
    const CallExpr* call = r.call;
    SourceManager& sm = context.getSourceManager();
    SourceLocation at = call->getBeginLoc();
    if (std::string where = constant_evaluated_place(call, context); !where.empty())
      return diags.error(at, Diag::request_in_constant_evaluation, {where});
    const Expr* target = strip(call->getArg(0), unit);
    if (auto* u = dyn_cast<UnaryOperator>(target); u && u->getOpcode() == UO_AddrOf)
      target = strip(u->getSubExpr(), unit);
    if (auto* c = dyn_cast<CXXConstructExpr>(target); c && c->getNumArgs() == 1) target = strip(c->getArg(0), unit);
    // A function, a member function (`&S::f`), or a lambda or function object: its operator().
    const FunctionDecl* fn = nullptr;
    const CXXRecordDecl* callable = nullptr;
    if (auto* lambda = dyn_cast<LambdaExpr>(target)) callable = lambda->getLambdaClass();
    if (auto* ref = dyn_cast<DeclRefExpr>(target)) {
      fn = dyn_cast<FunctionDecl>(ref->getDecl());
      if (isa<VarDecl>(ref->getDecl())) callable = ref->getType()->getAsCXXRecordDecl();
    }
    if (callable) {
      for (const CXXMethodDecl* m : callable->methods())
        if (m->getOverloadedOperator() == OO_Call) {
          if (fn) return diags.error(call->getArg(0)->getBeginLoc(), Diag::request_overloaded_call_operator);
          fn = m;
        }
    }
    // A lambda with captures: its function of the captures and parameters, the captures passed
    // by `execute` ahead of its arguments, as constants.
    const ClosureFunction* closure = nullptr;
    std::string captured;
    if (callable && capturing_lambda(context.getRecordType(callable)) && fn && !fn->isTemplated()) {
      closure = &closure_function(callable, unit, context);
      if (!closure->fn) return diags.error(closure->where, closure->why);
      if (!closure_request_arguments(*closure, target, context, diags, captured)) return;
      fn = closure->fn;
    }
    const unsigned first_param = closure ? unsigned(closure->captures.size()) : 0;
    // A function pointer adjc follows (`fp`, `*fpp`, `static_cast<decltype(&f)>(f)`): its function.
    std::string unresolved;
    const VarDecl* pointer = nullptr;
    if (!fn && !callable) {
      auto* ref = dyn_cast<DeclRefExpr>(target);
      auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (var && var->getType()->isMemberFunctionPointerType()) {
        fn = resolved_member_function(var, &unresolved);
        if (!fn)
          return diags.error(call->getArg(0)->getBeginLoc(), Diag::request_unresolved_member_function, {unresolved});
      } else {
        fn = resolved_function(call->getArg(0), &unresolved);
      }
      if (fn) pointer = named_variable(call->getArg(0));
    }
    if (!fn && (function_pointer_chain(call->getArg(0)->getType()) || call->getArg(0)->getType()->isFunctionType()))
      return diags.error(call->getArg(0)->getBeginLoc(), Diag::request_unresolved_function, {unresolved});
    if (!fn) return diags.error(call->getArg(0)->getBeginLoc(), Diag::request_not_a_function);
    if (fn->isTemplated()) return diags.error(call->getArg(0)->getBeginLoc(), Diag::request_of_template);
    if (!fn->getDefinition())
      return diags.error(call->getArg(0)->getBeginLoc(), Diag::requested_function_has_no_body,
                         {quoted(fn->getNameAsString())});
    fn = fn->getDefinition();
    for (const ParmVarDecl* p : fn->parameters())
      if (function_parameter(p))
        return diags.error(call->getArg(0)->getBeginLoc(), Diag::request_function_pointer_parameter,
                           {quoted(p->getName()), quoted(fn->getNameAsString()), quoted(fn->getNameAsString())});

    std::string names;
    if (call->getNumArgs() > 1 && !isa<CXXDefaultArgExpr>(call->getArg(1))) {
      auto* lit = dyn_cast<StringLiteral>(strip(call->getArg(1), unit));
      if (!lit) return diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameters_not_literal);
      names = lit->getString().str();
    }
    // One flag per parameter as adjc differentiates them: a member function's object first,
    // selected by the name `this` or, as every differentiable parameter is, by an empty list.
    const bool object = with_object(fn) != nullptr;
    const std::vector<AdParam> params = ad_params(fn);
    std::vector<bool> selected(params.size(), false);
    bool any = false;
    std::stringstream list(names);
    for (std::string name; std::getline(list, name, ',');) {
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (name.empty()) continue;
      if (std::string whole = requested_parameter(name); !whole.empty()) name = whole;
      else
        return diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameter_unreadable, {quoted(name)});
      if (name == "this" && object) {
        selected[0] = any = true;
        continue;
      }
      bool found = false;
      for (unsigned i = 0; i < first_param; ++i)
        if (fn->getParamDecl(i)->getName() == name)
          return diags.error(call->getArg(1)->getBeginLoc(), Diag::request_names_capture, {quoted(name)});
      // Clad's spelling by position: "0" is the first parameter.
      const bool position = name.find_first_not_of("0123456789") == std::string::npos;
      if (position && (name.size() > 4 || first_param + std::stoul(name) >= fn->getNumParams()))
        return diags.error(call->getArg(1)->getBeginLoc(), Diag::request_no_parameter_at_position,
                           {quoted(fn->getNameAsString()), name, std::to_string(fn->getNumParams() - first_param)});
      for (unsigned i = first_param; i < fn->getNumParams(); ++i) {
        if (position ? i != first_param + std::stoul(name) : fn->getParamDecl(i)->getName() != name) continue;
        found = true;
        if (!is_differentiable(params[i + (object ? 1 : 0)].type))
          return diags.error(call->getArg(1)->getBeginLoc(), Diag::request_parameter_not_differentiable,
                             {quoted(fn->getParamDecl(i)->getName().str()), quoted(fn->getNameAsString()),
                              quoted(fn->getParamDecl(i)->getType().getAsString())});
        selected[i + (object ? 1 : 0)] = any = true;
      }
      if (!found)
        return diags.error(call->getArg(1)->getBeginLoc(), Diag::request_no_parameter_named,
                           {quoted(fn->getNameAsString()), quoted(name)});
    }
    if (!any) {
      for (unsigned i = first_param; i < fn->getNumParams(); ++i)
        any |= selected[i + (object ? 1 : 0)] = is_differentiable(params[i + (object ? 1 : 0)].type);
      if (object) any |= selected[0] = is_differentiable(params[0].type);
    }
    if (!any) return diags.error(at, Diag::request_no_differentiable_parameters, {quoted(fn->getNameAsString())});

    GeneratedGradient g;
    {
      Diagnostics::InDerivative requested(diags, fn, nullptr, at);
      g = generator.request(fn, selected, at);
    }
    if (diags.failed()) return;
    if (closure) {
      // The lambda's variable stays used (no warning) when the request no longer names it.
      std::string source = g.source_function + "()";
      if (auto* ref = dyn_cast<DeclRefExpr>(target))
        source = "(static_cast<void>(" + ref->getDecl()->getNameAsString() + "), " + source + ")";
      replacements.push_back(
          {call, "::adjoint::closure_gradient<" + g.function_value + ">(" + source + captured + ")"});
    } else {
      // A function object named by a variable is bound: execute may leave it out, as Clad's does.
      // A lambda's variable, or a function pointer the request names, stays used (no warning)
      // when the request no longer names it.
      std::string bound, request;
      const VarDecl* var = pointer;
      if (auto* ref = dyn_cast<DeclRefExpr>(target); ref && !var) var = dyn_cast<VarDecl>(ref->getDecl());
      std::string var_name = !var ? ""
                             : var->isLocalVarDeclOrParm() ? var->getNameAsString()
                                                           : "::" + var->getQualifiedNameAsString();
      if (var && callable && object) bound = ", &" + var_name;
      // In parentheses: the request may be a macro's argument, which a bare comma would split.
      request = "::adjoint::gradient_function<" + g.function_value +
                (g.object_adjoint < 0 && bound.empty() ? "" : ", " + std::to_string(g.object_adjoint)) +
                (bound.empty() ? "" : ", true") + ">{" + g.source_function + "()" + bound + "}";
      request = var && (callable || pointer) && bound.empty()
                    ? "(static_cast<void>(" + var_name + "), " + request + ")"
                    : "(" + request + ")";
      replacements.push_back({call, request});
    }
    if (!inserted.insert(g.declaration).second) return;
    // Declare the grad where the function itself is declared in this file, else before the
    // top-level declaration holding the request.
    const FunctionDecl* first = fn->getFirstDecl();
    const LangOptions& lo = context.getLangOpts();
    SourceLocation where;
    // The declaration opens the function's namespaces itself, so it goes right after the function
    // only when that is at file scope.
    if (sm.isInMainFile(first->getLocation()) && !first->getLocation().isMacroID() &&
        first->getDeclContext()->getRedeclContext()->isTranslationUnit()) {
      if (first->doesThisDeclarationHaveABody()) where = Lexer::getLocForEndOfToken(first->getBodyRBrace(), 0, sm, lo);
      else where = Lexer::findLocationAfterToken(first->getEndLoc(), tok::semi, sm, lo, false);
    }
    if (where.isValid()) {
      rewriter.InsertTextAfter(where, " " + g.declaration);
    } else {
      SourceLocation top = sm.getExpansionLoc(r.top->getBeginLoc());
      rewriter.InsertTextBefore(top, g.declaration + " ");
    }
  }
};

class Action : public ASTFrontendAction {
 public:
  Action(Output& out, PipelineRunner& pipeline) : out_(out), pipeline_(pipeline) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, StringRef) override {
    // Tokens are recorded while the unit is parsed: requests made by macros are rewritten from them.
    return std::make_unique<Consumer>(ci, out_, pipeline_,
                                      std::make_unique<syntax::TokenCollector>(ci.getPreprocessor()));
  }

 private:
  Output& out_;
  PipelineRunner& pipeline_;
};

class ActionFactory : public tooling::FrontendActionFactory {
 public:
  ActionFactory(Output& out, PipelineRunner& pipeline) : out_(out), pipeline_(pipeline) {}
  std::unique_ptr<FrontendAction> create() override { return std::make_unique<Action>(out_, pipeline_); }

 private:
  Output& out_;
  PipelineRunner& pipeline_;
};

const char* const usage_line = "usage: adjc <input.cpp> -o <output.cpp> [-MF <depfile>] -- <compiler flags>\n";

int usage(const char* message) {
  std::fprintf(stderr, "adjc: error: %s\n%s", message, usage_line);
  return 2;
}

int help() {
  std::printf("%s"
              "Writes <input.cpp> with each adjoint::gradient(f) request replaced by generated derivative code\n"
              "(docs/adjc.md). The flags after '--' are those the unit is compiled with (-std=c++20, -I, -D).\n"
              "  -o <output.cpp>  the output file (never the input)\n"
              "  -MF <depfile>    also write the files the unit read, as a make dependency file\n"
              "  -h, --help       this text\n"
              "  --list-diagnostics  every message adjc reports, with its stable id, as a Markdown table\n"
              "Seeing inside the pipeline (docs/adjc.md):\n"
              "  --print-passes           the passes, in order, and exit\n"
              "  --print-after=PASS[,PASS]  print each function's IR after these passes (stderr)\n"
              "  --print-after-all        print each function's IR after every pass (stderr)\n"
              "  --verify-each            check the IR's invariants after every pass\n"
              "  --time-passes            wall time per pass, summed over functions (stderr)\n"
              "  --remarks                why values are taped, saves not in bulk, reverse loops not vectorised\n",
              usage_line);
  return 0;
}

// Whether two paths name the same file (an existing file by identity, otherwise by normalised path).
bool same_file(const std::string& a, const std::string& b) {
  bool equal = false;
  if (!llvm::sys::fs::equivalent(a, b, equal)) return equal;
  llvm::SmallString<256> pa(a), pb(b);
  llvm::sys::fs::make_absolute(pa);
  llvm::sys::fs::make_absolute(pb);
  llvm::sys::path::remove_dots(pa, true);
  llvm::sys::path::remove_dots(pb, true);
  return pa == pb;
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

// Writes `text` to `path` through a temporary file, so a failed run leaves no half-written file.
bool write_file(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!(f << text) || !f.flush()) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

// Headers only adjc's parser sees (parse_include/omp.h): installed under <prefix>/share/adjoint
// beside <prefix>/bin/adjc, else in the source tree this adjc was built from.
std::string parse_include_dir(const char* argv0) {
  std::string self = llvm::sys::fs::getMainExecutable(argv0, reinterpret_cast<void*>(&help));
  llvm::SmallString<256> installed(llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(installed, "share", "adjoint", "parse_include");
  return llvm::sys::fs::is_directory(installed) ? installed.str().str() : ADJC_PARSE_INCLUDE_DIR;
}

}  // namespace
}  // namespace adjc

int main(int argc, char** argv) {
  std::string input, output, depfile;
  std::vector<std::string> flags;
  adjc::PipelineOptions options;
#ifndef NDEBUG
  options.verify_each = true;  // Debug builds check the IR after every pass
#endif
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i], error;
    bool pipeline_option = false;
    if (a == "--") break;
    if (a == "-h" || a == "--help") return adjc::help();
    if (a == "--list-diagnostics") {
      adjc::print_diagnostic_table(stdout);
      return 0;
    }
    if (a == "--print-passes") {
      adjc::print_passes(stdout);
      return 0;
    }
    if (!adjc::parse_pipeline_option(a, options, pipeline_option, error)) return adjc::usage(error.c_str());
    if (pipeline_option) continue;
    if (a == "-o" || a == "-MF") {
      if (i + 1 >= argc) return adjc::usage(("missing file name after " + a).c_str());
      (a == "-o" ? output : depfile) = argv[++i];
    } else if (!a.empty() && a[0] == '-') {
      return adjc::usage(("unknown option '" + a + "'").c_str());
    } else if (input.empty()) {
      input = a;
    } else {
      return adjc::usage("more than one input file");
    }
  }
  if (input.empty()) return adjc::usage("no input file");
  if (output.empty()) return adjc::usage("no output file (-o)");
  for (const std::string* written : {&output, &depfile})
    if (!written->empty() && adjc::same_file(*written, input)) {
      std::fprintf(stderr, "adjc: error: %s '%s' names the input file; choose another output\n",
                   written == &output ? "-o" : "-MF", written->c_str());
      return 2;
    }
  if (i == argc) return adjc::usage("missing '--' before the compiler flags");
  for (++i; i < argc; ++i) flags.push_back(argv[i]);

  clang::tooling::FixedCompilationDatabase db(".", flags);
  clang::tooling::ClangTool tool(db, {input});
  std::string unit_text;
  if (!llvm::sys::fs::exists(input) || !adjc::read_file(input, unit_text)) {
    std::fprintf(stderr, "adjc: error: cannot read '%s'\n", input.c_str());
    return 1;
  }
  llvm::SmallString<256> absolute_input(input);
  llvm::sys::fs::make_absolute(absolute_input);
  unit_text += adjc::kComplexSupport;
  tool.mapVirtualFile(absolute_input, unit_text);
  // Warnings are the compiler's job when it builds adjc's output; adjc reports errors only.
  std::vector<std::string> extra = {"-DADJOINT_ADJC=1", "-resource-dir=" ADJC_CLANG_RESOURCE_DIR, "-w"};
  extra.insert(extra.end(), {"-idirafter", adjc::parse_include_dir(argv[0])});
  tool.appendArgumentsAdjuster(
      clang::tooling::getInsertArgumentAdjuster(extra, clang::tooling::ArgumentInsertPosition::END));
  adjc::Output out;
  adjc::PipelineRunner pipeline(options);
  adjc::ActionFactory factory(out, pipeline);
  int status = tool.run(&factory);
  pipeline.print_times();
  if (status != 0 || !out.ok) {
    std::fprintf(stderr, "adjc: no output written for '%s'\n", input.c_str());
    return 1;
  }
  if (!adjc::write_file(output, out.text)) {
    std::fprintf(stderr, "adjc: error: cannot write '%s'\n", output.c_str());
    return 1;
  }
  if (!depfile.empty()) {
    std::string deps = adjc::depfile_escape(output) + ":";
    for (auto& f : out.inputs) deps += " \\\n  " + adjc::depfile_escape(f);
    if (!adjc::write_file(depfile, deps + "\n")) {
      std::fprintf(stderr, "adjc: error: cannot write '%s'\n", depfile.c_str());
      return 1;
    }
  }
  return 0;
}
