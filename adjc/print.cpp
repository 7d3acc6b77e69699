// Printing (print.hpp).
#include <clang/AST/ExprCXX.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cstdio>

#include "containers.hpp"
#include "function_pointers.hpp"
#include "print.hpp"

namespace adjc {

using namespace clang;

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
      std::string head = ns->isAnonymousNamespace()
                             ? "namespace {"
                             : (ns->isInline() ? "inline " : std::string()) + "namespace " + ns->getName().str() + " {";
      open = head + "\n" + open;
      close += "}\n";
    }
  return {open, close};
}

TypePrinter::TypePrinter(ASTContext& c) : context(c), policy(c.getLangOpts()) {
  policy.SuppressTagKeyword = true;
  policy.SuppressUnwrittenScope = true;  // `::V3`, not `::(anonymous namespace)::V3`
  policy.Bool = true;
}
// `auto` as the type it deduced: getFullyQualifiedType would qualify the deduced type's spelling
// a second time (`::ns::ns::T` for an `auto` holding an `ns::T`).
static QualType without_auto(QualType t, const ASTContext& context) {
  auto* deduced = dyn_cast<DeducedType>(t.getTypePtr());
  if (!deduced || !deduced->isDeduced()) return t;
  return context.getQualifiedType(deduced->getDeducedType(), t.getLocalQualifiers());
}

std::string TypePrinter::str(QualType t) const {
  return TypeName::getFullyQualifiedName(without_auto(t, context), context, policy, true);
}

std::string TypePrinter::member(const std::string& base, const ValueDecl* d, bool arrow) const {
  if (d->getAccess() == AS_public || d->getAccess() == AS_none) return base + (arrow ? "->" : ".") + d->getName().str();
  // The tag names the member by its class and its place among the class's declarations.
  auto [it, fresh] = private_members_.emplace(d, "");
  if (fresh) {
    auto* record = cast<CXXRecordDecl>(d->getDeclContext());
    unsigned index = 0;
    for (const Decl* m : record->decls()) {
      if (m == d) break;
      ++index;
    }
    it->second = "::adjoint::detail::member_tag<" + str(QualType(record->getTypeForDecl(), 0)) + ", " +
                 std::to_string(index) + ">";
  }
  if (auto* m = dyn_cast<CXXMethodDecl>(d); m && m->isStatic()) return "member_pointer(" + it->second + "{})";
  return "(" + base + (arrow ? "->*" : ".*") + "member_pointer(" + it->second + "{}))";
}

std::string TypePrinter::private_members() const {
  std::string out;
  for (const auto& [d, tag] : private_members_) {
    QualType record(cast<CXXRecordDecl>(d->getDeclContext())->getTypeForDecl(), 0);
    std::string pointer = "&" + str(record) + "::" + d->getName().str();
    // An overloaded member function is named with its type.
    if (auto* m = dyn_cast<CXXMethodDecl>(d))
      pointer = "static_cast<" +
                str(m->isStatic() ? context.getPointerType(d->getType())
                                  : context.getMemberPointerType(d->getType(), record.getTypePtr())) +
                ">(" + pointer + ")";
    out += "template struct ::adjoint::detail::private_member<" + tag + ", " + pointer + ">;\n";
  }
  return out;
}

std::string TypePrinter::declare(QualType t, const std::string& name) const {
  std::string out;
  llvm::raw_string_ostream os(out);
  TypeName::getFullyQualifiedType(without_auto(t, context), context, true).print(os, policy, name);
  return os.str();
}

std::string TypePrinter::template_arguments(const FunctionDecl* f) const {
  const TemplateArgumentList* args = f->getTemplateSpecializationArgs();
  if (!args) return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  printTemplateArgumentList(os, args->asArray(), policy);
  return os.str();
}

std::string custom_pullback_name(const FunctionDecl* pullback, const TypePrinter& types) {
  // Its namespace as declared: adjoint's or clad's custom_derivatives, their class_functions or std.
  return "::" + pullback->getQualifiedNameAsString() + types.template_arguments(pullback);
}

