// Emission: prints the forward sweep (`f_forward`), the reverse sweep for one activity pattern
// (`f_reverse`), and the wrappers (`f_pullback`, `f_grad`) as C++ text, and the Generator that
// decides which of them a translation unit needs.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/Basic/SourceManager.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <regex>
#include <sstream>

#include "passes.hpp"

namespace adjc {

using namespace clang;

namespace {

using Mask = std::vector<bool>;

std::string mask_key(const Mask& m) {
  std::string s;
  for (bool b : m) s += b ? '1' : '0';
  return s;
}

// "::a::b::" for a declaration in namespaces a::b (anonymous and inline namespaces skipped).
std::string qualifier(const Decl* d) {
  std::vector<std::string> parts;
  for (const DeclContext* dc = d->getDeclContext(); dc && !dc->isTranslationUnit(); dc = dc->getParent())
    if (auto* ns = dyn_cast<NamespaceDecl>(dc); ns && !ns->isAnonymousNamespace() && !ns->isInline())
      parts.insert(parts.begin(), ns->getName().str());
  std::string q = "::";
  for (auto& p : parts) q += p + "::";
  return q;
}

// Opening and closing lines of the namespaces enclosing `d`.
std::pair<std::string, std::string> namespaces(const Decl* d) {
  std::string open, close;
  for (const DeclContext* dc = d->getDeclContext(); dc && !dc->isTranslationUnit(); dc = dc->getParent())
    if (auto* ns = dyn_cast<NamespaceDecl>(dc)) {
      std::string head = ns->isAnonymousNamespace() ? "namespace {" : (ns->isInline() ? "inline " : std::string()) + "namespace " + ns->getName().str() + " {";
      open = head + "\n" + open;
      close += "}\n";
    }
  return {open, close};
}

class Printer;

// Types printed so they mean the same anywhere in the translation unit.
struct TypePrinter {
  ASTContext& context;
  PrintingPolicy policy;

  explicit TypePrinter(ASTContext& c) : context(c), policy(c.getLangOpts()) {
    policy.SuppressTagKeyword = true;
    policy.Bool = true;
  }
  std::string str(QualType t) const { return TypeName::getFullyQualifiedName(t, context, policy, true); }
  std::string declare(QualType t, const std::string& name) const {
    std::string out;
    llvm::raw_string_ostream os(out);
    TypeName::getFullyQualifiedType(t, context, true).print(os, policy, name);
    return os.str();
  }
  // `<float>` for a template specialization ("" otherwise): calls spell it, since the arguments
  // may not be deducible.
  std::string template_arguments(const FunctionDecl* f) const {
    const TemplateArgumentList* args = f->getTemplateSpecializationArgs();
    if (!args) return "";
    std::string out;
    llvm::raw_string_ostream os(out);
    printTemplateArgumentList(os, args->asArray(), policy);
    return os.str();
  }
};

std::string literal(double v, QualType t) {
  char buf[64];
  bool single = t->isSpecificBuiltinType(BuiltinType::Float);
  std::snprintf(buf, sizeof buf, single ? "%.9g" : "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  if (single) s += "f";
  if (t->isSpecificBuiltinType(BuiltinType::LongDouble)) s += "L";
  return s;
}

// The zero of an adjoint: 0 for a floating type, an empty handle `V{}` for a value class.
std::string zero(QualType t, const TypePrinter& types) {
  if (is_value_class(t)) return types.str(t.getNonReferenceType().getUnqualifiedType()) + "{}";
  return literal(0, t);
}

bool is_identifier(const std::string& s) {
  static const std::regex id("[A-Za-z_][A-Za-z_0-9]*|\\(\\*[A-Za-z_][A-Za-z_0-9]*\\)");
  return std::regex_match(s, id);
}

// Prints expressions of one function: primal values (with reverse-sweep temporaries substituted)
// and the adjoint lvalue or pointer that mirrors a memory expression.
class Printer {
 public:
  Printer(const FunctionIR& ir, const TypePrinter& types) : ir_(ir), types_(types) {}

  std::map<const Expr*, std::string> temps;


  std::string primal(const Expr* e) const {
    if (!e) return "";
    if (auto it = temps.find(strip(e)); it != temps.end()) return it->second;
    if (auto* ice = dyn_cast<ImplicitCastExpr>(e)) return primal(ice->getSubExpr());
    if (auto* c = dyn_cast<ExprWithCleanups>(e)) return primal(c->getSubExpr());
    if (auto* c = dyn_cast<ConstantExpr>(e)) return primal(c->getSubExpr());
    if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return primal(d->getExpr());
    if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return primal(m->getSubExpr());
    if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) return primal(b->getSubExpr());
    if (auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1 && strip(c) != c) return primal(c->getArg(0));
    if (auto* p = dyn_cast<ParenExpr>(e)) return "(" + primal(p->getSubExpr()) + ")";
    if (auto* i = dyn_cast<IntegerLiteral>(e)) {
      llvm::SmallString<32> digits;
      i->getValue().toString(digits, 10, i->getType()->isSignedIntegerType());
      std::string s = digits.str().str();
      QualType t = i->getType();
      if (t->isUnsignedIntegerType()) s += "u";
      if (t->isSpecificBuiltinType(BuiltinType::Long) || t->isSpecificBuiltinType(BuiltinType::ULong)) s += "l";
      if (t->isSpecificBuiltinType(BuiltinType::LongLong) || t->isSpecificBuiltinType(BuiltinType::ULongLong)) s += "ll";
      return s;
    }
    if (auto* f = dyn_cast<FloatingLiteral>(e)) return literal(f->getValueAsApproximateDouble(), f->getType());
    if (auto* b = dyn_cast<CXXBoolLiteralExpr>(e)) return b->getValue() ? "true" : "false";
    if (auto* c = dyn_cast<CharacterLiteral>(e)) return std::to_string(c->getValue());
    if (isa<CXXNullPtrLiteralExpr>(e)) return "nullptr";
    if (isa<CXXThisExpr>(e)) return ir_.self->name;
    if (is_empty_value(e)) return types_.str(strip(e)->getType().getUnqualifiedType()) + "{}";
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      if (Var* v = ir_.var(ref)) return v->name;
      const ValueDecl* d = ref->getDecl();
      return qualifier(d) + d->getName().str();
    }
    if (auto* call = dyn_cast<CallExpr>(e)) {
      if (auto it = ir_.call_result.find(call); it != ir_.call_result.end()) return it->second->name;
      return call_text(call);
    }
    if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) return primal(s->getBase()) + "[" + primal(s->getIdx()) + "]";
    if (auto* m = dyn_cast<MemberExpr>(e))
      return primal(m->getBase()) + (m->isArrow() ? "->" : ".") + m->getMemberDecl()->getName().str();
    if (auto* u = dyn_cast<UnaryOperator>(e)) return UnaryOperator::getOpcodeStr(u->getOpcode()).str() + primal(u->getSubExpr());
    if (auto* b = dyn_cast<BinaryOperator>(e))
      return primal(b->getLHS()) + " " + BinaryOperator::getOpcodeStr(b->getOpcode()).str() + " " + primal(b->getRHS());
    if (auto* c = dyn_cast<ConditionalOperator>(e))
      return primal(c->getCond()) + " ? " + primal(c->getTrueExpr()) + " : " + primal(c->getFalseExpr());
    if (auto* c = dyn_cast<ExplicitCastExpr>(e))
      return "static_cast<" + types_.str(c->getType()) + ">(" + primal(c->getSubExpr()) + ")";
    std::string out;
    llvm::raw_string_ostream os(out);
    e->printPretty(os, nullptr, types_.policy);
    return os.str();
  }

