#include <adjoint/ad.hpp>
// A lambda capturing by copy a struct whose copy constructor doubles: the capture runs it.
struct CopyValue {
  double value;
  CopyValue() : value(0) {}
  CopyValue(double x) : value(x) {}
  CopyValue(const CopyValue& o) : value(o.value * 2) {}
};
double f(double x) {
  CopyValue v(x);
  auto inner = [v] { return v.value * v.value; };  // error: copying a value of struct 'CopyValue' here runs its copy constructor (line 7)
  return inner();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
