// The front end: on the parsed unit, finds the gradient requests, has the Generator build their
// gradients, and assembles the output: the unit with each request rewritten, then the generated code.
#include "front_end.hpp"

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Pragma.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Sema/Sema.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "classify.hpp"
#include "pipeline.hpp"
#include "nesting.hpp"
#include "requests.hpp"
#include "tangent.hpp"

namespace adjc {

namespace {

using namespace clang;

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\\' || c == '"') ? std::string("\\") + c : std::string(1, c);
  return out;
}

// Clad's `#pragma clad ON|OFF|DEFAULT`, in the order the unit has them: requests written while
// it is OFF are not differentiated (Clad's getFunctionPtr() of one is null).
struct CladPragma {
  SourceLocation at;  // the `#`
  SourceLocation word;
  std::string mode;  // "ON", "OFF", "DEFAULT" or what else was written
};

class CladPragmaHandler : public PragmaHandler {
 public:
  explicit CladPragmaHandler(std::vector<CladPragma>& pragmas) : PragmaHandler("clad"), pragmas_(pragmas) {}
  void HandlePragma(Preprocessor& pp, PragmaIntroducer introducer, Token& /*first*/) override {
    Token word;
    pp.Lex(word);
    std::string mode = word.is(tok::identifier) ? word.getIdentifierInfo()->getName().str() : "";
    pragmas_.push_back({introducer.Loc, word.getLocation(), mode});
    while (word.isNot(tok::eod)) pp.Lex(word);
  }

 private:
  std::vector<CladPragma>& pragmas_;
};

class Consumer : public ASTConsumer {
 public:
  Consumer(CompilerInstance& ci, Output& out, PipelineRunner& pipeline, std::unique_ptr<syntax::TokenCollector> tokens)
      : ci_(ci), out_(out), pipeline_(pipeline), collector_(std::move(tokens)) {
    ci.getPreprocessor().AddPragmaHandler(new CladPragmaHandler(pragmas_));  // the preprocessor owns it
  }

  void HandleTranslationUnit(ASTContext& context) override {
    if (context.getDiagnostics().hasErrorOccurred()) return;
    Diagnostics diags(context.getDiagnostics());
    RequestFinder finder;
    if (!find_requests(context, diags, finder)) return;
    if (!leave_waiting_requests(context, diags, finder)) return;
    for (auto* list : {&finder.requests, &finder.derivatives, &finder.jacobians, &finder.hessians})
      for (auto& r : *list) instantiate_requested(r.call->getArg(0));
    if (context.getDiagnostics().hasErrorOccurred()) return;
    const UnitFacts unit = find_unit_facts(context, ci_.getSema());
    for (const NamedDecl* p : unit.custom.misplaced)
      diags.error(p->getLocation(), Diag::custom_pullback_outside_namespace, {p->getQualifiedNameAsString()});
    if (diags.failed()) return;
    Generator generator(context, unit, diags, pipeline_);
    Rewriter rewriter(context.getSourceManager(), context.getLangOpts());
    RequestContext requests{context, unit, diags, generator, rewriter, {}, {}};
    if (!leave_disabled_requests(context, diags, finder, requests)) return;
    for (auto& r : finder.requests) handle(r, requests);
    TangentGenerator tangents(generator, context, unit, diags);
    for (auto& r : finder.derivatives) {
      if (vector_mode_requested(r.call)) handle_jacobian(r, generator, tangents, requests, /*vector_mode=*/true);
      else handle_derivative(r, tangents, requests, derivative_request);
    }
    for (auto& r : finder.jacobians) handle_jacobian(r, generator, tangents, requests, /*vector_mode=*/false);
    for (auto& r : finder.hessians) handle_derivative(r, tangents, requests, hessian_request);
    if (diags.failed() || context.getDiagnostics().hasErrorOccurred()) return;
    replace_requests(requests.replacements, *collector_, context.getSourceManager(), context.getLangOpts(), rewriter);
    // On the line of the class's closing brace: the user's line numbers stay.
    for (const auto& [record, member] : tangents.member_declarations())
      rewriter.InsertTextBefore(record->getBraceRange().getEnd(), " " + member + " ");
    write_output(context.getSourceManager(), rewriter, generator, tangents);
  }

 private:
  CompilerInstance& ci_;
  Output& out_;
  PipelineRunner& pipeline_;
  std::unique_ptr<syntax::TokenCollector> collector_;
  std::vector<CladPragma> pragmas_;

  // Takes the requests written under `#pragma clad OFF` out of the lists, each replaced by Clad's
  // disabled function (clad::detail::disabled_request); the pragmas in the main file become
  // comments, which compilers do not warn of. False (reported) for a pragma of another word.
  bool leave_disabled_requests(ASTContext& context, Diagnostics& diags, RequestFinder& finder, RequestContext& rc) {
    SourceManager& sm = context.getSourceManager();
    for (const CladPragma& p : pragmas_) {
      if (p.mode != "ON" && p.mode != "OFF" && p.mode != "DEFAULT")
        diags.error(p.word, Diag::unknown_clad_pragma, {p.mode});
      if (sm.isInMainFile(p.at) && p.at.isFileID()) rc.rewriter.InsertTextBefore(p.at, "// ");
    }
    if (diags.failed()) return false;
    auto disabled = [&](const RequestFinder::Request& r) {
      SourceLocation at = sm.getExpansionLoc(r.call->getBeginLoc());
      bool on = true;
      for (const CladPragma& p : pragmas_)
        if (sm.isBeforeInTranslationUnit(p.at, at)) on = p.mode != "OFF";
      if (!on) rc.replacements.push_back({r.call, "(::clad::detail::disabled_request{})"});
      return !on;
    };
    for (auto* list : {&finder.requests, &finder.derivatives, &finder.jacobians, &finder.hessians})
      std::erase_if(*list, disabled);
    return true;
  }

