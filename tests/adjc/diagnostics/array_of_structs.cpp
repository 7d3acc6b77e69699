#include <adjoint/ad.hpp>
struct Sample {
  double x, y;
};
double f(double w) {
  Sample samples[2];  // error: local array of structs 'samples' is not supported; use one array per member
  samples[0].x = w;
  samples[1].y = w * w;
  return samples[0].x * samples[1].y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
