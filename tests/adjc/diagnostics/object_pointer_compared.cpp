#include <adjoint/ad.hpp>
// A pointer member of a local object compared: the reverse sweep's objects are not at the
// forward's addresses, so the comparison would not give what it gave in the forward.
struct Link {
  Link* next;
  double w;
  double weight() const { return w; }
};
double f(double x, double y) {
  Link a{nullptr, x};
  Link b{&a, y};
  double s = b.weight() * a.weight();
  return b.next == &a ? s : y;  // error: pointer member 'next' is read here, but local object 'a' (line 10) has one, whose pointer members adjc only carries along (its adjoint's are null); pass the pointer as an argument instead
}
void request() { auto g = adjoint::gradient(f); (void)g; }
