// Corpus: custom pullbacks written as function templates (for function templates, for plain
// functions, given non-type template arguments), and pullbacks of static member functions.
// Each function's body, differentiated, gives a wrong derivative on purpose (a value marked
// ADJOINT_NON_DIFFERENTIABLE is a constant to adjc, not to finite differences), so a gradient that
// matches finite differences used the pullback; the counter says so too.
#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace {
int pullback_calls = 0;
}

// x^3, which adjc would differentiate as k * x with k = x^2 constant.
template <class T>
T cube(T x) {
  ADJOINT_NON_DIFFERENTIABLE T k = x * x;
  return k * x;
}
double cube_plain(double x) {
  ADJOINT_NON_DIFFERENTIABLE double k = x * x;
  return k * x;
}
// An overload with no pullback of its own, differentiated from its body: cube_plain's pullback
// takes the calls of cube_plain(double) only.
double cube_plain(double x, double y) { return x * x * y; }
// N * x^2.
template <int N>
double scaled_square(double x) {
  ADJOINT_NON_DIFFERENTIABLE double k = N * x;
  return k * x;
}
// The sum of w[i] x[i]^2 (w may be left undifferentiated: its adjoint is then nullptr).
template <class T>
T weighted_squares(const T* w, const T* x, int n) {
  T s = 0;
  for (int i = 0; i < n; i++) {
    ADJOINT_NON_DIFFERENTIABLE T k = w[i] * x[i];
    s += k * x[i];
  }
  return s;
}
struct Arithmetic {
  static double cubed(double x) {
    ADJOINT_NON_DIFFERENTIABLE double k = x * x;
    return k * x;
  }
  template <class T>
  static T multiply(T x, T y) {
    ADJOINT_NON_DIFFERENTIABLE T k = x;
    return k * y;
  }
};
// A member function of a class template: its pullback template's arguments are deduced from `self`.
template <class T>
struct Scale {
  T k;
  T apply(T x) const {
    ADJOINT_NON_DIFFERENTIABLE T c = k * x;
    return c * x;
  }
};

namespace adjoint::custom_derivatives {
template <class T>
void cube_pullback(T x, T d_result, T* d_x) {
  ++pullback_calls;
  *d_x += 3 * x * x * d_result;
}
// A template for a plain function: its argument deduced from the signature adjc calls.
template <class T>
void cube_plain_pullback(const T& x, T d_result, T* d_x) {
  ++pullback_calls;
  *d_x += 3 * x * x * d_result;
}
// N is not deducible: adjc passes scaled_square's own (scaled_square_pullback<3>).
template <int N>
void scaled_square_pullback(double x, double d_result, double* d_x) {
  ++pullback_calls;
  *d_x += 2 * N * x * d_result;
}
template <class T>
void weighted_squares_pullback(const T* w, const T* x, int n, T d_result, T* d_w, T* d_x) {
  ++pullback_calls;
  for (int i = 0; i < n; i++) {
    if (d_w) d_w[i] += x[i] * x[i] * d_result;
    if (d_x) d_x[i] += 2 * w[i] * x[i] * d_result;
  }
}
namespace class_functions {
// Static member functions' pullbacks are here, without an object (Clad's convention).
void cubed_pullback(double x, double d_result, double* d_x) {
  ++pullback_calls;
  *d_x += 3 * x * x * d_result;
}
template <class T>
void multiply_pullback(T x, T y, T d_result, T* d_x, T* d_y) {
  ++pullback_calls;
  *d_x += y * d_result;
  *d_y += x * d_result;
}
template <class T>
void apply_pullback(const Scale<T>* self, T x, T d_result, Scale<T>* d_self, T* d_x) {
  ++pullback_calls;
  if (d_self) d_self->k += x * x * d_result;
  *d_x += 2 * self->k * x * d_result;
}
}  // namespace class_functions
}  // namespace adjoint::custom_derivatives

double template_for_template(double x, double y) { return cube(x * y) + y; }
float template_for_template_float(float x) { return cube(x) * 2; }
double template_for_plain(double x) { return cube_plain(x) * x; }
double overload_without_pullback(double x, double y) { return cube_plain(x, y) + cube_plain(y); }
double non_type_argument(double x) { return scaled_square<3>(x) + scaled_square<2>(x * x); }
double pointer_adjoint(const double* w, const double* x, int n) { return weighted_squares(w, x, n) * x[0]; }
double static_member(double x) { return Arithmetic::cubed(x) + x; }
double static_member_template(double x, double y) { return Arithmetic::multiply(x, y) * x; }
double class_template_member(double x) {
  Scale<double> s{1.5};
  return s.apply(x) + s.apply(2 * x);
}

TEST(CustomPullbackForms, template_for_template) {
  pullback_calls = 0;
  check("template_for_template", adjoint::gradient(template_for_template), template_for_template,
        Scalar<double>{}, Scalar<double>{});
  EXPECT_EQ(pullback_calls, 3);  // one per checked point
}
TEST(CustomPullbackForms, template_for_template_float) {
  pullback_calls = 0;
  check("template_for_template_float", adjoint::gradient(template_for_template_float), template_for_template_float,
        Scalar<float>{});
  EXPECT_EQ(pullback_calls, 3);
}
TEST(CustomPullbackForms, template_for_plain) {
  pullback_calls = 0;
  check("template_for_plain", adjoint::gradient(template_for_plain), template_for_plain, Scalar<double>{});
  EXPECT_EQ(pullback_calls, 3);
}
TEST(CustomPullbackForms, overload_without_pullback) {
  pullback_calls = 0;
  check("overload_without_pullback", adjoint::gradient(overload_without_pullback), overload_without_pullback,
        Scalar<double>{}, Scalar<double>{});
  EXPECT_EQ(pullback_calls, 3);
}
TEST(CustomPullbackForms, non_type_argument) {
  pullback_calls = 0;
  check("non_type_argument", adjoint::gradient(non_type_argument), non_type_argument, Scalar<double>{});
  EXPECT_EQ(pullback_calls, 6);
}
TEST(CustomPullbackForms, pointer_adjoint) {
  // w is not differentiated: weighted_squares_pullback<double> gets nullptr for its adjoint.
  pullback_calls = 0;
  check("pointer_adjoint", adjoint::gradient(pointer_adjoint, "x"), pointer_adjoint, Const<double>{3}, In<double>{3},
        3);
  EXPECT_EQ(pullback_calls, 3);
}
TEST(CustomPullbackForms, static_member) {
  pullback_calls = 0;
  check("static_member", adjoint::gradient(static_member), static_member, Scalar<double>{});
  EXPECT_EQ(pullback_calls, 3);
}
TEST(CustomPullbackForms, static_member_template) {
  pullback_calls = 0;
  check("static_member_template", adjoint::gradient(static_member_template), static_member_template, Scalar<double>{},
        Scalar<double>{});
  EXPECT_EQ(pullback_calls, 3);
}
TEST(CustomPullbackForms, class_template_member) {
  pullback_calls = 0;
  check("class_template_member", adjoint::gradient(class_template_member), class_template_member, Scalar<double>{});
  EXPECT_EQ(pullback_calls, 6);
}
