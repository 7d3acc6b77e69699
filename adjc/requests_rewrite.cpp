// Rewrites each gradient request in the unit's text into its replacement, also where a macro wrote
// the request.
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <map>

#include "requests.hpp"

namespace adjc {

using namespace clang;

namespace {

// The text of the macro invocation `range` (from `offset` to `end` in its file) after expansion, with
// the requests in it (`group`) replaced, on one line, then the invocation's newlines so that the
// later line numbers stay.
std::string expansion_with_replacements(const syntax::TokenBuffer& tokens, CharSourceRange range, unsigned offset,
                                        unsigned end, const std::vector<const Replacement*>& group, SourceManager& sm,
                                        const LangOptions& lo) {
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
  StringRef original = Lexer::getSourceText(
      CharSourceRange::getCharRange(range.getBegin(), range.getBegin().getLocWithOffset(int(end - offset))), sm, lo);
  return text + std::string(std::count(original.begin(), original.end(), '\n'), '\n');
}

}  // namespace

// A request spelled in the file is replaced as written; one written as a macro argument
// (`CHECK(adjoint::gradient(f))`) is replaced where it is spelled; one produced by a macro body
// (`#define GRAD(f) adjoint::gradient(f)`) cannot be edited there, so the whole outermost macro
// invocation is replaced by its expansion, with the requests in it replaced.
void replace_requests(const std::vector<Replacement>& replacements, syntax::TokenCollector& collector,
                      SourceManager& sm, const LangOptions& lo, Rewriter& rewriter) {
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
  syntax::TokenBuffer tokens = std::move(collector).consume();
  for (auto& [offset, group] : expansions) {
    CharSourceRange range = invocation[offset];
    unsigned end = sm.getFileOffset(Lexer::getLocForEndOfToken(range.getEnd(), 0, sm, lo));
    if (range.isCharRange()) end = sm.getFileOffset(range.getEnd());
    rewriter.ReplaceText(
        CharSourceRange::getCharRange(range.getBegin(), range.getBegin().getLocWithOffset(int(end - offset))),
        expansion_with_replacements(tokens, range, offset, end, group, sm, lo));
  }
}

}  // namespace adjc