std::string literal(double v, QualType t) {
  if (is_integer_number(t)) return std::to_string(static_cast<long long>(v));  // an integer's tangent
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
std::string zero(QualType t, const TypePrinter& types, const UnitFacts& unit) {
  if (is_value_class(t, unit)) return types.str(t.getNonReferenceType().getUnqualifiedType()) + "{}";
  if (t->isRecordType()) return zero_struct(t, types);
  return literal(0, t);
}

// `T{}` would run a user's default constructor or apply default member initialisers (or not compile
// without a default constructor): a struct with either is zeroed byte-wise.
std::string zero_struct(QualType t, const TypePrinter& types) {
  std::string name = types.str(t.getNonReferenceType().getUnqualifiedType());
  auto* record = t->getAsCXXRecordDecl();
  if (!record || record->hasTrivialDefaultConstructor() || (!record->isTriviallyCopyable() && !copied_by_members(t)))
    return name + "{}";
  return "::adjoint::detail::zeroed<" + name + ">()";
}

std::string assignment(const std::string& to, const std::string& from, QualType t) {
  auto* record = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (record && record->hasDefinition() && assigned_by_copy(record))
    return "::adjoint::detail::assign(" + to + ", " + from + ");";
  return to + " = " + from + ";";
}

bool is_identifier(const std::string& s) {
  Code::Line l = Code::parse(s, 0);
  return l.uses.size() == 1 && (l.text == l.uses[0] || l.text == "(*" + l.uses[0] + ")");
}

// A mark: '\1', the name, then how it is printed.
namespace {
constexpr char kMark = '\1', kUse = '\2', kDefine = '\3', kMention = '\4';
}  // namespace
std::string use(const std::string& name) { return kMark + name + kUse; }
std::string define(const std::string& name) { return kMark + name + kDefine; }
std::string mention(const std::string& name) { return kMark + name + kMention; }

std::string Printer::primal(const Expr* e) const {
  if (!e) return "";
  if (auto it = temps.find(strip(e, ir_.unit)); it != temps.end()) return it->second;
  if (auto* ice = dyn_cast<ImplicitCastExpr>(e)) return primal(ice->getSubExpr());
  if (auto* c = dyn_cast<ExprWithCleanups>(e)) return primal(c->getSubExpr());
  if (auto* c = dyn_cast<ConstantExpr>(e)) return primal(c->getSubExpr());
  if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return primal(d->getExpr());
  if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return primal(m->getSubExpr());
  if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) return primal(b->getSubExpr());
  // A copy by members: its source, copied rather than moved (what a resetting move leaves is never
  // read again: check_function).
  if (auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1 && strip(c, ir_.unit) != c)
    return primal(moved_operand(c->getArg(0)));
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
  if (isa<CXXThisExpr>(e)) {
    Var* v = ir_.var(e);  // a member function's object, or a local object a constructor builds
    return v->memory ? "(&" + use(v->name) + ")" : use(v->name);
  }
  if (is_empty_value(e, ir_.unit)) return types_.str(strip(e, ir_.unit)->getType().getUnqualifiedType()) + "{}";
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    if (Var* v = ir_.var(ref)) return use(v->name);
    const ValueDecl* d = ref->getDecl();
    // An enumerator or a static data member is named through its enum or class.
    if (auto* tag = dyn_cast<TagDecl>(d->getDeclContext()))
      return types_.str(QualType(tag->getTypeForDecl(), 0)) + "::" + d->getName().str();
    return qualifier(d) + d->getName().str();
  }
  if (auto* call = dyn_cast<CallExpr>(e)) {
    if (auto it = ir_.call_result.find(call); it != ir_.call_result.end()) return use(it->second->name);
    return call_text(call);
  }
  if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) {
    if (ir_.unit.container_at.count(s)) return primal(s->getBase()) + ".at(" + primal(s->getIdx()) + ")";
    return primal(s->getBase()) + "[" + primal(s->getIdx()) + "]";
  }
  if (auto* m = dyn_cast<MemberExpr>(e)) {
    if (Var* v = ir_.var(m)) return use(v->name);
    return types_.member(primal(m->getBase()), m->getMemberDecl(), m->isArrow());
  }
  if (const Expr* container = container_data_object(e, ir_.unit)) return primal(container) + ".data()";
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Extension) return primal(u->getSubExpr());
  if (auto* u = dyn_cast<UnaryOperator>(e))
    return UnaryOperator::getOpcodeStr(u->getOpcode()).str() + primal(u->getSubExpr());
  if (auto* b = dyn_cast<BinaryOperator>(e))
    return primal(b->getLHS()) + " " + BinaryOperator::getOpcodeStr(b->getOpcode()).str() + " " + primal(b->getRHS());
  if (auto* c = dyn_cast<ConditionalOperator>(e))
    return primal(c->getCond()) + " ? " + primal(c->getTrueExpr()) + " : " + primal(c->getFalseExpr());
  // An address as an integer, or an integer address (`reinterpret_cast<const Sq*>(0x40)`).
  auto integer_address = [&](const ExplicitCastExpr* c) {
    const Expr* from = c->getSubExpr();
    return c->getType()->isPointerType() && from->getType()->isIntegerType() &&
           !from->isNullPointerConstant(types_.context, Expr::NPC_ValueDependentIsNotNull);
  };
  if (auto* c = dyn_cast<ExplicitCastExpr>(e);
      c && (c->getSubExpr()->getType()->isPointerType() || integer_address(c)))
    return "reinterpret_cast<" + types_.str(c->getType()) + ">(" + primal(c->getSubExpr()) + ")";
  if (auto* c = dyn_cast<ExplicitCastExpr>(e))
    return "static_cast<" + types_.str(c->getType()) + ">(" + primal(c->getSubExpr()) + ")";
  std::string out;
  llvm::raw_string_ostream os(out);
  e->printPretty(os, nullptr, types_.policy);
  return os.str() + mentions(e);
}

