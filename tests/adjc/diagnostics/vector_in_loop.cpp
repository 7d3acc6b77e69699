#include <adjoint/ad.hpp>
#include <vector>
double f(const double* x, int n) {
  double s = 0;
  for (int r = 0; r < 3; r++) {
    std::vector<double> row(n);  // error: std::vector 'row' declared inside a loop is not supported; declare it before the loop and write its elements in the loop
    for (int i = 0; i < n; i++) row[i] = x[i] * (r + 1);
    for (int i = 0; i < n; i++) s += row[i] * row[i];
  }
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
