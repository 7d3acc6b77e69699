#pragma once
// The model of std::vector<T> and std::array<T, N> (T arithmetic, not bool) adjc differentiates:
// element access, size() and data() become the array forms the passes already handle, and every
// other use of such a container is reported (docs/adjc.md, "std::vector and std::array"). Also
// std::max/std::min of braced lists (docs/adjc.md, "Library functions").

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>

#include "ir.hpp"

namespace adjc {

struct TapePlan;

// std::vector<T> or std::array<T, N> of an arithmetic T other than bool, behind references and cv.
bool is_container(clang::QualType t);
bool is_vector(clang::QualType t);            // std::vector<T> of such a T
bool is_initializer_list(clang::QualType t);  // std::initializer_list<T>, behind references and cv
clang::QualType container_element(clang::QualType t);
bool is_allocator_of(const clang::Expr* e, clang::QualType vector);  // `e` is a std::vector<T>'s std::allocator<T>
uint64_t array_size(clang::QualType t);  // N of a std::array<T, N>

// Rewrites the container operations in `fn`'s body, in place, into the forms the passes lower:
// `c[i]` into an array subscript of the container, `c.data()` into `&c[0]` (printed `c.data()`),
// `std::max({a, b, c})` (min) into `std::max(std::max(a, b), c)`; leaves `c.size()`, `c.empty()`,
// `v.push_back(x)`, the refills, `a.fill(x)` (lowered by lower_containers.cpp) and range-for;
// reports every other use of a container (whole copies, other members, iterators) or of a braced
// list as a std::initializer_list. False on errors.
bool rewrite_containers(const clang::FunctionDecl* fn, const UnitFacts& unit, clang::ASTContext& context,
                        Diagnostics& diags);

// The container `e` is the data() of (as rewritten), or nullptr.
const clang::Expr* container_data_object(const clang::Expr* e, const UnitFacts& unit);

// `v.push_back(x)` or `v.emplace_back(x)` of a std::vector: the call, else nullptr.
const clang::CXXMemberCallExpr* push_back_call(const clang::Expr* e);

// `v.resize(n)`, `v.resize(n, value)`, `v.assign(n, value)` or `v.clear()` of a std::vector: the
// call, else nullptr. On a local vector they are lowered as refills (Node::refilled).
const clang::CXXMemberCallExpr* refill_call(const clang::Expr* e);

// `a.fill(value)` of a std::array: the call, else nullptr. Lowered as a loop assigning each element.
const clang::CXXMemberCallExpr* fill_call(const clang::Expr* e);

// Builders for lowering: `object.name(args)` (size, resize or assign, of that arity),
// `object[index]`; calls built by size_call(..., true) resize a std::vector and count as writing
// nothing the tape plan follows (they only append elements, or size a vector that was empty).
clang::Expr* container_call(clang::ASTContext& context, const UnitFacts& unit, const clang::Expr* object,
                            const char* name, llvm::ArrayRef<clang::Expr*> args, bool sizing);
clang::Expr* container_subscript(clang::ASTContext& context, const clang::Expr* object, const clang::Expr* index);
// A container temporary built from numbers without side effects (`std::vector<double>(n, 0)`): its
// size() and empty() are values without derivative, computed as written.
bool sized_temporary(const clang::Expr* e, const clang::ASTContext& context);
bool is_sizing_call(const clang::CallExpr* call, const UnitFacts& unit);

// The reverse sweep sizes a local std::vector's adjoint from the vector (its final size: vectors
// only grow), so every local std::vector is kept: pushed whole at the end of the forward sweep.
void keep_local_vectors(const FunctionIR& ir, TapePlan& plan);

}  // namespace adjc
