#include <utility>
#include <adjoint/ad.hpp>
// A resetting move inside a loop of a variable declared outside it: the next iteration reads what
// the move reset.
struct S {
  double x;
  S(double px) : x(px) {}
  S(const S&) = default;
  S(S&& o) noexcept : x(o.x) { o.x = 0; }
};
double keep(S s) { return s.x; }
double f(double x) {
  S a(x * x);
  double r = 0;
  for (int i = 0; i < 3; ++i) r += keep(std::move(a));  // error: 'a' is moved inside a loop and outlives an iteration
  return r;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