  // A call as the user wrote it (member calls and operators keep their syntax, so overloading
  // and argument-dependent lookup resolve as in the original), with its arguments' values.
  std::string call_text(const CallExpr* call) const {
    const FunctionDecl* f = call->getDirectCallee();
    std::vector<AdArg> args = ad_args(call);
    auto list = [&](size_t from) {
      std::string s;
      for (size_t i = from; i < args.size(); ++i) s += (i > from ? ", " : "") + primal(args[i].expr);
      return s;
    };
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
      auto* callee = cast<MemberExpr>(mc->getCallee()->IgnoreParens());
      if (args.size() > f->getNumParams())
        return "(" + primal(args[0].expr) + ")" + (args[0].address ? "." : "->") + f->getNameAsString() + "(" + list(1) + ")";
      return types_.str(QualType(cast<CXXMethodDecl>(f)->getParent()->getTypeForDecl(), 0)) + "::" +
             callee->getMemberDecl()->getNameAsString() + "(" + list(0) + ")";
    }
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(call)) {
      std::string spelling = getOperatorSpelling(op->getOperator());
      if (op->getOperator() == OO_Call) return "(" + primal(op->getArg(0)) + ")(" + list(1) + ")";
      if (op->getOperator() == OO_Subscript) return "(" + primal(op->getArg(0)) + ")[" + primal(op->getArg(1)) + "]";
      if (op->getNumArgs() == 1) return "(" + spelling + "(" + primal(op->getArg(0)) + "))";
      return "((" + primal(op->getArg(0)) + ") " + spelling + " (" + primal(op->getArg(1)) + "))";
    }
    if (auto* m = dyn_cast<CXXMethodDecl>(f))  // static member function
      return types_.str(QualType(m->getParent()->getTypeForDecl(), 0)) + "::" + m->getNameAsString() + "(" + list(0) + ")";
    std::string name = math_function(call) != MathFn::None ? f->getQualifiedNameAsString()
                                                           : qualifier(f) + f->getNameAsString() + types_.template_arguments(f);
    return name + "(" + list(0) + ")";
  }

  // An argument as passed to a derivative function: the object of a member call by address.
  std::string argument(const AdArg& a) const { return a.address ? "&" + primal(a.expr) : primal(a.expr); }

  // The adjoint of a scalar variable.
  std::string scalar_adjoint(const Var* v) const {
    if (v->kind == VarKind::Param) return v->assignments > 0 ? "_d_" + v->name + "_acc" : "(*_d_" + v->name + ")";
    return "_d_" + v->name;
  }

  // The adjoint memory mirroring memory expression `e` (an lvalue or a pointer).
  std::string adjoint(const Expr* e) const {
    e = strip(e);
    if (auto* call = dyn_cast<CallExpr>(e)) return "_d_" + ir_.call_result.at(call)->name;
    if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e)) {
      Var* v = ir_.var(e);
      if (v->pointer && v->kind != VarKind::Param)
        return "(" + adjoint(v->base) + " + (" + v->name + " - " + primal(v->base) + "))";
      if (v->pointer) return "_d_" + v->name;
      if (v->memory) return v->kind == VarKind::Param ? "(*_d_" + v->name + ")" : "_d_" + v->name;
      return scalar_adjoint(v);
    }
    if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) return adjoint(s->getBase()) + "[" + primal(s->getIdx()) + "]";
    if (auto* m = dyn_cast<MemberExpr>(e)) {
      std::string member = adjoint(m->getBase()) + (m->isArrow() ? "->" : ".") + m->getMemberDecl()->getName().str();
      // A `const T*` member of the adjoint struct points at the (writable) adjoint array.
      QualType t = m->getType();
      if (t->isPointerType() && t->getPointeeType().isConstQualified())
        return "const_cast<" + types_.str(t->getPointeeType().getUnqualifiedType()) + "*>(" + member + ")";
      return member;
    }
    if (auto* u = dyn_cast<UnaryOperator>(e))
      return std::string("(") + (u->getOpcode() == UO_Deref ? "*" : "&") + adjoint(u->getSubExpr()) + ")";
    auto* b = cast<BinaryOperator>(e);
    std::string op = " " + BinaryOperator::getOpcodeStr(b->getOpcode()).str() + " ";
    if (b->getLHS()->getType()->isPointerType()) return "(" + adjoint(b->getLHS()) + op + primal(b->getRHS()) + ")";
    return "(" + primal(b->getLHS()) + op + adjoint(b->getRHS()) + ")";
  }

 private:
  const FunctionIR& ir_;
  const TypePrinter& types_;
};

// Text with indentation.
struct Code {
  std::string text;
  int depth = 0;
  void line(const std::string& s) {
    if (s.empty() || s[0] == '#') {
      text += s + "\n";
      return;
    }
    text += std::string(2 * depth, ' ') + s + "\n";
  }
  void open(const std::string& s) {
    line(s);
    ++depth;
  }
  void close(const std::string& s = "}") {
    --depth;
    line(s);
  }
};

// A callee's generated reverse sweep for an activity pattern, requested while emitting a caller.
struct CalleeRequest {
  const FunctionDecl* fn;
  Mask mask;
};

// Emits the sweeps of one function.
class Emitter {
 public:
  Emitter(const FunctionIR& ir, const TypePrinter& types, const CustomPullbacks& custom, SourceManager& sm)
      : ir_(ir), types_(types), custom_(custom), sm_(sm), print_(ir, types) {}

  std::vector<CalleeRequest> callees;

  // Signatures; given the body, parameters it never mentions are marked [[maybe_unused]].
  std::string forward_signature(const std::string* body = nullptr) const {
    return types_.str(ir_.fn->getReturnType()) + " " + base_name(ir_.fn) + "_forward(" + params(body) + ")";
  }

  std::string reverse_signature(const Mask& mask, const std::string& suffix, const std::string* body = nullptr) const {
    std::string s = "void " + base_name(ir_.fn) + suffix + "(" + params(body);
    std::string extra = adjoint_params(mask, body);
    if (!extra.empty()) s += (ir_.params.empty() ? "" : ", ") + extra;
    return s + ")";
  }

  // Whether generated code uses `name` (the #line directives' file names do not count).
  static bool mentions(const std::string* body, const std::string& name) {
    if (!body) return true;
    std::regex word("\\b" + name + "\\b");
    std::istringstream lines(*body);
    for (std::string l; std::getline(lines, l);)
      if (l.rfind("#line", 0) != 0 && std::regex_search(l, word)) return true;
    return false;
  }

  std::string params(const std::string* body = nullptr) const {
    std::string s;
    for (Var* v : ir_.params) {
      if (!s.empty()) s += ", ";
      if (!mentions(body, v->name)) s += "[[maybe_unused]] ";
      s += types_.declare(v->param_type, v->name);
    }
    return s;
  }

  // The adjoint result argument and one adjoint per differentiable parameter.
  std::string adjoint_params(const Mask& mask, const std::string* body = nullptr) const {
    std::vector<std::string> parts;
    auto unused = [&](const std::string& name) { return mentions(body, name) ? "" : "[[maybe_unused]] "; };
    if (ir_.returns_value)
      parts.push_back(unused("_d_result") + types_.str(ir_.fn->getReturnType().getUnqualifiedType()) + " _d_result");
    for (Var* v : ir_.params) {
      if (!v->differentiable) continue;
      std::string name = "_d_" + v->name;
      if (!mask[v->param_index]) {
        parts.push_back(std::string(unused(name)) + "::adjoint::inactive " + name);
        continue;
      }
      parts.push_back(std::string(unused(name)) + types_.str(adjoint_pointee(v->param_type)) + "* " + name);
    }
    std::string s;
    for (auto& p : parts) s += (s.empty() ? "" : ", ") + p;
    return s;
  }

  static QualType adjoint_pointee(QualType t) {
    if (t->isPointerType() || t->isReferenceType()) t = t->getPointeeType();
    return t.getUnqualifiedType();
  }

  // f_forward: the original computation plus the pushes the reverse sweep pops.
  std::string forward() {
    Code body;
    body.depth = 1;
    for (Node* c : ir_.body->children) forward_node(c, body);
    if (!ir_.returns.empty()) body.line("_forward_end:;");
    push_kept(body, nullptr);
    if (exit_codes()) body.line("::adjoint::detail::push(_exit);");
    if (ir_.ret) body.line("return _ret;");
    Code code;
    line_directive(code, ir_.fn->getLocation());
    code.open("inline " + forward_signature(&body.text) + " {");
    declare_vars(code, nullptr, body.text, false);
    if (exit_codes()) code.line("long _exit = 0;");
    code.text += body.text;
    code.close();
    return code.text;
  }

  // f_reverse for one activity pattern.
  std::string reverse(const Mask& mask, Diagnostics& diags) {
    act_ = analyze_activity(ir_, mask, nullptr, SourceLocation());
    diags_ = &diags;
    Code body;
    body.depth = 1;
    if (ir_.ret && ir_.returns_value && act_.of(ir_.ret)) body.line("_d__ret = _d_result;");
    if (exit_codes()) body.line("const long _exit = ::adjoint::detail::pop_count();");
    pop_kept(body, nullptr);
    if (exit_codes())
      for (Node* r : ir_.returns) body.line("if (_exit == " + std::to_string(r->id) + ") goto _L" + std::to_string(r->id) + ";");
    reverse_block(ir_.body, body, false);
    for (auto& v : ir_.vars)
      if (v->kind == VarKind::Param && (v->floating || v->value) && v->assignments > 0 && mask[v->param_index])
        body.line(accumulation("*_d_" + v->name, "_d_" + v->name + "_acc", v->type));
    Code code;
    line_directive(code, ir_.fn->getLocation());
    code.open("inline " + reverse_signature(mask, "_reverse", &body.text) + " {");
    declare_vars(code, nullptr, body.text, true);
    code.text += body.text;
    code.close();
    return code.text;
  }

