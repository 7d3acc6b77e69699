#include <adjoint/ad.hpp>
// A function object holding a pointer into differentiated memory, read by its call operator: the
// adjoint object's pointer member is null, so the reverse could not write through it.
struct Dot {
  const double* w;
  double operator()(const double* x) const {
    return w[0] * x[0] + w[1] * x[1];  // error: pointer member 'w' is read here, but local object 'd' (line 11) has one, whose pointer members adjc only carries along (its adjoint's are null); pass the pointer as an argument instead
  }
};
double f(const double* w, const double* x) {
  Dot d{w};
  return d(x);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
