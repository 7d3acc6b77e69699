#include <utility>
#include <adjoint/ad.hpp>
// A move constructor that resets its source, and the source read after the move: generated code
// copies member by member and would read the value the move reset.
struct S {
  double x;
  S(double px) : x(px) {}
  S(const S&) = default;
  S(S&& o) noexcept : x(o.x) { o.x = 0; }
};
double keep(S s) { return s.x; }
double f(double x) {
  S a(x * x);
  double r = keep(std::move(a));  // error: the move constructor of struct 'S' (line 9) resets the members of what it moves from, and 'a' is read afterwards (line 15)
  return r + a.x * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
