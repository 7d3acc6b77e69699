// Corpus: side effects inside expressions (chained and nested assignments, `++`/`--` with the
// value before or after, the comma operator), in loop conditions (while, do-while with continue,
// for with a comma increment), kept conditional under `&&`, `||` and `?:`; declarations in
// `if`/`switch` headers and in loop conditions; conditional lvalues;
// local references as aliases (of variables, elements, through range-for); range-for over arrays;
// floating parameters passed by address; and the forms the diagnostics' hints point to (the
// diagnostics assign_in_expr, incdec_in_expr, local_reference, range_for_reference).
#include <adjoint/ad.hpp>

#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

double chained_assignments(double x, double y) {
  double a, b;
  a = b = x * y;
  a += b *= x;
  double c = (a -= y) * (b /= 2);
  return a * b + c;
}
double increments_in_expressions(const double* x, int n) {
  double s = 0;
  int i = 0, j = n;
  while (i < j) s += x[i++] * x[--j];
  double t = x[0];
  double u = t++ * 2;  // the value before: x[0] * 2
  double w = --t * u;  // t is x[0] again
  return s * w + t;
}
double post_increment_targets(const double* x, int n) {
  double v[8];
  int k = 0;
  for (int i = 0; i < n; i++) v[k++] = x[i] * x[i];
  double s = 0;
  while (k > 0) s = s * 0.5 + v[--k] * 2;
  return s;
}
double loop_conditions(const double* x, int n) {
  double s = 1;
  int k = n;
  while (k--) s = s * 0.5 + x[k];
  int m = n;
  do s += x[m - 1] * s * 0.1; while (--m > 0);
  int c = 0;
  while (++c < n) {
    if (c % 2) continue;  // the condition still runs
    s = s * x[c];
  }
  int d = n;
  do {
    if (d % 2 == 0) continue;  // to the condition, and its decrement
    s -= 0.25 * x[d - 1] * s;
  } while (--d > 0);
  for (int i = 0, j = n - 1; i < j; i += 2, j--) s += x[i] * x[j];
  int e = 0;
  while (e = e + 1, e < n) s += x[e] * 0.5;
  return s;
}
double conditional_effects(const double* x, int n) {
  double s = 0.5;
  int bumped = 0, counted = 0;
  for (int k = 0; k < n; k++) {
    if (x[k] > 0 && (s += x[k] * x[k]) > 1) bumped++;  // s grows only when x[k] > 0
    if (x[k] < -0.5 || ++counted > 2) s *= 1.1;      // counted only when x[k] >= -0.5
    double t = x[k] < 0 ? (s *= 0.5) : s++;          // one of the two
    s += t * x[k];
  }
  return s + bumped + counted;
}
double comma_expressions(double x, double y) {
  double a;
  double b = (a = x * 2, a * y);
  int i = 0;
  double c = (i++, b * i);
  return a * b + c;
}
double side_effects_in_headers(const double* x, int n) {
  int k = 1, m = n;
  double s = 0;
  for (int i = k++; i < n; ++i) s += x[i] * k;  // starts at 1, k is 2
  switch (m = n % 3) {
    case 0: s *= x[0]; break;
    case 1: s += x[1] * m; break;
    default: s -= x[2] * m;
  }
  if ((s *= 2) > 100) s = 100;
  return s;
}
double declarations_in_conditions(const double* x, int n) {
  double r = x[0];
  if (double t = x[1] * x[1]; t > 0.1) r += t;
  if (double u = x[2] - 0.5) r *= u;
  switch (int k = n % 3; k) {
    case 0: r *= 2; break;
    case 1: r *= x[0]; break;
    default: r -= x[1];
  }
  switch (int k = n % 2) {
    case 0: r += 1 + k; break;
    default: r *= 0.5;
  }
  int i = n;
  while (int left = i--) r += x[left - 1] * 0.25 * r;  // declared again each time
  for (int j = 0; int more = n - j; j++) r -= 0.1 * x[more - 1] * r;
  return r;
}
double square_user(double v) { return v * v; }
double conditional_lvalues(double x, double y) {
  double a = 0, b = 0;
  (x > y ? a : b) = x * y;
  (a > b ? a : b) += x;
  (x < 0 ? a : b) = square_user(x + y);  // the call once, before the branch
  int k = 0;
  (k++ > 0 ? a : b) *= y;  // the value before the condition's side effect
  ((x > 0 ? a : b))++;
  return a * 3 + b * k;
}
double references(double* x, int n) {
  double a = x[0] * 2;
  double& r = a;
  r *= x[1];
  const double& c = x[1];     // reads x[1] as the loop below leaves it
  const double& t = a * c;    // a temporary: a local of its own
  for (int i = 0; i < n; i++) {
    double& e = x[i];
    e = e * e + r;
    double& again = e;        // a reference to a reference
    again *= 0.5;
  }
  return r + c * t;
}
double range_for_arrays(double x, double y) {
  double m[2][3];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) m[i][j] = x * (i + 1) + j * y;
  double s = 0;
  for (auto& row : m)
    for (double v : row) s += v * v;
  double w[3] = {x, y, x * y};
  for (double& e : w) e = e * x;  // written through the alias
  for (const double& e : w) s += e;
  return s;
}
double range_for_vector_reference(const double* x, int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; i++) v[i] = x[i];
  for (double& e : v) e = 2 * e * e;
  double s = 0;
  for (const double& e : v) s += e * x[0];
  return s;
}
struct Pair {
  double a, b;
};
double alias_of_struct_and_effect_statements(double x, double y) {
  Pair p = {x, y};
  Pair& q = p;  // p is still split into its members
  q.a *= y;
  double u = 1, w = 2;
  x > y ? u++ : w--;  // evaluated for its side effects
  int n = 2, k = 0;
  int m = n ? n : (k = 3);  // the hint of assign_in_expr (GNU `n ?: (k = 3)`), followed
  return q.a * p.b * m + u * x - w * y + k;
}
template <typename T, int N>
T dot_n(const T* a, const T* b) {
  T s = 0;
  for (int i = 0; i < N; i++) s += a[i] * b[i];
  return s;
}
void scale_by(double& v, double k) { v *= k; }
double addressed_parameters(double x, double y) {
  scale_by(x, y);  // x, a parameter, written through a reference
  double d = dot_n<double, 1>(&x, &y);
  return d + x * x;
}
double pointers_to_scalars(double x, double y) {
  double a = x * y;
  double* p = &a;  // a local pointer into a one-element region
  *p *= x;
  double* q = &y;  // into the parameter's local copy
  *q += a;
  return a * y + *p * p[0];
}
float addressed_float(float x, float y) { return dot_n<float, 1>(&x, &y) + x; }
// The diagnostics' hints, followed: a local pointer stepped inside an expression
// (pointer_parameter_incremented), a pointer where an index changes in a reference's scope
// (local_reference), a local array for a braced list (range_for_reference).
double hints_followed(const double* x, int n) {
  const double* p = x;
  double s = 0;
  for (int i = 0; i < n; i++) s += *p++ * x[i];
  double w[3];
  int i = 0;
  double* r = &w[i];
  i++;
  *r = s * x[i];
  w[1] = s;
  w[2] = x[0];
  double a[] = {x[0], x[1] * 2, s};
  for (double v : a) s += v * w[0];
  return s + w[1] * w[2];
}

