#include <adjoint/ad.hpp>
double f(double x) {
  double m[2][2];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) m[i][j] = x * (i + j);
  double s = 0;
  for (auto row : m) s += row[0] * row[1];  // error: a range-for taking the rows of 'double[2][2]' by value ('row', a pointer) is not supported; take them by reference: for (auto& row : ...)
  return s;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
