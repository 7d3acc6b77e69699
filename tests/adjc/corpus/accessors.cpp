// Corpus: accessors, functions returning a reference that are one `return` of an element or
// member (`double& operator()(int i, int j)`, `double& at(...)`, `double& id(double& x)`), used
// as values and as places written and updated; adjc rewrites each call into the place it names.
// Accessors with effects (statements before the `return`) bound to a local reference or written by a
// constant, and lambdas returning a captured variable by reference, are places too.
// Other functions returning a reference to a number, read as values, return the value.
// Each gradient against central differences.
#include <adjoint/ad.hpp>

#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace accessors {

struct Mat2 {
  double d[4];
  double& operator()(int i, int j) { return d[i * 2 + j]; }
  const double& at(int i, int j) const { return d[i * 2 + j]; }
};
double& element(double* a, int i) { return a[i]; }
double& same(double& x) { return x; }
double& slot(std::vector<double>& v, int i) { return v[i]; }

double matrix(double x, double y) {
  Mat2 m{{x, y, 1, y}};
  for (int i = 0; i < 2; i++) m(1, i) = m(0, i) * x + m(1, i);
  m(0, 0) *= y;
  return m(0, 0) * m(1, 1) + m.at(0, 1) * m.at(1, 0) * y;
}
double through_pointer(Mat2* p, double x) {
  (*p)(0, 1) = x * p->at(0, 0);
  return p->at(0, 1) * (*p)(1, 1);
}
double object_pointer(double x, double y) {
  Mat2 m{{x, y, 1, y}};
  return through_pointer(&m, x);
}
double elements(double* a, int n) {
  double s = 0;
  for (int i = 1; i < n; i++) {
    element(a, i) *= element(a, i - 1);
    s += element(a, i) * a[i];
  }
  return s;
}
double references(double x, double y) {
  double t = x;
  same(t) *= y;
  double& k = same(t);
  k += x;
  return t * k;
}
double vector_slots(double x, double y) {
  std::vector<double> v(2);
  slot(v, 0) = x;
  slot(v, 1) = slot(v, 0) * y;
  return slot(v, 1) * x;
}

// Functions returning a reference to a number that are not accessors (several returns, side
// effects), their results read as values: differentiated as returning the value.
const double& larger(const double* p, int k) {
  if (p[k] > p[0]) return p[k];
  return p[0];
}
struct Cell {
  double x;
  double& reset(double i) {
    x = +i;
    x = -i * x;
    return x;
  }
};
double reference_results(double a, double b) {
  double p[3] = {a, b * b, a * b};
  Cell c{a};
  double r = c.reset(b) * larger(p, 1);
  return r + larger(p, 2) * c.x;
}

void scale_all(double* x, double y) {
  for (int i = 0; i < 3; i++) x[i] *= y;
}
double& scaled_second(double* x, double y) {
  scale_all(x, y);
  scale_all(x, 3);
  return x[1];
}
double& bumped(double& v) {
  v *= v;
  return v;
}
double with_effects(double u, double v) {
  double a[] = {u, v, 1};
  double& r = scaled_second(a, u);
  r += 2;
  double& b = bumped(u);
  b *= v;
  ++bumped(v);
  bumped(a[0]) += 1;
  return r * a[0] + u * v + a[2];
}
double through_lambda(double x, double y) {
  auto at_x = [&x]() -> double& { return x; };
  at_x() *= y;
  double s = 0;
  for (int i = 0; i < 3; i++) {
    at_x() *= 2;
    s += at_x() * at_x();
  }
  return s + x;
}

}  // namespace accessors

using namespace accessors;

TEST(Accessors, matrix) { check("matrix", adjoint::gradient(matrix), matrix, Scalar<double>{}, Scalar<double>{}); }
TEST(Accessors, object_pointer) {
  check("object_pointer", adjoint::gradient(object_pointer), object_pointer, Scalar<double>{}, Scalar<double>{});
}
TEST(Accessors, elements) { check("elements", adjoint::gradient(elements, "a"), elements, InOut<double>{5}, 5); }
TEST(Accessors, references) {
  check("references", adjoint::gradient(references), references, Scalar<double>{}, Scalar<double>{});
}
TEST(Accessors, vector_slots) {
  check("vector_slots", adjoint::gradient(vector_slots), vector_slots, Scalar<double>{}, Scalar<double>{});
}
TEST(Accessors, reference_results) {
  check("reference_results", adjoint::gradient(reference_results), reference_results, Scalar<double>{},
        Scalar<double>{});
  // Requested itself, with its object: the result is the value.
  Cell c{0.5}, d_c{0};
  double i = 0.7, d_i = 0;
  adjoint::gradient(&Cell::reset, "this, i").execute(&c, i, &d_c, &d_i);
  EXPECT_NEAR(d_i, -2 * i, 1e-12);
  EXPECT_NEAR(d_c.x, 0, 1e-12);
}
TEST(Accessors, with_effects) {
  check("with_effects", adjoint::gradient(with_effects), with_effects, Scalar<double>{}, Scalar<double>{});
  check("through_lambda", adjoint::gradient(through_lambda), through_lambda, Scalar<double>{}, Scalar<double>{});
}
