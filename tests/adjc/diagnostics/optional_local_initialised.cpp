#include <adjoint/ad.hpp>
#include <optional>
double f(double x, int n) {
  std::optional<int> k = n;  // error: initialising local 'k' of library class 'std::optional<int>' is not supported; declare it without an initialiser, or keep the value it would hold in a number (int k_value = ...;) or a parameter
  return x * k.value_or(1);
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
