#include <adjoint/ad.hpp>
struct Span {
  const double* first;
  const double* last;
  const double* begin() const { return first; }
  const double* end() const { return last; }
};
double f(const double* x) {
  Span s{x, x + 3};
  double r = 0;
  for (double v : s) r += v * v;  // error: a range-for over 'Span' is not supported; iterate over an array, a std::vector, a std::array or a braced list
  return r;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
