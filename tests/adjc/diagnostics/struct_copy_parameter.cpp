#include <adjoint/ad.hpp>
// A parameter by value of a struct whose copy constructor doubles: generated code passes it on.
struct CopyValue {
  double value;
  CopyValue() : value(0) {}
  CopyValue(double x) : value(x) {}
  CopyValue(const CopyValue& o) : value(o.value * 2) {}
};
double f(CopyValue v) {  // error: parameter 'v' by value of struct 'CopyValue', which has a copy constructor of its own that does more than copy members, is not supported
  return v.value * v.value;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
