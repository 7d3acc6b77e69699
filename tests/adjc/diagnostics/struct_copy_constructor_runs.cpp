#include <adjoint/ad.hpp>
// A copy constructor that doubles, run where the program copies a local (where C++17 elides a
// copy, as in `CopyValue v = CopyValue(x);` or `[v = CopyValue(x)]`, it never runs, and that is
// accepted).
struct CopyValue {
  double value;
  CopyValue() : value(0) {}
  CopyValue(double x) : value(x) {}
  CopyValue(const CopyValue& o) : value(o.value * 2) {}
};
double f(double x) {
  CopyValue a(x);
  CopyValue b = a;  // error: copying a value of struct 'CopyValue' here runs its copy constructor (line 9), which does more than copy each member, and adjc does not differentiate it
  return b.value * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
