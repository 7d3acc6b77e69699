// Emission shared by both sweeps: signatures, declarations, tape pushes and pops (emit.hpp).
#include <clang/Basic/SourceManager.h>

#include "containers.hpp"
#include "emit.hpp"

namespace adjc {

using namespace clang;

// Signatures; given the body, parameters it never uses are marked [[maybe_unused]].
std::string Emitter::forward_signature(const Code* body) const {
  std::string result = types_.str(result_type(ir_.fn));
  return result + " " + base_name(ir_.fn, ir_.unit) + "_forward" + family + "(" + params(body) + ")";
}

std::string Emitter::reverse_signature(const Mask& mask, const std::string& suffix, const Code* body) const {
  std::string s = "void " + base_name(ir_.fn, ir_.unit) + suffix + "(" + params(body);
  std::string extra = adjoint_params(mask, body);
  if (!extra.empty()) s += (ir_.params.empty() ? "" : ", ") + extra;
  return s + ")";
}

std::string Emitter::params(const Code* body) const {
  std::string s;
  for (Var* v : ir_.params) {
    if (!s.empty()) s += ", ";
    // A parameter the function assigns is restored in the reverse, which may not read it again.
    if (body && (!body->uses(v->name) || v->assignments > 0)) s += "[[maybe_unused]] ";
    s += types_.declare(v->param_type, v->name);
  }
  return s;
}

// The adjoint result argument and one adjoint per differentiable parameter.
std::string Emitter::adjoint_params(const Mask& mask, const Code* body) const {
  std::vector<std::string> parts;
  auto unused = [&](const std::string& name) { return !body || body->uses(name) ? "" : "[[maybe_unused]] "; };
  if (ir_.returns_value)
    parts.push_back(unused("_d_result") + types_.str(result_type(ir_.fn).getUnqualifiedType()) + " _d_result");
  for (Var* v : ir_.params) {
    if (!v->differentiable) continue;
    std::string name = "_d_" + v->name;
    if (!mask[v->param_index]) {
      parts.push_back(std::string(unused(name)) + "::adjoint::inactive " + name);
      continue;
    }
    parts.push_back(std::string(unused(name)) + adjoint_param(v->param_type, name, types_, ir_.fn->getASTContext()));
  }
  std::string s;
  for (auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

QualType Emitter::adjoint_pointee(QualType t, ASTContext& context) {
  if (t->isPointerType() || t->isReferenceType()) t = t->getPointeeType();
  Qualifiers dropped;
  return t->isArrayType() ? context.getUnqualifiedArrayType(t, dropped) : t.getUnqualifiedType();
}

std::string Emitter::adjoint_param(QualType t, const std::string& name, const TypePrinter& types, ASTContext& context) {
  QualType pointee = adjoint_pointee(t, context);
  if (pointee->isArrayType()) return types.declare(context.getPointerType(pointee), name);  // `double (*_d_a)[3]`
  return types.str(pointee) + "*" + (name.empty() ? "" : " " + name);
}

bool Emitter::exit_codes() const {
  size_t exits = ir_.returns.size();
  bool falls_through = ir_.body->children.empty() || ir_.body->children.back()->kind != NodeKind::Jump;
  if (falls_through) ++exits;
  return exits >= 2 && plan_[ir_.body].reverse;
}

void Emitter::line_directive(Code& code, SourceLocation loc) const {
  if (loc.isInvalid()) return;
  PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
  if (p.isInvalid()) return;
  std::string file = p.getFilename();
  std::string escaped;
  for (char c : file) escaped += (c == '\\' || c == '"') ? std::string("\\") + c : std::string(1, c);
  code.line("#line " + std::to_string(p.getLine()) + " \"" + escaped + "\"");
}

bool Emitter::in_scope(const Var* v, const Node* parallel) const { return v->parallel == parallel; }

// `name` declared with v's type, value-initialised (zero).
std::string Emitter::zero_declaration(const Var* v, const std::string& name) const {
  std::string declared = "[[maybe_unused]] " + types_.declare(v->type.getUnqualifiedType(), name);
  if (v->type->isRecordType() && !v->value && !is_container(v->type))
    if (std::string z = zero_struct(v->type, types_); z.back() != '}') return declared + " = " + z + ";";
  // An array of such structs: each element zeroed so.
  if (QualType element = v->type->isArrayType() ? ir_.fn->getASTContext().getBaseElementType(v->type) : QualType();
      !element.isNull() && element->isRecordType())
    if (std::string z = zero_struct(element, types_); z.back() != '}')
      return declared + "{}; ::adjoint::detail::fill_array(" + name + ", " + z + ");";
  return declared + "{};";
}

std::string Emitter::zero_like(const Var* v) const { return "::clad::zero_like(" + use(v->name) + ")"; }

// Declares the variables of a scope (function or parallel region) that `body` uses.
void Emitter::declare_vars(Code& code, const Node* parallel, const Code& body, bool reverse) const {
  for (auto& v : ir_.vars) {
    if (!in_scope(v.get(), parallel) || v->kind == VarKind::Param) continue;
    if (body.uses(v->name)) code.line(zero_declaration(v.get(), v->name));
    if (reverse && (v->floating || v->value || v->memory) && body.uses("_d_" + v->name))
      code.line(zero_declaration(v.get(), "_d_" + v->name));
  }
  if (reverse && !parallel)
    for (auto& v : ir_.vars)
      if (v->kind == VarKind::Param && (v->floating || v->value) && v->assignments > 0 &&
          body.uses(accumulator_name(v.get())))
        code.line(types_.str(v->type.getUnqualifiedType()) + " " + accumulator_name(v.get()) + "{};");
}

// Local vectors and heap arrays last, so the reverse sweep pops them first: pointers into them are
// rebuilt from their storage there.
std::vector<Var*> Emitter::kept(const Node* parallel) const {
  std::vector<Var*> out, vectors;
  for (auto& v : ir_.vars)
    if (plan_[v.get()].kept && in_scope(v.get(), parallel))
      (is_vector(v->type) || v->heap ? vectors : out).push_back(v.get());
  out.insert(out.end(), vectors.begin(), vectors.end());
  return out;
}

void Emitter::push_kept(Code& code, const Node* parallel) const {
  for (Var* v : kept(parallel)) code.line(push(use(v->name), v));
}

void Emitter::pop_kept(Code& code, const Node* parallel) const {
  auto vs = kept(parallel);
  for (auto it = vs.rbegin(); it != vs.rend(); ++it) code.line(pop(use((*it)->name), (*it)->type, *it));
}

// A heap array's `heap_size` elements, value-initialised (zero); an adjoint of structs zero
// byte-wise (`T{}` would apply default member initialisers).
std::string Emitter::heap_allocation(const Var* heap, bool adjoint) const {
  const std::string element = types_.str(heap->type->getPointeeType().getUnqualifiedType());
  if (adjoint && heap->type->getPointeeType()->isRecordType())
    return "::adjoint::detail::zeroed_array<" + element + ">(" + use(heap->heap_size->name) + ")";
  return "new " + element + "[" + use(heap->heap_size->name) + "]()";
}

// A pointer into a local array or vector, or into a parameter's memory, is taped as its offset from
// the array: the reverse sweep has local arrays of its own (and a vector's storage moves when it
// is popped), and so has a caller whose local array the parameter points to.
static bool into_array(const Var* v) {
  return v && v->pointer && v->root && (v->root->kind == VarKind::Local || v->root->kind == VarKind::Param);
}

// A struct the compiler does not see as trivially copyable (special members of the user's own):
// taped as its bytes, in place, so that no constructor of its runs.
static bool taped_as_bytes(QualType t) {
  auto* record = t->getAsCXXRecordDecl();
  return record && record->hasDefinition() && !record->isTriviallyCopyable() && !is_number_pair(t);
}

std::string Emitter::push(const std::string& value, const Var* v) const {
  if (v && v->type->isArrayType()) return "::adjoint::detail::push_array(" + value + ");";
  if (into_array(v))
    return "::adjoint::detail::push(static_cast<long>(" + value + " - (" + print_.primal(v->base) + ")));";
  if (v && is_vector(v->type)) return "::adjoint::detail::push_vector(" + value + ");";
  if (v && taped_as_bytes(v->type)) return "::adjoint::detail::push_object(" + value + ");";
  return "::adjoint::detail::push(" + value + ");";
}

std::string Emitter::pop(const std::string& lvalue, QualType type, const Var* v) const {
  if (v && v->type->isArrayType()) return "::adjoint::detail::pop_array(" + lvalue + ");";
  if (into_array(v)) return lvalue + " = (" + print_.primal(v->base) + ") + ::adjoint::detail::pop<long>();";
  if (v && is_vector(v->type)) return "::adjoint::detail::pop_vector(" + lvalue + ");";
  if (taped_as_bytes(type)) return "::adjoint::detail::pop_object(" + lvalue + ");";
  return assignment(lvalue, "::adjoint::detail::pop<" + types_.str(type.getUnqualifiedType()) + ">()", type);
}

std::vector<Var*> Emitter::iteration_kept(const Node* loop) const {
  std::vector<Var*> out;
  for (auto& v : ir_.vars)
    if (iteration_.of(v.get()) == loop && plan_[v.get()].read_in_reverse && !plan_[v.get()].recompute)
      out.push_back(v.get());
  return out;
}

void Emitter::push_iteration(Code& code, const Node* loop) const {
  if (!plan_[loop].reverse) return;
  for (Var* v : iteration_kept(loop)) code.line(push(use(v->name), v));
}

bool Emitter::pop_iteration_needed(const Node* loop) const { return !iteration_kept(loop).empty(); }

void Emitter::pop_iteration(Code& code, const Node* loop) const {
  auto vs = iteration_kept(loop);
  for (auto it = vs.rbegin(); it != vs.rend(); ++it) code.line(pop(use((*it)->name), (*it)->type, *it));
}

// A generated derivative of `f` (for a template specialization or a member, an overload).
std::string Emitter::callee_name(const FunctionDecl* f, const std::string& suffix) const {
  return qualifier(f) + base_name(f, ir_.unit) + suffix;
}

// `target += value` for a floating adjoint; for a value class its accumulate_adjoint (found by
// argument-dependent lookup), which materialises an empty target.
std::string Emitter::accumulation(const std::string& target, const std::string& value, QualType t) const {
  if (is_value_class(t, ir_.unit)) return "accumulate_adjoint(" + target + ", " + value + ");";
  return target + " += " + value + ";";
}

// Branch bits: an `if` directly in the body of a jump-free canonical loop (not in a parallel
// loop) records its direction as bit `iteration % 64` of a word (`_b<order>`) that is pushed
// every 64 iterations, instead of a bool per iteration; the reverse loop tests its iteration's
// bit. Returns that loop, or nullptr when the branch pushes bools.
const Node* Emitter::branch_bits_loop(const Node* n) const {
  if (n->kind != NodeKind::If || !plan_[n].reverse || plan_[n].cond_in_reverse || !n->parent) return nullptr;
  const Node* loop = n->parent->parent;
  if (!loop || loop->kind != NodeKind::Loop || loop->body != n->parent || !loop->counter || !loop->jumps.empty() ||
      loop->parallel)
    return nullptr;
  for (const Node* l : n->loops)
    if (l->parallel) return nullptr;
  return loop;
}

std::vector<const Node*> Emitter::branch_bits(const Node* loop) const {
  std::vector<const Node*> out;
  for (const Node* c : loop->body->children)
    if (branch_bits_loop(c) == loop) out.push_back(c);
  return out;
}

std::string Emitter::branch_word(const Node* branch) { return "_b" + std::to_string(branch->order); }

bool Emitter::has_continue(const Node* loop) const {
  for (Node* j : loop->jumps)
    if (j->jump == JumpKind::Continue) return true;
  return false;
}

// The first element a bulk-saved loop overwrites: P + (X + _s).
std::string Emitter::bulk_first(const Node* loop) const {
  std::string s = "_s" + std::to_string(loop->id);
  const BulkSave& bulk = *loops_.bulk_of(loop);
  return print_.primal(bulk.pointer) + " + " + (bulk.offset ? "(" + print_.primal(bulk.offset) + " + " + s + ")" : s);
}

}  // namespace adjc
