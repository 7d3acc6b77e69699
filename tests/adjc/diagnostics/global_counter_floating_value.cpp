#include <adjoint/ad.hpp>
int buckets = 0;
double f(double x) {
  buckets += static_cast<int>(x * 4);  // error: global 'buckets' is given a value read from floating-point numbers; adjc supports non-const globals written only as counters (++buckets, buckets += k) whose value the differentiated code never reads, from integers only
  return x * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
