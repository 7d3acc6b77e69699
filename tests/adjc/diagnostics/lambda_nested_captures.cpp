#include <adjoint/ad.hpp>
double f(double x, double y) {
  auto outer = [&]() {
    auto product = [&]() { return x * y; };  // error: a lambda with captures inside another lambda with captures is not supported; pass it what it uses as parameters
    return product() * x;
  };
  return outer();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
