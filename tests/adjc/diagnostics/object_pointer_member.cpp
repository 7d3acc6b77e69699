#include <adjoint/ad.hpp>
// A function object holding a pointer into differentiated memory: the adjoint object would need a
// pointer to that memory's adjoint.
struct Dot {
  const double* w;
  double operator()(const double* x) const { return w[0] * x[0] + w[1] * x[1]; }
};
double f(const double* w, const double* x) {
  Dot d{w};  // error: local object 'd' has pointer member 'w', whose adjoint adjc cannot give it; pass the pointer as an argument instead
  return d(x);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
