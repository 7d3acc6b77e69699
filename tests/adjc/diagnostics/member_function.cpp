#include <adjoint/ad.hpp>
struct Model {
  double w;
  static double f(double x) { return x * x; }
  double g(double x) const { return w * x; }
};
double f(const Model* m, double x) {
  return m->g(x);  // error: calls of member functions and overloaded operators are not supported
}
void request() { auto g = adjoint::gradient(f); (void)g; }
