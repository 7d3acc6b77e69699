#include <adjoint/ad.hpp>
// A compound operator returning a copy of its object is differentiated as returning nothing only
// when copying the class has no effect of its own (here a copy constructor counts them).
inline int copies = 0;
struct Counted {
  double x;
  Counted(double v) : x(v) {}
  Counted(const Counted& o) : x(o.x) { ++copies; }
  Counted operator+=(double v) {
    x += v;
    return *this;
  }
};
double f(Counted* c, double v) {
  *c += v;  // error: operator 'operator+=' returning 'Counted' is not supported
  return c->x * v;
}
void request() {
  auto g = adjoint::derivative(f, "v");
  (void)g;
}
