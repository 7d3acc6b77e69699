#include <adjoint/ad.hpp>
struct Position { double x; };
struct Particle : virtual Position { double mass; };
double energy(double v) {
  Particle p;  // error: local variable 'p' has type 'Particle': virtual base class 'Position' of 'Particle'
  p.x = v;
  p.mass = 2;
  return p.mass * p.x * p.x;
}
void request() { auto g = adjoint::gradient(energy); (void)g; }
