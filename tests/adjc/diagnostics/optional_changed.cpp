#include <adjoint/ad.hpp>
#include <optional>
double f(double x, std::optional<int> factor) {  // error: parameter 'factor' of library class 'std::optional<int>' is changed, or used other than by const member functions, which is not supported; declare it const and read it by its const member functions (value_or(...), has_value())
  if (!factor) factor = 2;
  return x * factor.value_or(1);
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