  // The requests in the main file (`finder`); false (reported) when a request is written in a
  // header the unit includes (it would stay unrewritten, and fail to compile).
  static bool find_requests(ASTContext& context, Diagnostics& diags, RequestFinder& finder) {
    SourceManager& sm = context.getSourceManager();
    RequestFinder elsewhere;
    for (Decl* d : context.getTranslationUnitDecl()->decls()) {
      SourceLocation loc = sm.getExpansionLoc(d->getBeginLoc());
      if (sm.isInMainFile(loc)) {
        finder.top = d;
        finder.TraverseDecl(d);
      } else if (loc.isValid() && !sm.isInSystemHeader(loc)) {
        elsewhere.TraverseDecl(d);
      }
    }
    for (auto& r : elsewhere.requests) diags.error(r.call->getBeginLoc(), Diag::request_in_header);
    for (auto& r : elsewhere.derivatives) diags.error(r.call->getBeginLoc(), Diag::request_in_header);
    for (auto& r : elsewhere.jacobians) diags.error(r.call->getBeginLoc(), Diag::request_in_header);
    for (auto& r : elsewhere.hessians) diags.error(r.call->getBeginLoc(), Diag::request_in_header);
    return !diags.failed();
  }

  // Takes the requests that reach another request out of this stage (nesting.hpp), counting them
  // and the derivatives of order above 1 (each leaves one of the next order) as pending; false
  // (reported) when every request waits, so no stage could make progress.
  bool leave_waiting_requests(ASTContext& context, Diagnostics& diags, RequestFinder& finder) {
    const auto lists = {&finder.requests, &finder.derivatives, &finder.jacobians, &finder.hessians};
    std::vector<const CallExpr*> calls;
    for (auto* list : lists)
      for (auto& r : *list) calls.push_back(r.call);
    std::set<const CallExpr*> waiting = waiting_requests(calls, context);
    if (!waiting.empty() && waiting.size() == calls.size()) {
      for (const CallExpr* call : waiting) diags.error(call->getBeginLoc(), Diag::nested_request_never_ready);
      return false;
    }
    out_.pending = waiting.size();
    for (auto* list : lists)
      std::erase_if(*list, [&](const RequestFinder::Request& r) { return waiting.count(r.call) != 0; });
    for (auto& r : finder.derivatives) out_.pending += derivative_order(r.call) > 1;
    out_.pending += finder.hessians.size();  // each leaves requests of the next stage
    return true;
  }

  // A derivative or Hessian request (`request`, tangent.hpp): its pushforwards built, its
  // replacement recorded and its functions declared before the declaration the request is in (once).
  using TangentRequest = std::string (*)(const CallExpr*, const UnitFacts&, Diagnostics&, TangentGenerator&,
                                         std::string&);
  static void handle_derivative(const RequestFinder::Request& r, TangentGenerator& tangents, RequestContext& rc,
                                TangentRequest request) {
    std::string declaration;
    record(r, request(r.call, rc.unit, rc.diags, tangents, declaration), declaration, rc);
  }

  // A Jacobian request, or a derivative request in vector mode: its pullback built by `generator`
  // and its pushforward by `tangents` (jacobian_request.cpp).
  static void handle_jacobian(const RequestFinder::Request& r, Generator& generator, TangentGenerator& tangents,
                              RequestContext& rc, bool vector_mode) {
    std::string declaration;
    record(r, jacobian_request(r.call, rc.unit, rc.diags, generator, tangents, declaration, vector_mode), declaration,
           rc);
  }

  // The request's replacement `text` recorded, and `declaration` inserted before the declaration the
  // request is in (once).
  static void record(const RequestFinder::Request& r, const std::string& text, const std::string& declaration,
                     RequestContext& rc) {
    if (text.empty()) return;
    rc.replacements.push_back({r.call, text});
    if (rc.inserted.insert(declaration).second)
      rc.rewriter.InsertTextBefore(rc.context.getSourceManager().getExpansionLoc(r.top->getBeginLoc()),
                                   declaration + " ");
  }

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

  // The output: the rewritten unit under a #line naming it, then the generated code; and the files
  // the unit read.
  void write_output(SourceManager& sm, Rewriter& rewriter, Generator& generator, TangentGenerator& tangents) {
    const FileEntryRef main = *sm.getFileEntryRefForID(sm.getMainFileID());
    llvm::SmallString<256> absolute(main.getName());
    llvm::sys::fs::make_absolute(absolute);
    std::string unit_text;
    llvm::raw_string_ostream unit_stream(unit_text);
    rewriter.getEditBuffer(sm.getMainFileID()).write(unit_stream);
    // The parse saw the unit with kComplexSupport appended; the output carries it only where the
    // generated code may need it.
    if (llvm::StringRef(unit_text).ends_with(kComplexSupport))
      unit_text.resize(unit_text.size() - kComplexSupport.size());
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

}  // namespace

std::unique_ptr<tooling::FrontendActionFactory> front_end_action(Output& out, PipelineRunner& pipeline) {
  return std::make_unique<ActionFactory>(out, pipeline);
}

}  // namespace adjc
