// Corpus: a pointer (a local, or a pointer parameter) given another array by a statement of the
// block that declares it (`q = x;`), then walked: from there on it is a new local pointer into that
// array, whose adjoint walks the array's adjoint in step (docs/adjc.md, "Pointers"). Against central
// differences.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace retargeted_pointers {

// Both parameters moved: y read before and after it is pointed at x, x stepped from its start.
double swap_and_walk(const double* x, const double* y) {
  double s = y[2] * y[0];
  y = x;
  x = 1 + x;
  ++y;
  s += x[0] * std::sin(y[0]);
  y++;
  x++;
  s += x[0] * y[0];
  y--;
  --x;
  s += std::exp(x[0]) + y[-1];
  return s;
}

// A local pointer walking one array, then given the other and walked again in a loop.
double two_arrays_in_turn(const double* a, const double* b, int n) {
  const double* p = a + 1;
  double s = 0;
  for (int i = 0; i < n - 1; i++) {
    s += p[0] * p[-1];
    p = p + 1;
  }
  p = b;
  for (int i = 0; i < n; i++) {
    s += std::cos(*p) * a[i];
    ++p;
  }
  return s;
}

// Written through: the retargeted pointer's writes reach its new array (a local), whose adjoint it
// shares.
double write_through_retargeted(const double* x, int n) {
  double buffer[4] = {0, 0, 0, 0};
  double other[4] = {1, 1, 1, 1};
  double* w = other;
  w[1] = x[0] * x[1];
  w = buffer;
  for (int i = 0; i < n; i++) {
    *w = x[i] * x[i] + other[1];
    w++;
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += buffer[i] * x[(i + 1) % n];
  return s;
}

// In a nested block that declares the pointer: each pass of the loop gives it its row again.
double per_iteration(const double* m, const double* v, int rows) {
  double s = 0;
  for (int r = 0; r < rows; r++) {
    const double* row = v;
    s += row[r] * row[0];
    row = m + 3 * r;
    s += row[0] * row[1] + row[2] * v[r];
  }
  return s;
}

TEST(RetargetedPointers, ParametersSwappedAndWalked) {
  check("swap_and_walk", adjoint::gradient(swap_and_walk), swap_and_walk, In<double>{5}, In<double>{5});
}

TEST(RetargetedPointers, LocalGivenTheOtherArray) {
  check("two_arrays_in_turn", adjoint::gradient(two_arrays_in_turn, "a, b"), two_arrays_in_turn, In<double>{4},
        In<double>{4}, 4);
}

TEST(RetargetedPointers, WritesThroughTheNewArray) {
  check("write_through_retargeted", adjoint::gradient(write_through_retargeted, "x"), write_through_retargeted,
        In<double>{4}, 4);
}

TEST(RetargetedPointers, InALoopBody) {
  check("per_iteration", adjoint::gradient(per_iteration, "m, v"), per_iteration, In<double>{9}, In<double>{3}, 3);
}

}  // namespace retargeted_pointers