 private:
  const FunctionIR& ir_;
  const TypePrinter& types_;
  const CustomPullbacks& custom_;
  SourceManager& sm_;
  Printer print_;
  Activity act_;
  Diagnostics* diags_ = nullptr;
  int temp_ = 0;
  Node* parallel_ = nullptr;                         // parallel loop being emitted
  std::set<const Var*> partitioned_;                 // its regions each thread owns a part of
  std::vector<std::pair<Node*, size_t>> scopes_;    // reverse: blocks and the child being reversed

  bool exit_codes() const {
    size_t exits = ir_.returns.size();
    bool falls_through = ir_.body->children.empty() || ir_.body->children.back()->kind != NodeKind::Jump;
    if (falls_through) ++exits;
    return exits >= 2 && ir_.body->reverse;
  }

  void line_directive(Code& code, SourceLocation loc) const {
    if (loc.isInvalid()) return;
    PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
    if (p.isInvalid()) return;
    std::string file = p.getFilename();
    std::string escaped;
    for (char c : file) escaped += (c == '\\' || c == '"') ? std::string("\\") + c : std::string(1, c);
    code.line("#line " + std::to_string(p.getLine()) + " \"" + escaped + "\"");
  }

  bool in_scope(const Var* v, const Node* parallel) const { return v->parallel == parallel; }

  // `name` declared with v's type, value-initialised (zero).
  std::string zero_declaration(const Var* v, const std::string& name) const {
    return "[[maybe_unused]] " + types_.declare(v->type.getUnqualifiedType(), name) + "{};";
  }

  // Declares the variables of a scope (function or parallel region) that `body` mentions.
  void declare_vars(Code& code, const Node* parallel, const std::string& body, bool reverse) const {
    auto mentioned = [&](const std::string& name) {
      return std::regex_search(body, std::regex("\\b" + name + "\\b"));
    };
    for (auto& v : ir_.vars) {
      if (!in_scope(v.get(), parallel) || v->kind == VarKind::Param) continue;
      if (mentioned(v->name)) code.line(zero_declaration(v.get(), v->name));
      if (reverse && (v->floating || v->value || v->memory) && mentioned("_d_" + v->name))
        code.line(zero_declaration(v.get(), "_d_" + v->name));
    }
    if (reverse && !parallel)
      for (auto& v : ir_.vars)
        if (v->kind == VarKind::Param && (v->floating || v->value) && v->assignments > 0 && mentioned("_d_" + v->name + "_acc"))
          code.line(types_.str(v->type.getUnqualifiedType()) + " _d_" + v->name + "_acc{};");
  }

  std::vector<Var*> kept(const Node* parallel) const {
    std::vector<Var*> out;
    for (auto& v : ir_.vars)
      if (v->kept && in_scope(v.get(), parallel)) out.push_back(v.get());
    return out;
  }
  void push_kept(Code& code, const Node* parallel) const {
    for (Var* v : kept(parallel)) code.line(push(v->name, v));
  }
  void pop_kept(Code& code, const Node* parallel) const {
    auto vs = kept(parallel);
    for (auto it = vs.rbegin(); it != vs.rend(); ++it) code.line(pop((*it)->name, (*it)->type, *it));
  }

  static std::string push(const std::string& value, const Var* v = nullptr) {
    if (v && v->type->isArrayType()) return "::adjoint::detail::push_array(" + value + ");";
    return "::adjoint::detail::push(" + value + ");";
  }
  std::string pop(const std::string& lvalue, QualType type, const Var* v = nullptr) const {
    if (v && v->type->isArrayType()) return "::adjoint::detail::pop_array(" + lvalue + ");";
    return lvalue + " = ::adjoint::detail::pop<" + types_.str(type.getUnqualifiedType()) + ">();";
  }

  std::vector<Var*> iteration_kept(const Node* loop) const {
    std::vector<Var*> out;
    for (auto& v : ir_.vars)
      if (v->iteration == loop && v->read_in_reverse && !v->recompute) out.push_back(v.get());
    return out;
  }
  void push_iteration(Code& code, const Node* loop) const {
    if (!loop->reverse) return;
    for (Var* v : iteration_kept(loop)) code.line(push(v->name, v));
  }
  bool pop_iteration_needed(const Node* loop) const { return !iteration_kept(loop).empty(); }
  void pop_iteration(Code& code, const Node* loop) const {
    auto vs = iteration_kept(loop);
    for (auto it = vs.rbegin(); it != vs.rend(); ++it) code.line(pop((*it)->name, (*it)->type, *it));
  }

  // A generated derivative of `f` (for a template specialization or a member, an overload).
  std::string callee_name(const FunctionDecl* f, const std::string& suffix) const {
    return qualifier(f) + base_name(f) + suffix;
  }

  // `target += value` for a floating adjoint; for a value class its accumulate_adjoint (found by
  // argument-dependent lookup), which materialises an empty target.
  static std::string accumulation(const std::string& target, const std::string& value, QualType t) {
    if (is_value_class(t)) return "accumulate_adjoint(" + target + ", " + value + ");";
    return target + " += " + value + ";";
  }

  // ----- forward sweep

  void forward_node(Node* n, Code& code) {
    switch (n->kind) {
      case NodeKind::Block:
        code.open("{");
        for (Node* c : n->children) forward_node(c, code);
        code.close();
        return;
      case NodeKind::Assign: {
        line_directive(code, n->loc);
        std::string lhs = n->target ? n->target->name : print_.primal(n->lhs);
        if (n->save && !n->bulk) code.line(push(lhs));
        if (!n->rhs) code.line(std::string(n->op == BO_AddAssign ? "++" : "--") + lhs + ";");
        else code.line(lhs + " " + BinaryOperator::getOpcodeStr(n->op).str() + " " + print_.primal(n->rhs) + ";");
        return;
      }
      case NodeKind::Call: {
        line_directive(code, n->loc);
        const FunctionDecl* f = n->call->getDirectCallee();
        bool generated = ir_.hoisted.count(n->call) && n->active && callee_kind(f, custom_) == CalleeKind::User;
        std::string s = print_.call_text(n->call) + ";";
        if (generated) {
          s = callee_name(f, "_forward") + "(";
          bool first = true;
          for (const AdArg& a : ad_args(n->call)) s += (first ? "" : ", ") + print_.argument(a), first = false;
          s += ");";
        }
        if (!n->save) {
          code.line(n->result ? n->result->name + " = " + s : s);
          return;
        }
        // The old value goes on the tape after the callee's own pushes, so that the reverse pops
        // it first (restoring what the arguments read) and the pullback then pops the callee's.
        const std::string& r = n->result->name;
        code.open("{");
        code.line("const " + types_.declare(n->result->type.getUnqualifiedType(), "_saved") + " = " + r + ";");
        code.line(r + " = " + s);
        code.line(push("_saved"));
        code.close();
        return;
      }
      case NodeKind::If: {
        line_directive(code, n->loc);
        code.open("if (" + print_.primal(n->cond) + ") {");
        forward_children(n->then_node, code);
        const Node* bits = branch_bits_loop(n);
        if (bits) code.line(branch_word(n) + " |= 1ull << ((_n" + std::to_string(bits->id) + " - 1) & 63);");
        else if (n->reverse) code.line("::adjoint::detail::push(true);");
        if (n->else_node || (n->reverse && !bits)) {
          code.close("} else {");
          ++code.depth;
          if (n->else_node) forward_children(n->else_node, code);
          if (n->reverse && !bits) code.line("::adjoint::detail::push(false);");
        }
        code.close();
        return;
      }
      case NodeKind::Loop:
        return n->parallel ? forward_parallel(n, code) : forward_loop(n, code);
      case NodeKind::Jump:
        return forward_jump(n, code);
    }
  }

