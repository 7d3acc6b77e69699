#include <adjoint/ad.hpp>
// An integer address is accepted only for an object without data, whose member functions read nothing of it.
struct Box {
  double side;
  double volume(double x) const { return side * x; }
};
double f(double x) {
  return reinterpret_cast<const Box*>(0x40)->volume(x);  // error: unsupported cast 'CXXReinterpretCastExpr'
}
void request() { auto g = adjoint::gradient(f); (void)g; }
