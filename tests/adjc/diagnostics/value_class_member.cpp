#include <adjoint/ad.hpp>
struct Vec {
  double* data;
  int n;
  double total() const {  // error: member function 'total' of value class 'Vec' needs a custom pullback
    double s = 0;
    for (int i = 0; i < n; i++) s += data[i];
    return s;
  }
};
void accumulate_adjoint(Vec& into, const Vec& from);
double f(const Vec& x) { return x.total(); }
void request() { auto g = adjoint::gradient(f); (void)g; }
