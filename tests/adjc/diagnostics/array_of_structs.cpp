#include <adjoint/ad.hpp>
struct Sample {
  double x, y;
  Sample() : x(1), y(2) {}
};
double f(double w) {
  Sample samples[2];  // error: local array of structs 'samples' of type 'Sample' is not supported: its members must be numbers, structs of numbers or arrays of them, and its default constructor the implicit one; use one array per member
  samples[0].x = w;
  samples[1].y = w * w;
  return samples[0].x * samples[1].y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