  // Branch bits: an `if` directly in the body of a jump-free canonical loop (not in a parallel
  // loop) records its direction as bit `iteration % 64` of a word (`_b<order>`) that is pushed
  // every 64 iterations, instead of a bool per iteration; the reverse loop tests its iteration's
  // bit. Returns that loop, or nullptr when the branch pushes bools.
  static const Node* branch_bits_loop(const Node* n) {
    if (n->kind != NodeKind::If || !n->reverse || !n->parent) return nullptr;
    const Node* loop = n->parent->parent;
    if (!loop || loop->kind != NodeKind::Loop || loop->body != n->parent || !loop->counter || !loop->jumps.empty() ||
        loop->parallel)
      return nullptr;
    for (const Node* l : n->loops)
      if (l->parallel) return nullptr;
    return loop;
  }
  static std::vector<const Node*> branch_bits(const Node* loop) {
    std::vector<const Node*> out;
    for (const Node* c : loop->body->children)
      if (branch_bits_loop(c) == loop) out.push_back(c);
    return out;
  }
  static std::string branch_word(const Node* branch) { return "_b" + std::to_string(branch->order); }

  void forward_children(Node* block, Code& code) {
    for (Node* c : block->children) forward_node(c, code);
  }

  bool has_continue(const Node* loop) const {
    for (Node* j : loop->jumps)
      if (j->jump == JumpKind::Continue) return true;
    return false;
  }

  void forward_jump(Node* n, Code& code) {
    std::string id = std::to_string(n->id);
    if (n->jump == JumpKind::Return) {
      if (exit_codes()) code.line("_exit = " + id + ";");
      code.line("goto _forward_end;");
      return;
    }
    Node* loop = n->target_loop;
    std::string push = loop->reverse ? "::adjoint::detail::push(" + id + "l); " : "";
    if (n->jump == JumpKind::Break) return code.line("{ " + push + "break; }");
    if (loop->counter) return code.line("{ " + push + "continue; }");
    code.line("{ " + push + "goto _continue" + std::to_string(loop->id) + "; }");
  }

  void forward_loop(Node* n, Code& code) {
    std::string id = std::to_string(n->id);
    line_directive(code, n->loc);
    code.open("{");
    if (n->reverse) code.line("long _n" + id + " = 0;");
    std::string cond = n->cond ? print_.primal(n->cond) : "true";
    for (const Node* b : branch_bits(n)) code.line("unsigned long long " + branch_word(b) + " = 0;");
    if (n->counter) {
      code.line("const long _s" + id + " = " + print_.primal(n->start) + ";");
      if (n->bulk_write)
        code.line("::adjoint::detail::push_n(" + bulk_first(n) + ", ::adjoint::detail::trip_count(_s" + id + ", " +
                  print_.primal(n->end) + "));");
      std::string inc = n->step == 1 ? "++" + n->counter->name
                        : n->step == -1 ? "--" + n->counter->name
                                        : n->counter->name + " += " + std::to_string(n->step);
      code.open("for (" + n->counter->name + " = _s" + id + "; " + cond + "; " + inc + ") {");
    } else if (n->form == LoopForm::Do) {
      code.open("do {");
    } else {
      code.open("while (" + cond + ") {");
    }
    if (n->reverse) code.line("++_n" + id + ";");
    forward_children(n->body, code);
    push_iteration(code, n);
    for (const Node* b : branch_bits(n))
      code.line("if ((_n" + id + " & 63) == 0) { ::adjoint::detail::push(" + branch_word(b) + "); " + branch_word(b) +
                " = 0; }");
    if (n->reverse && !n->jumps.empty()) code.line("::adjoint::detail::push(0l);");
    if (!n->counter && has_continue(n)) code.line("_continue" + id + ":;");
    if (n->inc) forward_children(n->inc, code);
    code.close(n->form == LoopForm::Do ? "} while (" + cond + ");" : "}");
    for (const Node* b : branch_bits(n))
      code.line("if ((_n" + id + " & 63) != 0) ::adjoint::detail::push(" + branch_word(b) + ");");
    if (n->reverse) {
      if (n->counter) code.line("::adjoint::detail::push(_s" + id + ");");
      code.line("::adjoint::detail::push(_n" + id + ");");
    }
    code.close();
  }

  // The first element a bulk-saved loop overwrites: P + (X + _s).
  std::string bulk_first(const Node* loop) const {
    std::string s = "_s" + std::to_string(loop->id);
    return print_.primal(loop->bulk_pointer) + " + " +
           (loop->bulk_offset ? "(" + print_.primal(loop->bulk_offset) + " + " + s + ")" : s);
  }

  void forward_parallel(Node* n, Code& code) {
    std::string id = std::to_string(n->id);
    line_directive(code, n->loc);
    code.open("{");
    code.line("const long _s" + id + " = " + print_.primal(n->start) + ";");
    code.line("const long _e" + id + " = " + print_.primal(n->end) + ";");
    code.line("int _threads" + id + " = 1;");
    code.line("#pragma omp parallel");
    code.open("{");
    Code body;
    body.depth = code.depth;
    body.line("const int _thread = ::adjoint::detail::thread_index();");
    body.line("if (_thread == 0) _threads" + id + " = ::adjoint::detail::thread_count();");
    body.line("long _lo, _hi;");
    body.line("::adjoint::detail::thread_chunk(_e" + id + " > _s" + id + " ? _e" + id + " - _s" + id +
              " : 0, _thread, ::adjoint::detail::thread_count(), _lo, _hi);");
    body.open("for (long _k = _lo; _k < _hi; ++_k) {");
    body.line(n->counter->name + " = _s" + id + " + _k;");
    Node* saved = parallel_;
    parallel_ = n;
    forward_children(n->body, body);
    push_iteration(body, n);
    body.close();
    push_kept(body, n);
    parallel_ = saved;
    declare_vars(code, n, body.text, false);
    code.text += body.text;
    code.close();
    if (n->reverse) {
      code.line("::adjoint::detail::push(_s" + id + ");");
      code.line("::adjoint::detail::push(_e" + id + ");");
      code.line("::adjoint::detail::push(static_cast<long>(_threads" + id + "));");
    }
    code.close();
  }

  // ----- reverse sweep

  std::string temp(const std::string& prefix = "_t") { return prefix + std::to_string(temp_++); }

  bool private_adjoint(const Expr* e) const {
    if (!parallel_) return true;
    e = strip(e);
    Var* v = ir_.var(e);
    if (!v) v = memory_root(ir_, e);
    return v && (v->parallel == parallel_ || partitioned_.count(v));
  }

  void accumulate(Code& code, const std::string& target, const std::string& value, bool is_private, QualType t = {}) {
    if (!is_private) code.line("#pragma omp atomic");
    code.line(accumulation(target, value, t));
  }

  // Binds the values the reverse of `e` needs to temporaries, innermost first.
  void bind_values(const Expr* e, Code& code, const std::vector<const Expr*>& extra = {}) {
    std::vector<const Expr*> values = extra;
    needed_values(ir_, act_, e, values);
    // Math calls whose derivative reuses their value.
    std::function<void(const Expr*)> calls = [&](const Expr* x) {
      x = strip(x);
      if (!reads_varied(ir_, act_, x)) return;
      if (auto* c = dyn_cast<CallExpr>(x)) {
        MathFn m = math_function(c);
        if (m == MathFn::Exp || m == MathFn::Sqrt || m == MathFn::Tanh || m == MathFn::Pow) values.push_back(x);
      }
      for (const Stmt* ch : x->children())
        if (auto* ce = dyn_cast_or_null<Expr>(ch)) calls(ce);
    };
    calls(e);
    std::set<const Expr*> wanted;
    for (const Expr* v : values) wanted.insert(strip(v));
    // Post-order, so inner temporaries exist before the outer ones that use them.
    std::function<void(const Expr*)> visit = [&](const Expr* x) {
      x = strip(x);
      for (const Stmt* ch : x->children())
        if (auto* ce = dyn_cast_or_null<Expr>(ch)) visit(ce);
      if (!wanted.count(x) || print_.temps.count(x) || isa<DeclRefExpr>(x) || isa<IntegerLiteral>(x) ||
          isa<FloatingLiteral>(x) || (isa<CallExpr>(x) && ir_.call_result.count(cast<CallExpr>(x))))
        return;
      std::string name = temp();
      code.line("const " + types_.str(x->getType().getUnqualifiedType()) + " " + name + " = " + print_.primal(x) + ";");
      print_.temps[x] = name;
    };
    visit(e);
  }

