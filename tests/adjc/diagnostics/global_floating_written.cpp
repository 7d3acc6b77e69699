#include <adjoint/ad.hpp>
double total = 0;
double f(double x) {
  total += 1;  // error: global 'total' of type 'double' is written; adjc supports non-const globals written only as integer counters (++calls, calls += k) whose value the differentiated code never reads; pass 'total' by reference instead
  return x * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
