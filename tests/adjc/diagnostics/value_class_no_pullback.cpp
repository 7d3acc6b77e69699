#include <adjoint/ad.hpp>
struct Vec {
  double* data;
  int n;
};
void accumulate_adjoint(Vec& into, const Vec& from);
double sum(const Vec& a);
Vec operator+(const Vec& a, const Vec& b);  // no body, no operator_plus_pullback
namespace adjoint::custom_derivatives {
void sum_pullback(const Vec& a, double d_result, Vec* d_a);
}
double f(const Vec& x) {
  return sum(x + x);  // error: no derivative for this call: 'operator+' has no body and no custom pullback (define adjoint::custom_derivatives::operator_plus_pullback)
}
void request() { auto g = adjoint::gradient(f); (void)g; }
