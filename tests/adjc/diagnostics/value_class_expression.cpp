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
double f(const Vec& a, const Vec& b, bool first) {
  Vec c = first ? a : b;  // error: unsupported expression of value class
  return sum(c);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