  std::string bind_adjoint(const std::string& adj, QualType t, Code& code) {
    if (is_identifier(adj)) return adj;
    std::string name = temp("_a");
    code.line("const " + types_.str(t.getUnqualifiedType()) + " " + name + " = " + adj + ";");
    return name;
  }

  // The primal value of `x` as an operand: parenthesised unless it is a single term.
  std::string value(const Expr* x) const {
    const Expr* s = strip(x);
    std::string text = print_.primal(x);
    if (print_.temps.count(s) || isa<DeclRefExpr>(s) || isa<IntegerLiteral>(s) || isa<FloatingLiteral>(s) ||
        isa<CallExpr>(s) || isa<ArraySubscriptExpr>(s) || isa<MemberExpr>(s) || isa<ParenExpr>(x->IgnoreImpCasts()))
      return text;
    return "(" + text + ")";
  }

  // Adds `adj` times the derivative of `e` to the adjoints of what `e` reads.
  void propagate(const Expr* e, const std::string& adj_in, Code& code) {
    e = strip(e);
    if (!reads_varied(ir_, act_, e)) return;
    QualType t = e->getType();
    if (auto* call = dyn_cast<CallExpr>(e); call && ir_.call_result.count(call))
      return accumulate(code, "_d_" + ir_.call_result.at(call)->name, adj_in, ir_.call_result.at(call)->parallel == parallel_, t);
    if (isa<DeclRefExpr>(e) || isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e) ||
        (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref))
      return accumulate(code, print_.adjoint(e), adj_in, private_adjoint(e), t);
    if (is_value_class(t)) return;  // value classes change only through calls
    std::string adj = bind_adjoint(adj_in, t, code);
    auto P = [&](const Expr* x) { return value(x); };
    if (auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_Minus) return propagate(u->getSubExpr(), "-" + adj, code);
      return propagate(u->getSubExpr(), adj, code);
    }
    if (auto* b = dyn_cast<BinaryOperator>(e)) {
      const Expr *l = b->getLHS(), *r = b->getRHS();
      switch (b->getOpcode()) {
        case BO_Add:
          propagate(l, adj, code);
          return propagate(r, adj, code);
        case BO_Sub:
          propagate(l, adj, code);
          return propagate(r, "-" + adj, code);
        case BO_Mul:
          propagate(l, adj + " * " + P(r), code);
          return propagate(r, P(l) + " * " + adj, code);
        case BO_Div:
          propagate(l, adj + " / " + P(r), code);
          return propagate(r, "-" + adj + " * " + P(l) + " / (" + P(r) + " * " + P(r) + ")", code);
        default:
          return;
      }
    }
    if (auto* c = dyn_cast<ConditionalOperator>(e)) {
      code.open("if (" + P(c->getCond()) + ") {");
      propagate(c->getTrueExpr(), adj, code);
      code.close("} else {");
      ++code.depth;
      propagate(c->getFalseExpr(), adj, code);
      code.close();
      return;
    }
    if (auto* c = dyn_cast<ExplicitCastExpr>(e)) return propagate(c->getSubExpr(), adj, code);
    auto* call = cast<CallExpr>(e);
    MathFn m = math_function(call);
    const Expr* a = call->getArg(0);
    std::string value = P(call), x = P(a);
    auto lit = [&](double v) { return literal(v, t); };
    switch (m) {
      case MathFn::Exp: return propagate(a, adj + " * " + value, code);
      case MathFn::Log: return propagate(a, adj + " / " + x, code);
      case MathFn::Sqrt: return propagate(a, adj + " / (" + lit(2) + " * " + value + ")", code);
      case MathFn::Tanh: return propagate(a, adj + " * (" + lit(1) + " - " + value + " * " + value + ")", code);
      case MathFn::Sin: return propagate(a, adj + " * std::cos(" + x + ")", code);
      case MathFn::Cos: return propagate(a, "-" + adj + " * std::sin(" + x + ")", code);
      case MathFn::Erf:
        return propagate(a, adj + " * " + lit(1.1283791670955126) + " * std::exp(-" + x + " * " + x + ")", code);
      case MathFn::Fabs: return propagate(a, "(" + x + " < " + lit(0) + " ? -" + adj + " : " + adj + ")", code);
      case MathFn::Pow: {
        const Expr* p = call->getArg(1);
        propagate(a, adj + " * " + P(p) + " * std::pow(" + x + ", " + P(p) + " - " + lit(1) + ")", code);
        return propagate(p, adj + " * " + value + " * std::log(" + x + ")", code);
      }
      case MathFn::Fmax:
      case MathFn::Fmin: {
        const Expr* b = call->getArg(1);
        code.open("if (" + x + (m == MathFn::Fmax ? " >= " : " <= ") + P(b) + ") {");
        propagate(a, adj, code);
        code.close("} else {");
        ++code.depth;
        propagate(b, adj, code);
        code.close();
        return;
      }
      case MathFn::None: return;
    }
  }

  void recompute(Node* block, size_t upto, Code& code) {
    for (size_t i = 0; i < upto && i < block->children.size(); ++i) {
      Node* c = block->children[i];
      if (c->kind == NodeKind::Assign && c->definition && c->target && c->target->recompute)
        code.line(c->target->name + " = " + print_.primal(c->rhs) + ";");
    }
  }

  void reverse_block(Node* block, Code& code, bool recompute_locals) {
    if (recompute_locals) recompute(block, block->children.size(), code);
    scopes_.push_back({block, 0});
    for (size_t i = block->children.size(); i-- > 0;) {
      scopes_.back().second = i;
      Node* c = block->children[i];
      if (c->reverse) reverse_node(c, code);
    }
    scopes_.pop_back();
  }

  void reverse_node(Node* n, Code& code) {
    switch (n->kind) {
      case NodeKind::Block:
        code.open("{");
        reverse_block(n, code, true);
        code.close();
        return;
      case NodeKind::Assign:
      case NodeKind::Call: return reverse_statement(n, code);
      case NodeKind::If:
        line_directive(code, n->loc);
        if (const Node* bits = branch_bits_loop(n))
          code.open("if (((" + branch_word(n) + " >> (_k" + std::to_string(bits->id) + " & 63)) & 1) != 0) {");
        else
          code.open("if (::adjoint::detail::pop_branch()) {");
        reverse_block(n->then_node, code, true);
        code.close("} else {");
        ++code.depth;
        if (n->else_node) reverse_block(n->else_node, code, true);
        code.close();
        return;
      case NodeKind::Loop: return n->parallel ? reverse_parallel(n, code) : reverse_loop(n, code);
      case NodeKind::Jump: return reverse_jump(n, code);
    }
  }

  void reverse_jump(Node* n, Code& code) {
    std::string label = "_L" + std::to_string(n->id) + ":;";
    if (n->jump == JumpKind::Return) {
      if (exit_codes()) code.line(label);
      return;
    }
    code.line(label);
    // Locals defined before the jump in this iteration: the dispatch skipped their recomputation.
    size_t first = 0;
    while (first < scopes_.size() && scopes_[first].first != n->target_loop->body) ++first;
    for (size_t i = first; i < scopes_.size(); ++i) recompute(scopes_[i].first, scopes_[i].second, code);
  }

  void dispatch(Node* loop, const std::string& exit, Code& code) {
    for (Node* j : loop->jumps) code.line("if (" + exit + " == " + std::to_string(j->id) + ") goto _L" + std::to_string(j->id) + ";");
  }

  // A loop whose only reverse work is one branch recorded in bits (a running maximum's `if`):
  // iterations that did not take it have nothing to undo, so the reverse visits only the set bits.
  static const Node* only_branch(const Node* loop) {
    std::vector<const Node*> bits = branch_bits(loop);
    if (bits.size() != 1 || loop->bulk_write || (bits[0]->else_node && bits[0]->else_node->reverse)) return nullptr;
    for (const Node* c : loop->body->children)
      if (c->reverse && c != bits[0]) return nullptr;
    return bits[0];
  }

  void reverse_taken_iterations(Node* n, const Node* branch, Code& code) {
    std::string id = std::to_string(n->id), word = branch_word(branch), k = "_k" + id;
    code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
    code.line("const long _w" + id + " = (_n" + id + " + 63) / 64;");
    code.line("unsigned long long " + word + " = (_n" + id + " & 63) != 0 ? ::adjoint::detail::pop<unsigned long long>() : 0;");
    code.open("for (long _i" + id + " = _w" + id + " - 1; _i" + id + " >= 0; --_i" + id + ") {");
    code.line("if (_i" + id + " != _w" + id + " - 1 || (_n" + id + " & 63) == 0) " + word +
              " = ::adjoint::detail::pop<unsigned long long>();");
    code.open("while (" + word + " != 0) {");
    code.line("const int _bit" + id + " = ::adjoint::detail::highest_bit(" + word + ");");
    code.line("const long " + k + " = _i" + id + " * 64 + _bit" + id + ";");
    code.line(n->counter->name + " = _s" + id + " + " + k + (n->step == 1 ? "" : " * " + std::to_string(n->step) + "l") + ";");
    reverse_block(n->body, code, true);
    code.line(word + " &= ~(1ull << _bit" + id + ");");
    code.close();
    code.close();
  }

  void reverse_loop(Node* n, Code& code) {
    std::string id = std::to_string(n->id);
    line_directive(code, n->loc);
    code.open("{");
    code.line("const long _n" + id + " = ::adjoint::detail::pop_count();");
    if (const Node* branch = only_branch(n); branch && !pop_iteration_needed(n)) {
      reverse_taken_iterations(n, branch, code);
      code.close();
      return;
    }
    if (n->counter && n->jumps.empty()) {
      // The counter steps back from the forward loop's exit value (start + trip count * step,
      // which the forward computed), so it is an induction variable of its own type: computed
      // from the long trip counter instead, an int counter is a truncation that keeps GCC from
      // vectorising the loop.
      const std::string& i = n->counter->name;
      std::string step = std::to_string(n->step);
      code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
      code.line(i + " = _s" + id + " + _n" + id + (n->step == 1 ? "" : " * " + step + "l") + ";");
      if (n->bulk_write && n->bulk_restore_first) code.line(bulk_restore(n));
      std::vector<const Node*> words = branch_bits(n);  // popped in the reverse of their push order
      std::reverse(words.begin(), words.end());
      for (const Node* b : words)
        code.line("unsigned long long " + branch_word(b) + " = (_n" + id +
                  " & 63) != 0 ? ::adjoint::detail::pop<unsigned long long>() : 0;");
      bool simd = simd_pragma(n, code);
      code.open("for (long _k" + id + " = _n" + id + " - 1; _k" + id + " >= 0; --_k" + id + ") {");
      code.line(n->step == 1 ? "--" + i + ";" : n->step == -1 ? "++" + i + ";" : i + " -= " + step + ";");
      if (simd) declare_iteration_locals(n, code);
      for (const Node* b : words)
        code.line("if ((_k" + id + " & 63) == 63) " + branch_word(b) + " = ::adjoint::detail::pop<unsigned long long>();");
    } else if (n->counter) {
      code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
      code.open("for (long _k" + id + " = _n" + id + " - 1; _k" + id + " >= 0; --_k" + id + ") {");
      code.line(n->counter->name + " = _s" + id + " + _k" + id + (n->step == 1 ? "" : " * " + std::to_string(n->step) + "l") + ";");
    } else {
      code.open("for (long _k" + id + " = 0; _k" + id + " < _n" + id + "; ++_k" + id + ") {");
    }
    std::string exit = "_exit" + id;
    if (!n->jumps.empty()) code.line("const long " + exit + " = ::adjoint::detail::pop_count();");
    if (n->inc && n->inc->reverse) {
      std::string breaks;
      for (Node* j : n->jumps)
        if (j->jump == JumpKind::Break) breaks += (breaks.empty() ? "" : " && ") + exit + " != " + std::to_string(j->id);
      if (!breaks.empty()) code.open("if (" + breaks + ") {");
      reverse_block(n->inc, code, false);
      if (!breaks.empty()) code.close();
    }
    pop_iteration(code, n);
    dispatch(n, exit, code);
    reverse_block(n->body, code, true);
    code.close();
    if (n->bulk_write && !n->bulk_restore_first) code.line(bulk_restore(n));
    code.close();
  }

  // `omp simd` for a loop whose reverse iterations share nothing but sums (Node::simd_reverse),
  // when some of the sums are active under this mask; the counter steps back by the loop's step.
  bool simd_pragma(const Node* n, Code& code) const {
    if (!n->simd_reverse) return false;
    std::string sums;
    for (const Var* v : n->simd_sums)
      if (act_.of(v)) sums += (sums.empty() ? "" : ", ") + print_.scalar_adjoint(v);
    if (sums.empty()) return false;
    code.line("ADJOINT_SIMD(linear(" + n->counter->name + " : " + std::to_string(-n->step) + ") reduction(+ : " + sums + "))");
    return true;
  }

  // The locals of a vectorised reverse loop's iteration, and their adjoints, declared in it so that
  // each iteration has its own (their adjoints start at zero in every iteration, as in sequence).
  void declare_iteration_locals(const Node* loop, Code& code) const {
    for (auto& v : ir_.vars) {
      if (v->kind != VarKind::Local || !declared_in(v.get(), loop->body)) continue;
      code.line(zero_declaration(v.get(), v->name));
      if (v->floating) code.line(zero_declaration(v.get(), "_d_" + v->name));
    }
  }

  std::string bulk_restore(const Node* loop) const {
    return "::adjoint::detail::pop_n(" + bulk_first(loop) + ", _n" + std::to_string(loop->id) + ");";
  }

  void reverse_parallel(Node* n, Code& code) {
    std::string id = std::to_string(n->id);
    line_directive(code, n->loc);
    code.open("{");
    code.line("const long _threads" + id + " = ::adjoint::detail::pop_count();");
    code.line("const long _e" + id + " = ::adjoint::detail::pop_count();");
    code.line("const long _s" + id + " = ::adjoint::detail::pop_count();");
    code.line("#pragma omp parallel num_threads(_threads" + id + ")");
    code.open("{");
    Code body;
    body.depth = code.depth;
    body.line("::adjoint::detail::require_thread_count(static_cast<int>(_threads" + id + "));");
    Node* saved = parallel_;
    parallel_ = n;
    partitioned_ = counter_indexed_regions(ir_, n);
    pop_kept(body, n);
    body.line("long _lo, _hi;");
    body.line("::adjoint::detail::thread_chunk(_e" + id + " > _s" + id + " ? _e" + id + " - _s" + id +
              " : 0, ::adjoint::detail::thread_index(), ::adjoint::detail::thread_count(), _lo, _hi);");
    body.open("for (long _k = _hi - 1; _k >= _lo; --_k) {");
    body.line(n->counter->name + " = _s" + id + " + _k;");
    pop_iteration(body, n);
    reverse_block(n->body, body, true);
    body.close();
    parallel_ = saved;
    declare_vars(code, n, body.text, true);
    code.text += body.text;
    code.close();
    code.close();
  }

  static std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }

  // Drops temporaries (`const T _t3 = ...;`) nothing in the statement's reverse code uses.
  static void prune_temps(std::vector<std::string>& lines) {
    static const std::regex decl("^\\s*const [^=]* (_[tra][0-9]+) = .*;$");
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < lines.size() && !changed; ++i) {
        std::smatch m;
        if (!std::regex_match(lines[i], m, decl)) continue;
        std::regex use("\\b" + m[1].str() + "\\b");
        bool used = false;
        for (size_t j = 0; j < lines.size() && !used; ++j) used = j != i && std::regex_search(lines[j], use);
        if (!used) {
          lines.erase(lines.begin() + long(i));
          changed = true;
        }
      }
    }
  }

  // Merges `t += a; ...; t += b;` within one statement's reverse into `t += a + b;` at the second
  // place (when nothing between mentions t), shortening the chain of dependent additions.
  static void merge_accumulations(std::vector<std::string>& lines) {
    static const std::regex accumulate("^(\\s*)(.*[^ ]) \\+= (.*);$");
    auto atomic = [&](size_t i) { return i > 0 && lines[i - 1].find("#pragma") != std::string::npos; };
    for (size_t j = 0; j < lines.size(); ++j) {
      std::smatch mj;
      if (!std::regex_match(lines[j], mj, accumulate) || atomic(j)) continue;
      std::string target = mj[2], value = mj[3];
      for (size_t i = j; i-- > 0;) {
        std::smatch mi;
        if (std::regex_match(lines[i], mi, accumulate) && mi[2] == target && mi[1] == mj[1] && !atomic(i)) {
          lines[j] = mj[1].str() + target + " += " + mi[3].str() + " + " + value + ";";
          lines.erase(lines.begin() + long(i));
          --j;
          break;
        }
        if (lines[i].find(target) != std::string::npos || lines[i].find_first_of("{}") != std::string::npos) break;
      }
    }
  }

  // The reverse of an assignment or call, tidied.
  void reverse_statement(Node* n, Code& out) {
    Code code;
    code.depth = out.depth;
    if (n->kind == NodeKind::Assign) reverse_assign(n, code);
    else reverse_call(n, code);
    std::vector<std::string> lines = split_lines(code.text);
    prune_temps(lines);
    merge_accumulations(lines);
    for (auto& l : lines) out.text += l + "\n";
  }

  void reverse_assign(Node* n, Code& code) {
    line_directive(code, n->loc);
    code.open("{");
    std::string lhs = n->target ? n->target->name : print_.primal(n->lhs);
    if (n->result_in_target) {  // the call's value, read before the pop restores the old one
      std::string value = temp();
      code.line("const " + types_.str(n->lhs->getType().getUnqualifiedType()) + " " + value + " = " + lhs + ";");
      print_.temps[strip(n->rhs)] = value;
    }
    if (n->save && !n->bulk) code.line(pop(lhs, n->target ? n->target->type : n->lhs->getType()));
    Var* written = n->target ? n->target : n->memory_root;
    bool floating = n->target ? n->target->floating || n->target->value : is_floating(n->lhs->getType());
    if (floating && act_.of(written) && n->rhs) {
      std::string adj = n->target ? print_.scalar_adjoint(n->target) : print_.adjoint(n->lhs);
      QualType t = n->target ? n->target->type : n->lhs->getType();
      bool target_private = n->target ? n->target->parallel == parallel_ : true;
      std::string r = temp("_r");
      code.line("const " + types_.str(t.getUnqualifiedType()) + " " + r + " = " + adj + ";");
      std::vector<const Expr*> extra;
      if (n->op == BO_MulAssign || n->op == BO_DivAssign) extra.push_back(n->rhs);
      bind_values(n->rhs, code, extra);
      std::string R = value(n->rhs);
      auto set = [&](const std::string& value) {
        if (!target_private) code.line("#pragma omp atomic write");
        code.line(adj + " = " + value + ";");
      };
      switch (n->op) {
        case BO_Assign: {
          set(zero(t, types_));
          // `y = f(...)` of a value class: the result's adjoint is still empty (the call appears
          // once, here) and `d_y` was just reset, so its storage is handed over rather than
          // copied by accumulate_adjoint.
          auto* call = dyn_cast<CallExpr>(strip(n->rhs));
          if (is_value_class(t) && call && ir_.call_result.count(call) && act_.of(ir_.call_result.at(call)))
            code.line("_d_" + ir_.call_result.at(call)->name + " = " + r + ";");
          else
            propagate(n->rhs, r, code);
          break;
        }
        case BO_AddAssign: propagate(n->rhs, r, code); break;
        case BO_SubAssign: propagate(n->rhs, "-" + r, code); break;
        case BO_MulAssign:
          set(r + " * " + R);
          propagate(n->rhs, r + " * " + lhs, code);
          break;
        case BO_DivAssign:
          set(r + " / " + R);
          propagate(n->rhs, "-" + r + " * " + lhs + " / (" + R + " * " + R + ")", code);
          break;
        default: break;
      }
    }
    print_.temps.clear();
    code.close();
  }

  void reverse_call(Node* n, Code& code) {
    line_directive(code, n->loc);
    code.open("{");
    if (n->save) code.line(pop(n->result->name, n->result->type));
    const FunctionDecl* f = n->call->getDirectCallee();
    bool custom = callee_kind(f, custom_) == CalleeKind::Custom;
    bool active = n->active && call_active(ir_, act_, n);
    if (n->active && (active || !custom)) {
      Mask mask;
      std::vector<std::string> args, adjoints;
      std::vector<std::pair<const Expr*, std::string>> scalar_adjoints;
      std::vector<AdParam> params = ad_params(f);
      std::vector<AdArg> call_args = ad_args(n->call);
      for (const AdArg& a : call_args) args.push_back(print_.argument(a));
      QualType rt = f->getReturnType();
      if (is_adjoint_value(rt)) {
        Var* res = n->result;
        adjoints.push_back(res && act_.of(res) ? "_d_" + res->name : zero(rt, types_));
      }
      for (size_t i = 0; i < params.size() && i < call_args.size(); ++i) {
        QualType pt = params[i].type.getCanonicalType();
        const Expr* arg = call_args[i].expr;
        bool varied = false;
        if (is_differentiable(pt)) {
          // A value class (or the object of its member function) has a handle as its adjoint.
          bool value = is_value_class(pt) || (pt->isPointerType() && is_value_class(pt->getPointeeType()));
          bool indirect = !value && (pt->isReferenceType() || pt->isPointerType() || pt->isRecordType());
          varied = arg_varied(ir_, act_, pt, arg);
          if (!varied) {
            adjoints.push_back(custom ? (indirect || value ? "nullptr" : "&" + declare_scalar_adjoint(pt, code)) : "::adjoint::inactive{}");
          } else if (value || (indirect && (call_args[i].address || !pt->isPointerType()))) {
            adjoints.push_back("&" + print_.adjoint(arg));
          } else if (indirect) {
            adjoints.push_back(print_.adjoint(arg));
          } else {
            std::string d = declare_scalar_adjoint(pt, code);
            scalar_adjoints.push_back({arg, d});
            adjoints.push_back("&" + d);
          }
        }
        mask.push_back(varied);
      }
      std::string space = params.size() > f->getNumParams() ? "class_functions::" : "";
      std::string call = custom ? "::adjoint::custom_derivatives::" + space + base_name(f) + "_pullback("
                                : callee_name(f, "_reverse") + "(";
      bool first = true;
      for (auto& a : args) call += (first ? "" : ", ") + a, first = false;
      for (auto& a : adjoints) call += (first ? "" : ", ") + a, first = false;
      code.line(call + ");");
      if (!custom) callees.push_back({f, mask});
      if (n->result && (n->result->floating || n->result->value) && act_.of(n->result))
        code.line("_d_" + n->result->name + " = " + zero(n->result->type, types_) + ";");
      for (auto& [arg, d] : scalar_adjoints) {
        bind_values(arg, code);
        propagate(arg, d, code);
      }
      print_.temps.clear();
    }
    code.close();
  }

  std::string declare_scalar_adjoint(QualType t, Code& code) {
    std::string name = temp("_d_arg");
    code.line(types_.str(t.getUnqualifiedType()) + " " + name + " = 0;");
    return name;
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Generator

struct Generator::Impl {
  ASTContext& context;
  Diagnostics& diags;
  TypePrinter types;
  CustomPullbacks custom;
  std::map<const FunctionDecl*, std::unique_ptr<FunctionIR>> irs;
  std::map<const FunctionDecl*, std::string> forwards;
  std::map<std::string, const FunctionDecl*> overloads;  // name(parameter types) -> function
  std::map<std::pair<const FunctionDecl*, std::string>, std::string> reverses;  // (fn, mask)
  std::map<std::pair<const FunctionDecl*, std::string>, std::vector<std::pair<const FunctionDecl*, std::string>>> deps;
  std::vector<std::string> declarations;
  std::vector<std::string> definitions;
  std::vector<std::string> sources;  // per request
  std::set<std::string> grads;

  Impl(ASTContext& c, Diagnostics& d) : context(c), diags(d), types(c) {
    find_value_classes(c);
    collect_custom();
  }

  void collect_custom() {
    std::function<void(const DeclContext*, bool)> walk = [&](const DeclContext* dc, bool inside) {
      for (const Decl* d : dc->decls()) {
        if (auto* ns = dyn_cast<NamespaceDecl>(d)) {
          bool in_adjoint = !inside && ns->getName() == "adjoint" && ns->getParent()->getRedeclContext()->isTranslationUnit();
          bool in_custom = inside && ns->getName() == "custom_derivatives";
          if (in_custom) {
            for (const Decl* f : ns->decls()) {
              if (auto* fd = dyn_cast<FunctionDecl>(f); fd && fd->getIdentifier()) custom.free.insert({fd->getName().str(), fd});
              if (auto* members = dyn_cast<NamespaceDecl>(f); members && members->getName() == "class_functions")
                for (const Decl* m : members->decls())
                  if (auto* fd = dyn_cast<FunctionDecl>(m); fd && fd->getIdentifier()) custom.members.insert({fd->getName().str(), fd});
            }
          } else if (in_adjoint) {
            walk(ns, true);
          }
        }
      }
    };
    walk(context.getTranslationUnitDecl(), false);
  }

  FunctionIR* ir_of(const FunctionDecl* fn) {
    fn = fn->getDefinition();
    auto& slot = irs[fn];
    if (!slot) {
      slot = lower(fn, context, diags, custom);
      if (slot->valid) {
        Activity full = analyze_activity(*slot, all_differentiable(fn), nullptr, SourceLocation());
        plan_tape(*slot, full, custom, diags);
      }
    }
    return slot->valid ? slot.get() : nullptr;
  }

  // Derivatives of template specializations are overloads named after the template, told apart
  // by their parameter types: two specializations with the same parameter types cannot both have one.
  bool distinct_overload(const FunctionDecl* f) {
    std::string key = qualifier(f) + base_name(f) + "(";
    for (const AdParam& p : ad_params(f)) key += types.str(p.type) + ",";
    auto [it, inserted] = overloads.emplace(key, f);
    if (inserted || it->second == f) return true;
    diags.error(f->getPointOfInstantiation().isValid() ? f->getPointOfInstantiation() : f->getLocation(),
                "'" + f->getNameAsString() + types.template_arguments(f) +
                    "' has the same parameter types as another differentiated specialization; adjc names "
                    "derivatives of specializations by overloading, so their parameter types must differ");
    return false;
  }

  std::string wrap(const FunctionDecl* fn, const std::string& text) {
    auto [open, close] = namespaces(fn);
    return open + text + close;
  }

  // Generates f_forward and f_reverse/f_pullback for `mask`, and everything they call.
  bool generate(const FunctionDecl* fn, const Mask& mask) {
    fn = fn->getDefinition();
    std::vector<std::pair<const FunctionDecl*, Mask>> work = {{fn, mask}};
    while (!work.empty()) {
      auto [f, m] = work.back();
      work.pop_back();
      f = f->getDefinition();
      auto key = std::make_pair(f, mask_key(m));
      if (reverses.count(key)) continue;
      FunctionIR* ir = ir_of(f);
      if (!ir || diags.failed()) return false;
      Emitter emitter(*ir, types, custom, context.getSourceManager());
      if (!forwards.count(f)) {
        if (!distinct_overload(f)) return false;
        forwards[f] = emitter.forward();
        declarations.push_back(wrap(f, "inline " + emitter.forward_signature() + ";\n"));
        definitions.push_back(wrap(f, forwards[f]));
      }
      std::string rev = emitter.reverse(m, diags);
      reverses[key] = rev;
      declarations.push_back(wrap(f, "inline " + emitter.reverse_signature(m, "_reverse") + ";\n"));
      declarations.push_back(wrap(f, "inline " + emitter.reverse_signature(m, "_pullback") + ";\n"));
      definitions.push_back(wrap(f, rev));
      definitions.push_back(wrap(f, pullback(*ir, emitter, m)));
      for (auto& c : emitter.callees) {
        deps[key].push_back({c.fn->getDefinition(), mask_key(c.mask)});
        work.push_back({c.fn, c.mask});
      }
    }
    return !diags.failed();
  }

  std::string pullback(const FunctionIR& ir, const Emitter& e, const Mask& m) {
    std::string args;
    for (Var* v : ir.params) args += (args.empty() ? "" : ", ") + v->name;
    std::string adjoints = args;
    if (ir.returns_value) adjoints += std::string(args.empty() ? "" : ", ") + "_d_result";
    for (Var* v : ir.params)
      if (v->differentiable) adjoints += std::string(adjoints.empty() ? "" : ", ") + "_d_" + v->name;
    std::string name = base_name(ir.fn);
    return "inline " + e.reverse_signature(m, "_pullback") + " {\n  " + name + "_forward(" + args + ");\n  " + name +
           "_reverse(" + adjoints + ");\n}\n";
  }

  std::string source_of(const std::pair<const FunctionDecl*, std::string>& key, std::set<std::pair<const FunctionDecl*, std::string>>& seen) {
    if (!seen.insert(key).second) return "";
    std::string s;
    if (!seen.count({key.first, "forward"})) {
      seen.insert({key.first, "forward"});
      s += forwards[key.first] + "\n";
    }
    s += reverses[key] + "\n";
    for (auto& d : deps[key]) s += source_of(d, seen);
    return s;
  }

  static std::string strip_line_directives(const std::string& s) {
    std::string out;
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("#line", 0) != 0) out += line + "\n";
    return out;
  }
};