TEST(SideEffects, chained_assignments) {
  check("chained_assignments", adjoint::gradient(chained_assignments), chained_assignments, Scalar<double>{},
        Scalar<double>{0.5, 2});
}
TEST(SideEffects, increments_in_expressions) {
  check("increments_in_expressions", adjoint::gradient(increments_in_expressions, "x"), increments_in_expressions,
        In<double>{5}, 5);
  check("post_increment_targets", adjoint::gradient(post_increment_targets, "x"), post_increment_targets,
        In<double>{6}, 6);
}
TEST(SideEffects, loop_conditions) {
  check("loop_conditions", adjoint::gradient(loop_conditions, "x"), loop_conditions, In<double>{7}, 7);
  check("loop_conditions", adjoint::gradient(loop_conditions, "x"), loop_conditions, In<double>{4}, 4);
}
TEST(SideEffects, conditional_effects) {
  check("conditional_effects", adjoint::gradient(conditional_effects, "x"), conditional_effects, In<double>{8}, 8);
}
TEST(SideEffects, comma_expressions) {
  check("comma_expressions", adjoint::gradient(comma_expressions), comma_expressions, Scalar<double>{},
        Scalar<double>{});
}
TEST(SideEffects, side_effects_in_headers) {
  for (int n = 3; n < 6; n++)
    check("side_effects_in_headers", adjoint::gradient(side_effects_in_headers, "x"), side_effects_in_headers,
          In<double>{5, 0.1, 1}, n);
}
TEST(SideEffects, declarations_in_conditions) {
  for (int n = 3; n < 7; n++)
    check("declarations_in_conditions", adjoint::gradient(declarations_in_conditions, "x"),
          declarations_in_conditions, In<double>{6}, n);
}
TEST(SideEffects, conditional_lvalues) {
  check("conditional_lvalues", adjoint::gradient(conditional_lvalues), conditional_lvalues, Scalar<double>{},
        Scalar<double>{});
}
TEST(SideEffects, references) {
  check("references", adjoint::gradient(references, "x"), references, InOut<double>{4}, 4);
}
TEST(SideEffects, alias_of_struct_and_effect_statements) {
  check("alias_of_struct_and_effect_statements", adjoint::gradient(alias_of_struct_and_effect_statements),
        alias_of_struct_and_effect_statements, Scalar<double>{}, Scalar<double>{});
}
TEST(SideEffects, range_for) {
  check("range_for_arrays", adjoint::gradient(range_for_arrays), range_for_arrays, Scalar<double>{},
        Scalar<double>{});
  check("range_for_vector_reference", adjoint::gradient(range_for_vector_reference, "x"),
        range_for_vector_reference, In<double>{4}, 4);
}
TEST(SideEffects, addressed_parameters) {
  check("addressed_parameters", adjoint::gradient(addressed_parameters), addressed_parameters, Scalar<double>{},
        Scalar<double>{});
  check("pointers_to_scalars", adjoint::gradient(pointers_to_scalars), pointers_to_scalars, Scalar<double>{},
        Scalar<double>{});
  check("addressed_float", adjoint::gradient(addressed_float), addressed_float, Scalar<float>{}, Scalar<float>{});
}
TEST(SideEffects, hints_followed) {
  check("hints_followed", adjoint::gradient(hints_followed, "x"), hints_followed, In<double>{4}, 4);
}