// Marks of the variables clang's printer names in `e` (DeclRefExprs of this function's variables).
std::string Printer::mentions(const Expr* e) const {
  std::string marks;
  if (auto* ref = dyn_cast<DeclRefExpr>(e); ref && ir_.var(ref)) marks += mention(ref->getDecl()->getName().str());
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<Expr>(c)) marks += mentions(ce);
  return marks;
}

std::string Printer::call_text(const CallExpr* call) const {
  const FunctionDecl* f = call->getDirectCallee();
  std::vector<AdArg> args = ad_args(call);
  // A function's name as generated code spells it (a static member through its class).
  auto name_of = [&](const FunctionDecl* g) {
    auto* m = dyn_cast<CXXMethodDecl>(g);
    if (m && m->getAccess() != AS_public && !m->getPrimaryTemplate()) return types_.member("", m, false);
    return (m ? types_.str(QualType(m->getParent()->getTypeForDecl(), 0)) + "::" : qualifier(g)) +
           g->getNameAsString() + types_.template_arguments(g);
  };
  auto list = [&](size_t from) {
    std::string s;
    for (size_t i = from; i < args.size(); ++i) s += (i > from ? ", " : "") + primal(args[i].expr);
    return s;
  };
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    auto* callee = cast<MemberExpr>(mc->getCallee()->IgnoreParens());
    if (args.size() > f->getNumParams())
      return types_.member("(" + primal(args[0].expr) + ")", f, !args[0].address) + "(" + list(1) + ")";
    return types_.str(QualType(cast<CXXMethodDecl>(f)->getParent()->getTypeForDecl(), 0)) +
           "::" + callee->getMemberDecl()->getNameAsString() + "(" + list(0) + ")";
  }
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(call)) {
    std::string spelling = getOperatorSpelling(op->getOperator());
    if (op->getOperator() == OO_Call && cast<CXXMethodDecl>(f)->getParent()->isLambda()) {
      // A call that runs as it is (in a condition) of a lambda without captures: its closure cannot
      // be named in generated code, so the call is made on the lambda expression itself.
      // (Parenthesised when an earlier stage printed it so: `([](...) {...})(args)`.)
      const Expr* object = op->getArg(0)->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
      if (auto* ref = dyn_cast<DeclRefExpr>(object); ref && isa<VarDecl>(ref->getDecl()))
        if (const Expr* init = cast<VarDecl>(ref->getDecl())->getInit()) object = init->IgnoreImplicit();
      if (auto* lambda = dyn_cast<LambdaExpr>(object)) {
        // As the user wrote it: lowering the lambda as a function of its own edited its body's AST
        // (`_branch` temporaries). Clang's printer is left for macros and template instances.
        const SourceManager& sm = types_.context.getSourceManager();
        std::string text;
        if (!lambda->getBeginLoc().isMacroID() && !lambda->getEndLoc().isMacroID() &&
            !ir_.fn->isTemplateInstantiation())
          text = Lexer::getSourceText(CharSourceRange::getTokenRange(lambda->getSourceRange()), sm,
                                      types_.context.getLangOpts())
                     .str();
        if (text.empty()) {
          llvm::raw_string_ostream os(text);
          lambda->printPretty(os, nullptr, types_.policy);
        }
        return "(" + text + ")(" + list(0) + ")";
      }
    }
    // ad_args leaves out a stateless lambda's object: the arguments then start at 0.
    if (op->getOperator() == OO_Call)
      return "(" + primal(op->getArg(0)) + ")(" + list(args.size() < op->getNumArgs() ? 0 : 1) + ")";
    if (op->getOperator() == OO_Subscript) return "(" + primal(op->getArg(0)) + ")[" + primal(op->getArg(1)) + "]";
    if (op->getNumArgs() == 1) return "(" + spelling + "(" + primal(op->getArg(0)) + "))";
    return "((" + primal(op->getArg(0)) + ") " + spelling + " (" + primal(op->getArg(1)) + "))";
  }
  // A copy with function parameters bound exists only as generated code: the original, given them.
  if (const BoundFunction* b = as_bound_function(f, ir_.unit)) {
    std::string s;
    size_t next = 0;
    for (const ParmVarDecl* p : b->original->parameters()) {
      auto bound = std::find_if(b->bound.begin(), b->bound.end(), [&](const auto& pb) { return pb.first == p; });
      const FunctionDecl* g = bound == b->bound.end() ? nullptr : bound->second;
      s += std::string(s.empty() ? "" : ", ") + (g ? name_of(g) : primal(args[next++].expr));
    }
    return name_of(b->original) + "(" + s + ")";
  }
  if (isa<CXXMethodDecl>(f)) return name_of(f) + "(" + list(0) + ")";  // static member function
  // A library math function as the user spelled it: `std::max<double>(a, 1)` keeps its arguments.
  auto* ref = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
  std::string name = math_function(call) != MathFn::None
                         ? f->getQualifiedNameAsString() +
                               (ref && ref->hasExplicitTemplateArgs() ? types_.template_arguments(f) : "")
                         : name_of(f);
  return name + "(" + list(0) + ")";
}

