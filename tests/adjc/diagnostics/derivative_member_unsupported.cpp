// A function object differentiated along a data member (its operator() takes no parameters) that
// points to numbers, without naming one of them: the derivative is along one number.
#include "clad/Differentiator/Differentiator.h"
struct Sum {
  double scale = 2;
  double* values = nullptr;
  double operator()() const { return scale * values[0]; }
};
int main() {
  Sum s;
  auto d = clad::differentiate(s, "values");  // error: 'Sum' is differentiated along a data member (its operator() takes no parameters): a floating member or an element of a fixed-size array of them or of a pointer to them; member 'values' has type 'double *'
  (void)d;
}
