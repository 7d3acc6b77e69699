#include <adjoint/ad.hpp>
#include <cstdarg>
// A C-variadic function that reads its `...` (va_start) has no derivative adjc can generate.
double sum_of(double first, int count, ...) {  // error: variadic function 'sum_of' reads its '...' arguments (va_start)
  va_list rest;
  va_start(rest, count);
  double s = first;
  for (int i = 0; i < count; ++i) s += va_arg(rest, double);
  va_end(rest);
  return s;
}
void request() { auto g = adjoint::gradient(sum_of, "first"); (void)g; }
