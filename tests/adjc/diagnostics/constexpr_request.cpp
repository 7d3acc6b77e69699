#include <adjoint/ad.hpp>
// A request in a constexpr function: the generated gradient runs only at run time, so a constant
// evaluation of the function would not compile. A constexpr function may itself be requested.
constexpr double prod(double a, double b) { return a * b; }
constexpr double d_wrt_a(double a, double b) {
  auto g = adjoint::gradient(prod);  // error: adjoint::gradient is requested in constexpr function 'd_wrt_a', which may run at compile time
  double da = 0, db = 0;
  g.execute(a, b, &da, &db);
  return da;
}
