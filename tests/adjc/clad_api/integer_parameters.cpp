// clad::differentiate naming an integer parameter: as in Clad's forward mode, its tangent is an
// integer (1) that flows through the integer arithmetic, locals and calls it reaches, truncating
// where C++ truncates (a quotient's tangent is (da*b - a*db) / (b*b) in integers). The numbers are
// Clad's rule worked by hand; a floating result of integers is checked against central
// differences too. Requests of floating parameters keep integers constants.
#include "clad/Differentiator/Differentiator.h"

#include "clad_style/check.hpp"

using clad_style::expect_value;

int cubic(int n) {
  int k = 2;
  return n * n * n + k * n;
}

int cubic_darg0(int n);  // declared, as Clad's users do, to call it by its name

int quotient(int n) { return n * n * n / (n + 1); }

int power(int base, int p) {
  if (p == 0) return 1;
  return base * power(base, p - 1);
}

double area(int w, double h) { return 0.5 * w * w * h; }

struct Tally {
  int step = 3;
  int next(int n) const { return step * n * n + cubic(n); }
};

int main() {
  auto defines_cubic_darg0 = clad::differentiate(cubic, 0);
  (void)defines_cubic_darg0;
  expect_value("d cubic / dn at 3 (3n^2 + 2)", cubic_darg0(3), 29);
  expect_value("d quotient / dn at 2 ((12*3 - 8*1) / 9, truncated)", clad::differentiate(quotient, "n").execute(2), 3);
  expect_value("d power / d base at (3, 3), through its recursion", clad::differentiate(power, "base").execute(3, 3),
               27);
  expect_value("d power / d p (p reaches only the branch and the count)", clad::differentiate(power, "p").execute(3, 3),
               0);
  expect_value("d area / dw at (4, 1.5)", clad::differentiate(area, "w").execute(4, 1.5), 6);
  double h = 1.5;
  clad_style::expect_gradient("d area / dh, w an integer constant", clad::differentiate(area, "h").execute(4, h), h,
                              [&] { return area(4, h); });
  Tally t;
  expect_value("d Tally::next / dn at 2 (2*3*2 + 3*4 + 2), through a call",
               clad::differentiate(&Tally::next, "n").execute(t, 2), 26);
  return clad_style::report();
}
