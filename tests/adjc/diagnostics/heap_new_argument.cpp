#include <adjoint/ad.hpp>
double first(const double* p) { return p[0]; }
double f(double x) {
  double r = x * first(new double[2]());  // error: 'new' here is not supported; allocate into a local pointer as a statement of its own ('T* p = new T[n];' or 'p = new T[n];' for 'T* p = nullptr;')
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
