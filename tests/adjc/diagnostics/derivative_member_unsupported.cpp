// A function object differentiated along a data member (its operator() takes no parameters) whose
// class has a member pointing to numbers: the object's tangent would have no memory for it.
#include "clad/Differentiator/Differentiator.h"
struct Sum {
  double scale = 2;
  double* values = nullptr;
  double operator()() const { return scale * values[0]; }
};
int main() {
  Sum s;
  auto d = clad::differentiate(s, "scale");  // error: 'Sum' is differentiated along a data member (its operator() takes no parameters): a floating member or an element of a fixed-size array of them, in a class without members pointing to numbers; member 'values' has type 'double *'
  (void)d;
}
