#include <adjoint/ad.hpp>
// A struct with a default constructor of its own: not a region of plain members.
struct P {
  double a, b;
  P() : a(1), b(2) {}
};
double f(double x) {
  P* p = new P;  // error: 'new' of struct 'p' of type 'P' is not supported: its members must be numbers, structs of numbers or arrays of them, and its default constructor the implicit one; use one array per member
  p->a = x;
  double r = p->a * p->b;
  delete p;
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