std::string Printer::scalar_adjoint(const Var* v) const {
  if (v->kind == VarKind::Param)
    return v->assignments > 0 ? use(accumulator_name(v)) : "(*" + use("_d_" + v->name) + ")";
  return use("_d_" + v->name);
}

std::string Printer::adjoint(const Expr* e) const {
  e = strip(e, ir_.unit);
  if (auto* call = dyn_cast<CallExpr>(e)) return use("_d_" + ir_.call_result.at(call)->name);
  if (isa<DeclRefExpr>(e) || isa<CXXThisExpr>(e) || ir_.var(e)) {
    Var* v = ir_.var(e);
    if (isa<CXXThisExpr>(e) && v->memory) return "(&" + use("_d_" + v->name) + ")";
    if (v->pointer && v->kind != VarKind::Param)
      return "(" + adjoint(v->base) + " + (" + use(v->name) + " - " + primal(v->base) + "))";
    if (v->pointer) return use("_d_" + v->name);
    if (v->memory) return v->kind == VarKind::Param ? "(*" + use("_d_" + v->name) + ")" : use("_d_" + v->name);
    return scalar_adjoint(v);
  }
  if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) return adjoint(s->getBase()) + "[" + primal(s->getIdx()) + "]";
  if (auto* m = dyn_cast<MemberExpr>(e)) {
    std::string member = types_.member(adjoint(m->getBase()), m->getMemberDecl(), m->isArrow());
    // A `const T*` member of the adjoint struct points at the (writable) adjoint array.
    QualType t = m->getType();
    if (t->isPointerType() && t->getPointeeType().isConstQualified())
      return "const_cast<" + types_.str(t->getPointeeType().getUnqualifiedType()) + "*>(" + member + ")";
    return member;
  }
  if (const Expr* container = container_data_object(e, ir_.unit)) return adjoint(container) + ".data()";
  if (auto* u = dyn_cast<UnaryOperator>(e))
    return std::string("(") + (u->getOpcode() == UO_Deref ? "*" : "&") + adjoint(u->getSubExpr()) + ")";
  auto* b = cast<BinaryOperator>(e);
  std::string op = " " + BinaryOperator::getOpcodeStr(b->getOpcode()).str() + " ";
  if (b->getLHS()->getType()->isPointerType()) return "(" + adjoint(b->getLHS()) + op + primal(b->getRHS()) + ")";
  return "(" + primal(b->getLHS()) + op + adjoint(b->getRHS()) + ")";
}

Code::Line Code::parse(const std::string& s, int depth) {
  Line l;
  l.depth = depth;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != kMark) {
      l.text += s[i];
      continue;
    }
    size_t end = s.find_first_of(std::string{kUse, kDefine, kMention}, i + 1);
    std::string name = s.substr(i + 1, end - i - 1);
    if (s[end] == kDefine) l.defines = name;
    else l.uses.push_back(name);
    if (s[end] != kMention) l.text += name;
    i = end;
  }
  return l;
}

void Code::add(Line l) {
  used_.insert(l.uses.begin(), l.uses.end());
  lines.push_back(std::move(l));
}

void Code::line(const std::string& s) { add(parse(s, depth)); }

void Code::open(const std::string& s) {
  line(s);
  lines.back().block = true;
  ++depth;
}

void Code::close(const std::string& s) {
  --depth;
  line(s);
  lines.back().block = true;
}

void Code::add_to(const std::string& target, const std::string& value, bool atomic) {
  if (atomic) line("#pragma omp atomic");
  Line l = parse(target + " += " + value + ";", depth);
  l.accumulation = true;
  l.atomic = atomic;
  l.target = parse(target, 0).text;
  l.value = parse(value, 0).text;
  add(std::move(l));
}

void Code::append(const Code& other) {
  for (const Line& l : other.lines) add(l);
}

std::string Code::str() const {
  std::string out;
  for (const Line& l : lines)
    out += (l.text.empty() || l.text[0] == '#' ? "" : std::string(2 * l.depth, ' ')) + l.text + "\n";
  return out;
}

}  // namespace adjc
