#include <adjoint/ad.hpp>
#include <vector>
struct Samples { std::vector<std::vector<double>> rows; double weight; };
double f(double x) {
  Samples s;  // error: local struct 's' of type 'Samples' is not supported: a local struct's members must be numbers, pointers, std::vectors of numbers, structs of them or arrays of them
  s.weight = x;
  return s.weight * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
