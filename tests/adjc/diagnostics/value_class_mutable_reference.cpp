#include <adjoint/ad.hpp>
struct Vec {
  double* data;
  int n;
};
void accumulate_adjoint(Vec& into, const Vec& from);
double sum(const Vec& a);
namespace adjoint::custom_derivatives {
void sum_pullback(const Vec& a, double d_result, Vec* d_a);
}
double f(Vec& x) {  // error: value class 'x' passed by non-const reference
  return sum(x);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
