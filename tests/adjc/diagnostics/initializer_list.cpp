#include <adjoint/ad.hpp>
struct P2 {
  double a, b;
};
double f(double x) {
  P2 v[2] = {{x, x * x}, {1, x}};  // error: local array of structs 'v' is not supported; use one array per member
  return v[0].a * v[1].b + v[0].b;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
