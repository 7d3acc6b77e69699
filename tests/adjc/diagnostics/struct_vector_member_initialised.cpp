#include <adjoint/ad.hpp>
#include <vector>
struct Samples {
  std::vector<double> values = std::vector<double>(3, 1.0);
  double weight;
};
double f(double x) {
  Samples s;  // error: initialising std::vector member 'values' of local struct 's' other than empty is not supported; fill it after the declaration (push_back, resize)
  s.weight = x;
  return s.weight * s.values[0];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
