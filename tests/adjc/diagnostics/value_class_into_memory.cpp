#include <adjoint/ad.hpp>
struct Vec {
  double* data;
  int n;
};
void accumulate_adjoint(Vec& into, const Vec& from);
struct Cache {
  Vec last;
};
double sum(const Vec& a);
namespace adjoint::custom_derivatives {
void sum_pullback(const Vec& a, double d_result, Vec* d_a);
}
double f(const Vec& x, Cache& cache) {
  cache.last = x;  // error: assigning a value class into memory
  return sum(x);
}
void request() { auto g = adjoint::gradient(f, "x, cache"); (void)g; }
