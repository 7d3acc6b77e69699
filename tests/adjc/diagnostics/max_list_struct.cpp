#include <adjoint/ad.hpp>
#include <algorithm>
struct Score {
  double v;
  bool operator<(const Score& o) const { return v < o.v; }
};
double f(double x, double y) {
  Score a{x}, b{y * x};
  return std::max({a, b}).v;  // error: 'std::max' of a braced list of 'Score' is not supported; adjc supports std::max({...}) and std::min({...}) of numbers
}
void request() { auto g = adjoint::gradient(f); (void)g; }
