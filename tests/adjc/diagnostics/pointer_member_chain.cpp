#include <adjoint/ad.hpp>
// A chain of pointer members through local objects (`a.prev->prev->w`): `b`, whose address is
// taken, is an object in memory, and the reverse sweep's copy of its pointer member would not
// point at the reverse sweep's `c`.
struct Cell {
  double w = 0;
  Cell* prev = nullptr;
};
double f(double x) {
  Cell c;
  c.w = x;
  Cell b;
  b.prev = &c;
  Cell a;
  a.prev = &b;
  return a.prev->prev->w * x;  // error: pointer member 'prev' is read here, but local object 'c' (line 10) has one, whose pointer members adjc only carries along (its adjoint's are null); pass the pointer as an argument instead
}
void request() { auto g = adjoint::gradient(f); (void)g; }
