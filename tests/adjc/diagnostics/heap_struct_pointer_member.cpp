#include <adjoint/ad.hpp>
#include <cstdlib>
// A heap struct's pointer members are only carried along: its adjoint's are null.
struct Node {
  double v;
  double* w;
};
double f(double x, double* w) {
  Node* n = (Node*)malloc(sizeof(Node));
  n->v = x;
  n->w = w;
  double r = n->v * *n->w;  // error: pointer member 'w' is read here, but 'malloc' of struct 'n' (line 9) has one
  free(n);
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