Generator::Generator(ASTContext& context, Diagnostics& diagnostics)
    : impl_(std::make_unique<Impl>(context, diagnostics)) {}
Generator::~Generator() = default;

GeneratedGradient Generator::request(const FunctionDecl* fn, const std::vector<bool>& selected, SourceLocation where) {
  Impl& I = *impl_;
  GeneratedGradient out;
  fn = fn->getDefinition();
  if (isa<CXXMethodDecl>(fn) || !fn->getIdentifier()) {
    I.diags.error(where, "a gradient can be requested for free functions only; request one that calls the member function");
    return out;
  }
  if (is_value_class(fn->getReturnType())) {
    I.diags.error(where, "a gradient can be requested for functions returning a floating value or void only "
                         "(a value-class result has no seed); request a loss that calls it");
    return out;
  }
  FunctionIR* ir = I.ir_of(fn);
  if (!ir || I.diags.failed()) return out;
  Mask mask(selected.begin(), selected.end());
  analyze_activity(*ir, mask, &I.diags, where);
  if (I.diags.failed() || !I.generate(fn, mask)) return out;

  Emitter e(*ir, I.types, I.custom, I.context.getSourceManager());
  std::string name = fn->getName().str();
  std::string params = e.params(), call_args, adjoint_params, pass;
  for (const ParmVarDecl* p : fn->parameters()) call_args += (call_args.empty() ? "" : ", ") + ir->var_of.at(p)->name;
  pass = call_args;
  if (ir->returns_value) pass += std::string(pass.empty() ? "" : ", ") + literal(1, fn->getReturnType());
  std::string param_types;
  for (const ParmVarDecl* p : fn->parameters()) param_types += (param_types.empty() ? "" : ", ") + I.types.str(p->getType());
  for (const ParmVarDecl* p : fn->parameters()) {
    if (!is_differentiable(p)) continue;
    std::string d = "_d_" + ir->var_of.at(p)->name;
    if (mask[ir->var_of.at(p)->param_index]) {
      std::string t = I.types.str(Emitter::adjoint_pointee(p->getType())) + "*";
      adjoint_params += ", " + t + " " + d;
      param_types += (param_types.empty() ? "" : ", ") + t;
      pass += (pass.empty() ? "" : ", ") + d;
    } else {
      pass += std::string(pass.empty() ? "" : ", ") + "::adjoint::inactive{}";
    }
  }
  std::string all_params = params + adjoint_params;
  if (params.empty() && !adjoint_params.empty()) all_params = adjoint_params.substr(2);
  std::string signature = "void " + name + "_grad(" + all_params + ")";
  std::string key = qualifier(fn) + signature;
  size_t index = I.sources.size();
  std::string source_fn = "_adjc_source_" + name + "_" + std::to_string(index);
  std::set<std::pair<const FunctionDecl*, std::string>> seen;
  std::string grad_def = signature + " {\n  " + name + "_pullback(" + pass + ");\n}\n";
  std::string text = grad_def + "\n" + I.source_of({fn, mask_key(mask)}, seen);
  I.sources.push_back(I.wrap(fn, "inline const char* " + source_fn + "() {\n  return R\"adjc_source(" +
                                      Impl::strip_line_directives(text) + ")adjc_source\";\n}\n"));
  if (I.grads.insert(key).second) I.definitions.push_back(I.wrap(fn, grad_def));
  out.declaration = I.wrap(fn, signature + "; inline const char* " + source_fn + "();\n");
  // One line: inserting it must not shift the user's line numbers.
  for (char& c : out.declaration)
    if (c == '\n') c = ' ';
  out.function_value = "static_cast<void (*)(" + param_types + ")>(&" + qualifier(fn) + name + "_grad)";
  out.source_function = qualifier(fn) + source_fn;
  return out;
}

std::string Generator::generated_code() {
  Impl& I = *impl_;
  std::string s = "\n// ---- generated by adjc: derivative code ----\n#include <cmath>\n#include <adjoint/ad.hpp>\n";
  for (auto& d : I.declarations) s += d;
  for (auto& d : I.definitions) s += "\n" + d;
  for (auto& d : I.sources) s += "\n" + d;
  return s;
}

}  // namespace adjc
