#include <adjoint/ad.hpp>
double f(const double* x) {
  return x[0] * double(*reinterpret_cast<const long*>(x) & 1);  // error: unsupported cast 'CXXReinterpretCastExpr'
}
void request() { auto g = adjoint::gradient(f); (void)g; }
