#include <adjoint/ad.hpp>
int calls = 0;
double f(double x) {
  ++calls;
  if (calls > 2) return x;  // error: global 'calls' is written (line 4) and its value read here; adjc supports non-const globals written only as counters (++calls, calls += k) whose value the differentiated code never reads
  return x * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
