#pragma once
// Types and callees: which types carry adjoints (floating scalars, value classes, memory of
// them), what each call is for differentiation (math function, user function, custom pullback,
// derivative-free), and the unit-wide facts (custom pullbacks, value classes) that decide it.

#include <clang/AST/DeclCXX.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir.hpp"

namespace clang {
class Sema;
}

namespace adjc {

struct UnitFacts;

// The library functions adjc differentiates by rule (their table: derivatives.cpp).
enum class MathFn {
  None, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sqrt, Cbrt, Pow, Hypot, Sin, Cos, Tan, Asin, Acos, Atan, Atan2,
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Erf, Erfc, Fma, Copysign, Fmod, Remainder, Fdim, Ldexp, Floor, Ceil, Round,
  Trunc, Fabs, Fmax, Fmin, Max, Min, Clamp, CompEllint1, CompEllint2
};

// exp/expf/std::exp, std::max, ... with a floating result; MathFn::None for anything else
// (defined beside the rule table, derivatives.cpp).
MathFn math_function(const clang::CallExpr* call);

// A library function: declared in a system header (a header found through the compiler's own or
// -isystem folders, or marked `#pragma GCC system_header`) or in namespace std. adjc never
// differentiates a library function's body: it has a rule (math_function), a custom pullback, or
// no derivative (docs/adjc.md, "Library functions").
bool is_library(const clang::FunctionDecl* f);
// `malloc`, `calloc`, `realloc`, `free` or `memset` of the C library (also as `std::malloc`), or "".
std::string c_memory_function(const clang::CallExpr* call);
// The C allocation `e` is, `(T*)malloc(...)`, `calloc` or `realloc` cast to its pointer type (also
// by static_cast): the call; or nullptr.
const clang::CallExpr* c_allocation(const clang::Expr* e);
// The allocation `e` is: a `new`, or a C allocation (c_allocation); or nullptr.
const clang::Expr* allocation(const clang::Expr* e);
// A class from a library (std::vector, std::complex, ...; the same rule as is_library) that is
// not a value class or a number pair, behind any references, pointers and arrays: adjc does not
// model its contents, so variables of it are rejected.
bool is_library_class(clang::QualType t, const UnitFacts& unit);
// A library class (is_library_class, behind references only) without virtual functions whose data
// members, through its bases, members and unions, are all integers, enums or bools (std::optional<int>,
// std::allocator<double>, std::nullopt_t): its values carry no derivative, as an integer's do.
bool is_inert_library_class(clang::QualType t, const UnitFacts& unit);
// For a std::function (behind references), why adjc rejects it and what to write instead
// (", a std::function, ..."); "" for other types.
std::string std_function_hint(clang::QualType t);

// Custom derivatives found in namespace adjoint::custom_derivatives or clad::custom_derivatives
// (free functions, also in their `std`) and their class_functions (member functions), by name
// (`f_pullback`): functions and function templates (custom_pullbacks.cpp).
struct CustomPullbacks {
  std::multimap<std::string, const clang::NamedDecl*> free, members;
  // Deduces a pullback template's arguments (the parse's Sema, alive while adjc generates).
  clang::Sema* sema = nullptr;
  // Per callee: the pullback its calls use (a template's specialization), or why the ones of its
  // name do not fit; found on the first question.
  struct Match {
    const clang::FunctionDecl* pullback = nullptr;
    bool integer_adjoints = false;  // Clad's signature (custom_pullback_takes_integer_adjoints)
    // Clad's stateful form: the `_reverse_forw` that runs in the callee's place in the forward
    // sweep, and the clad::pullback_state<S> it fills for the pullback (custom_reverse_forw).
    const clang::FunctionDecl* reverse_forw = nullptr;
    clang::QualType state;
    std::optional<Message> mismatch;
  };
  mutable std::map<const clang::FunctionDecl*, Match> matches;
  // `*_pullback` functions in a namespace custom_derivatives outside adjoint and clad, which
  // adjc does not read: reported, never passed over.
  std::vector<const clang::NamedDecl*> misplaced;
  // Clad's numerical fallback (include/clad/Differentiator/NumericalDiff.h, absent with
  // CLAD_NO_NUM_DIFF): the pullback of a call of a function without a body and without a pullback of
  // its own, specialised to that function when its parameters and result are floating scalars.
  const clang::FunctionTemplateDecl* numerical = nullptr;
};
// Records the pullbacks declared in namespace `custom_derivatives` (and its class_functions, std).
void add_custom_pullbacks(const clang::NamespaceDecl* custom_derivatives, CustomPullbacks& custom);

// What a differentiated function does with the memory its parameters point to, as its callers'
// tape plans need it (by ad_params position): `reads[i]`, whether its reverse sweep reads that
// memory as the reverse finds it (what the call left there, or what the caller wrote since), and
// `writes[i]`, whether it writes that memory. Parameters other than pointers and references
// (scalars, value classes, structs by value) are read.
struct CallSummary {
  std::vector<bool> reads, writes;
  // Per parameter: for a pointer p that the callee reads and writes only as `p[k]`, k an integer
  // parameter it never assigns, k's position (the caller decides which one element the call
  // touches); else -1.
  std::vector<int> element_index;
  // Per parameter: memory the callee's reverse puts back as it found it (every write to it taped).
  std::vector<bool> restores;
};

// How far into a pointer parameter's memory one iteration of a kernel's loop reaches
// (kernel_loop.cpp): not at all; element i only (`p[i]`); row i only (`p[i * W + c]`, or through a
// local `q = p + i * W` as `q[c]`, c running 0..W); the same elements in every iteration, read only
// (`weight[c]`); anything else.
enum class Reach { None, Element, Row, Shared, Other };

// A callee whose body is one loop with independent iterations (find-kernel-loop): what fusion
// (fusion.cpp) compares between consecutive calls.
struct KernelLoop {
  std::string refusal;               // why the body is not such a loop ("" when it is)
  int trip = -1;                     // the parameter holding the trip count (the loop runs 0..trip-1)
  int width = -1;                    // the parameter holding the row width W of Row reaches (-1: none)
  std::vector<Reach> reads, writes;  // per parameter
};

struct ClosureFunction;  // closures.hpp
struct BoundFunction;    // function_pointers.hpp

// What the whole translation unit declares that decides how its functions are differentiated,
// found in one scan before any pass runs (find_unit_facts) and handed to the passes.
// Uses of non-const globals of integers (bool, char and enums too) in code adjc differentiates
// (global_counter_uses): where each is written as a counter — the operand of `++`/`--` or the
// target of `=`, `+=`, ... in a statement, its value unused — where its value is read (any other
// use), and where a counter is given a value read from floating-point numbers. The user functions
// whose bodies a function's calls run (its `callees`) are adjc's to differentiate with it.
struct GlobalUses {
  std::map<const clang::VarDecl*, clang::SourceLocation> written, read, floating_value;
  std::vector<const clang::FunctionDecl*> callees;
};

struct UnitFacts {
  CustomPullbacks custom;
  // Value classes: record types V for which the unit declares `accumulate_adjoint(V&, const V&)`
  // (canonical and unqualified).
  std::set<const clang::Type*> value_classes;
  // Lambdas' numbers in generated names (`lambda1`), given in the order adjc meets them (base_name).
  mutable std::map<const clang::CXXRecordDecl*, int> lambda_numbers;
  // What rewrite_containers (containers.hpp) built as it lowers each function: the `&c[0]` that
  // stand for `c.data()`, the `c[i]` that stand for `c.at(i)` (printed as such, so the forward
  // keeps its bounds check), and the calls that size a std::vector.
  mutable std::set<const clang::Expr*> container_data;
  mutable std::set<const clang::Expr*> container_at;
  mutable std::set<const clang::CallExpr*> sizing_calls;
  // Each planned function's CallSummary, by definition: the pipeline's record-call-summary records
  // it, and plan-callees plans callees before their callers, so a caller's plan finds its callees'
  // (a call within a recursion finds none and is taken to read and write everything it receives).
  mutable std::map<const clang::FunctionDecl*, CallSummary> call_summaries;
  // Each planned function's KernelLoop, by definition (find-kernel-loop), read by its callers'
  // find-fusible-calls as call_summaries are.
  mutable std::map<const clang::FunctionDecl*, KernelLoop> kernel_loops;
  // Loops fuse-kernel-calls made of two OpenMP parallel loops without clauses: lowered as parallel
  // loops without clauses, as their directive would be.
  mutable std::set<const clang::ForStmt*> parallel_fused_loops;
  // Lambdas with captures as functions (closures.hpp), built as calls of them are first lowered.
  mutable std::map<const clang::CXXRecordDecl*, std::shared_ptr<ClosureFunction>> closures;
  mutable std::map<const clang::FunctionDecl*, const ClosureFunction*> closure_of;
  // Functions with function parameters bound to the functions calls pass (function_pointers.hpp),
  // by function and bound functions, built as their calls are first lowered.
  mutable std::map<std::pair<const clang::FunctionDecl*, std::vector<const clang::FunctionDecl*>>,
                   std::shared_ptr<BoundFunction>>
      bound_functions;
  mutable std::map<const clang::FunctionDecl*, const BoundFunction*> bound_of;
  // Functions returning a pointer into a pointer argument's array whose calls are rewritten into
  // that array plus an offset (pointer_results.hpp), by canonical declaration: plain calls.
  mutable std::set<const clang::FunctionDecl*> pointer_results;
  // Each function's uses of non-const integer globals in its own body, by definition
  // (global_counter_uses, global_counters.cpp), found before lowering edits the body.
  mutable std::map<const clang::FunctionDecl*, GlobalUses> global_uses;
};
UnitFacts find_unit_facts(clang::ASTContext& context, clang::Sema& sema);
// The uses of non-const integer globals (GlobalUses) in `fn` and in the functions of the user it
// calls, transitively (global_counters.cpp); none for a library function. Writes anywhere; reads
// and values only in the code adjc differentiates with `fn` (a function without derivative runs
// once, as written, in the forward sweep), or anywhere with `anywhere`. Each body is read once,
// the first time (lower runs this before it edits `fn`'s body, and a function is lowered after its
// callers).
GlobalUses global_counter_uses(const clang::FunctionDecl* fn, const UnitFacts& unit, bool anywhere = false);

bool is_value_class(clang::QualType t, const UnitFacts& unit);  // references and cv-qualifiers ignored
// Floating scalars and value classes: values whose adjoint is a value of the same type.
bool is_adjoint_value(clang::QualType t, const UnitFacts& unit);
// `V{}`, `V()`: an empty value-class handle.
bool is_empty_value(const clang::Expr* e, const UnitFacts& unit);
// std::pair of two arithmetic types: modelled as the struct {first, second} it is. Its constructors
// from two values set the members, its copies and assignments copy them, its base is empty.
bool is_number_pair(clang::QualType t);
// std::complex<float> or std::complex<double>, behind references and cv: a value class when the unit
// includes adjoint/complex.hpp (complex_numbers.cpp).
bool is_std_complex(clang::QualType t);
// `std::make_pair(a, b)` giving a number pair.
bool is_make_pair(const clang::Expr* e);
// What a copy or move constructor does, against a copy member by member (in order: worse later):
// copies each base and member from the source's own (trivial, the compiler's, or the user's
// `S(const S& o) : x(o.x) {}`); does so and resets members of the source to constants (a move
// constructor's `{ o.x = 0; }`); anything else (`value(2 * o.value)`, a member not given).
enum class StructCopy { Members, MembersResettingSource, Other };
StructCopy constructor_copy(const clang::CXXConstructorDecl* c);
// The worst of what `record`'s copy and move constructors (and its members' and bases') do.
StructCopy record_copy(const clang::CXXRecordDecl* record);
// A struct copied member by member, with only modelled bases (`unmodelled_bases`): trivially
// copyable, or with special members of the user's own that are as the compiler's (a destructor
// whose body has no effect, copy and move constructors of StructCopy::Members or
// MembersResettingSource, no assignment operator of its own; so its members' and bases' types); or
// a number pair. Where a resetting move runs on a source read later is checked where it runs
// (check_function).
bool copied_by_members(clang::QualType t);
// A struct copied by members but for a copy or move constructor that does more
// (`CopyValue(const CopyValue& o) : value(2 * o.value)`), whose `T{}` is zero (zero_by_default):
// its objects are accepted where the program never copies them (check_function reports each copy
// it runs: what C++17 elides is no copy), and generated code never copies them (results and
// parameters by value are rejected, its zero is `T{}`, it is taped member by member).
bool held_in_place(clang::QualType t);
// What keeps struct `t` from being copied by members: "a copy constructor", "a move constructor",
// "a destructor" or "an assignment operator" of the user's own (empty when none does).
std::string own_copy_operation(clang::QualType t);
// The report of a value `what` ("a local object 's'", ...) of such a struct (`id`: own_copy_operation
// or a row that says more).
Message own_copy_message(clang::QualType t, const std::string& what, Diag id = Diag::own_copy_operation);
// Whether the unit declares Clad's `clad::zero_like(const T&)` for class `t` (one function, not
// deleted, callable with the value alone): adjoints of such a class start as zero_like of the
// value, shaped as it is (a struct holding memory), instead of `T{}`.
bool has_zero_like(clang::QualType t);
// Whether `record` declares its move constructor deleted (`S(S&&) = delete;`).
bool deleted_move(const clang::CXXRecordDecl* record);
// A struct copied by members whose assignment the compiler deletes (a move constructor of the
// user's) or deprecates (a copy constructor or destructor of the user's): generated code assigns
// it a copy made in its place (`adjoint::detail::assign`, print.hpp's `assignment`).
bool assigned_by_copy(const clang::CXXRecordDecl* record);
// Whether generated code can assign objects of `record` and return them (a result): by the
// compiler's assignment and move, or by copies (assigned_by_copy with a copy constructor; a
// forward returns a copy when the move constructor is deleted).
bool copy_assignable(const clang::CXXRecordDecl* record);
// The data members of a record, its bases' first (depth first, in declaration order, as an
// aggregate initialiser lists them), then its own.
std::vector<const clang::FieldDecl*> record_fields(const clang::RecordDecl* record);
// Why adjc cannot model `record`'s base classes (empty when it can: every base public, not
// virtual, and no class twice in the hierarchy), naming the first that is not modelled; inherited
// members are then members of the derived struct, its adjoint a struct of the same type.
std::string unmodelled_bases(const clang::CXXRecordDecl* record);
// Why adjc cannot model the user's class that `t` is, points to, refers to or holds as elements
// (empty when it can): a class with virtual functions (a call through it could dispatch to an
// override adjc does not follow), or bases `unmodelled_bases` rejects.
std::string unmodelled_class(clang::QualType t, const UnitFacts& unit);
// A struct of numbers (references and cv-qualifiers ignored): a class of the user's (or a number
// pair), copied by members (or held in place), without virtual functions, whose members are numbers, pointers, plain
// structs or arrays of them. Its values are memory whose adjoint is a struct of the same type
// (locals used as a whole, results); the adjoint's pointer members are null (`pointer_members`).
bool is_plain_struct(clang::QualType t, const UnitFacts& unit);
// The members of plain struct `t` (in its member structs too) that are pointers to differentiable
// values, appended to `out`.
void pointer_members(clang::QualType t, std::vector<const clang::FieldDecl*>& out);
// Results with an adjoint (`d_result`, by value): floating values, value classes, plain structs.
bool has_result_adjoint(clang::QualType t, const UnitFacts& unit);

// A parameter as adjc differentiates it: a member function's object comes first, as a pointer
// (`const C*`), then the declared parameters; a pointer by reference (`double*&`, `const double*&`,
// `double* const&`) that the function's body never changes is that pointer by value.
struct AdParam {
  clang::QualType type;
  const clang::ParmVarDecl* decl = nullptr;  // nullptr: the object
};
std::vector<AdParam> ad_params(const clang::FunctionDecl* fn);
// A reference to a pointer to differentiable data (`double*&`, `const double*&`, `double* const&`).
bool pointer_reference(clang::QualType t);
// The object parameter of a non-static member function; nullptr for other functions.
const clang::CXXMethodDecl* with_object(const clang::FunctionDecl* fn);
// A call's arguments aligned with ad_params(callee); `address`: the object is an lvalue whose
// address is passed.
struct AdArg {
  const clang::Expr* expr;
  bool address = false;
};
std::vector<AdArg> ad_args(const clang::CallExpr* call);
// The name generated and custom functions are derived from: `f`, `operator_plus`, ...; empty
// for operators adjc does not support.
std::string base_name(const clang::FunctionDecl* fn, const UnitFacts& unit);
// A pointer or reference to a pointer to differentiable data (`double*&`, `double**`): a parameter
// through which a function reaches differentiable memory that has no adjoint of its own.
bool reaches_differentiable(clang::QualType t);
// A call that needs no derivative: its result carries none and it writes nothing.
bool derivative_free(const clang::FunctionDecl* callee);
// Marked `__attribute__((annotate("non_differentiable")))`, as Clad's non_differentiable marks a
// function, a data member, a variable or a class (its members then): its values are constants to
// the derivative, and calls of such a function are made as written. A class named by Clad's
// CLAD_NONDIFFERENTIABLE_TYPE is marked so too.
bool non_differentiable(const clang::Decl* d);
// Whether `s` may modify `v` (after `after`, when valid; `sm` orders locations): a use of it other
// than as a value read through members, elements and const member calls. A lambda's capture by
// reference counts as a modification.
bool may_modify(const clang::Stmt* s, const clang::VarDecl* v, const clang::SourceManager* sm = nullptr,
                clang::SourceLocation after = {});
// A member function of the user's returning a reference to its object, or a copy of a trivially
// copyable one, every `return` being `return *this;` (`V& operator+=(const V&)`): differentiated
// as returning nothing, and called only as a statement of its own, its result discarded.
bool returns_self(const clang::FunctionDecl* fn);
// What the generated code of `fn` returns: void for returns_self, the number a reference to a
// number refers to (its calls read the value: check_function), else its return type.
clang::QualType result_type(const clang::FunctionDecl* fn);

// What a call to a non-math function is, for differentiation.
enum class CalleeKind { Plain, User, Custom };
CalleeKind callee_kind(const clang::FunctionDecl* callee, const UnitFacts& unit);
// Calls lowered to Call nodes (their results are temporaries the tape plan can save): those with
// a derivative, derivative-free calls that read differentiable arguments, and calls that write
// numbers through their arguments (`next(counter)`).
bool hoisted_callee(const clang::FunctionDecl* callee, const UnitFacts& unit);
// The custom pullback calls of `callee` use (custom_pullbacks.cpp): of its name (`f_pullback`,
// `power_3_pullback` for `power<3>`, or a template `power_pullback` given `<3>`), in
// class_functions for a member function (a static one's may also be in custom_derivatives itself),
// taking what adjc passes (custom_pullback_signature); for a template, the specialization adjc
// calls, its arguments those of `callee`'s own specialization, else deduced from that signature.
const clang::FunctionDecl* custom_pullback(const clang::FunctionDecl* callee, const UnitFacts& unit);
// Why the unit's pullbacks named for `callee` do not fit a call that needs a derivative (none when
// one fits or none is named for it): the first one's place and the signature adjc calls.
std::optional<Message> custom_pullback_mismatch(const clang::FunctionDecl* callee, const UnitFacts& unit);
// Whether `callee`'s custom pullback takes Clad's signature, with an adjoint also for each integer,
// bool or enum parameter (a scratch adjoint adjc passes and ignores; nullptr for a pointer).
bool custom_pullback_takes_integer_adjoints(const clang::FunctionDecl* callee, const UnitFacts& unit);
// Whether the custom pullback of `callee` (a free function) defined in the unit never uses its
// parameter i, one of callee's own: left unnamed (`double* /*out*/`) or unused, so a call does not
// read that memory in its reverse, and a later call may overwrite it (custom_pullbacks.cpp).
bool custom_pullback_leaves_unread(const clang::FunctionDecl* callee, size_t i, const UnitFacts& unit);
// A parameter of that kind: an integer, bool or enum, by value, reference or pointer.
bool integer_like_parameter(clang::QualType t);
// Clad's pullback with state, when `callee`'s custom pullback takes a trailing
// `clad::pullback_state<S>` (by value or reference): the `f_reverse_forw(<f's arguments>, <their
// adjoints: pointers, or values for parameters by value>, clad::pullback_state<S>& state)` the
// forward sweep calls instead of `callee` (its `.value` is the call's result) to fill the state the
// pullback then receives; nullptr for other callees. `state` is set to clad::pullback_state<S>.
const clang::FunctionDecl* custom_reverse_forw(const clang::FunctionDecl* callee, const UnitFacts& unit,
                                               clang::QualType* state = nullptr);
// Why a call of `callee` has no derivative, and the custom pullback that would give it one: the
// detail of Diag::no_derivative ("'f' has no body and no custom pullback (...)").
std::string no_derivative(const clang::FunctionDecl* callee, const UnitFacts& unit);

// A parameter marked ADJOINT_WRITE_ONCE (adjoint/ad.hpp): calls write each element of its memory
// at most once, so a call's write never destroys a value another call's pullback reads.
bool is_write_once(const Var* region);
// Parens, implicit casts, cleanups, qualifying pointer casts, copies of value-class handles
// (copying one is the value), and copies and moves of structs that copy members (constructor_copy;
// the source a resetting move leaves is never read again: check_function).
const clang::Expr* strip(const clang::Expr* e, const UnitFacts& unit);
// `e` without parens, implicit casts, cleanups, `std::move(...)` and `static_cast<T&&>(...)`: what
// a move moves from.
const clang::Expr* moved_operand(const clang::Expr* e);
// A floating type; also an integer one (not bool) while an IntegerTangents is on.
bool is_floating(clang::QualType t);
// A builtin integer type other than bool (char, int, long, ...).
bool is_integer_number(clang::QualType t);
// Forward mode asked for an integer parameter (`clad::differentiate(f, "n")` of `int n`): while one
// is on, integers carry tangents as floating values do, through integer arithmetic, as Clad's
// forward mode does (docs/adjc.md, "For Clad users"). Everywhere else integers are constants.
class IntegerTangents {
 public:
  explicit IntegerTangents(bool on);
  ~IntegerTangents();
  IntegerTangents(const IntegerTangents&) = delete;
  IntegerTangents& operator=(const IntegerTangents&) = delete;

 private:
  bool before_;
};
bool integer_tangents();
bool is_written_param(clang::QualType param);  // pointer/reference to non-const data
bool writes_through_parameters(const clang::FunctionDecl* f);  // has such a parameter (or a non-const `this`)
bool writes_numbers(clang::QualType param);    // also to non-const integers: memory the tape plan follows

// Every differentiable parameter active.
std::vector<bool> all_differentiable(const clang::FunctionDecl* fn);

}  // namespace adjc
