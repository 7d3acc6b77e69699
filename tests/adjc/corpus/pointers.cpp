// Corpus: arrays and pointers: indexing, pointer arithmetic, const inputs, outputs written
// through pointers, in-place updates, local arrays, references, arrays by reference, rows, and
// local pointers to variables, and parameters of rows of constants (`const double* const*`).
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
void scale(double* out, const double* x, double c, int n) {
  for (int i = 0; i < n; i++) out[i] = c * x[i];
}
void axpy_inplace(double* y, const double* x, double a, int n) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}
void square_inplace(double* x, int n) {
  for (int i = 0; i < n; i++) x[i] = x[i] * x[i];
}
void matvec(double* out, const double* w, const double* x, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    const double* row = w + r * cols;
    double s = 0;
    for (int c = 0; c < cols; c++) s += row[c] * x[c];
    out[r] = s;
  }
}
void row_pointer_out(double* out, const double* x, int B, int C) {
  for (int b = 0; b < B; b++) {
    double* o = out + b * C;
    const double* in = x + b * C;
    for (int c = 0; c < C; c++) o[c] = in[c] * in[(c + 1) % C];
  }
}
double deref(const double* x) { return *x * *(x + 1) + x[2]; }
double address_of(const double* x) {
  const double* p = &x[1];
  return p[0] * p[1];
}
double pointer_walk(const double* x, int n) {
  const double* p = x;
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += *p * *p;
    p = p + 1;
  }
  return s;
}
double local_array(const double* x) {
  double buf[3];
  for (int i = 0; i < 3; i++) buf[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < 3; i++) s += buf[i] * buf[(i + 1) % 3];
  return s;
}
void reference_out(double& y, double x) { y = x * x * 3; }
double reference_in(const double& x, double y) { return x * y; }
void running_sum(double* x, int n) {
  for (int i = 1; i < n; i++) x[i] = x[i] + x[i - 1] * x[i];
}
double index_array(const double* x, const int* idx, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[idx[i]] * x[i];
  return s;
}
void two_outputs(double* a, double* b, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * 2;
    b[i] = a[i] * x[i];
  }
}

static const int kIdx[5] = {4, 3, 2, 1, 0};

// A pointer declared and never used needs no initialiser.
double unused_pointer(double x) {
  [[maybe_unused]] double *p, y = x * x;
  return y * x;
}

TEST(Pointers, dot) { auto g = adjoint::gradient(dot, "a,b"); check("dot", g, dot, In<double>{5}, In<double>{5}, 5); }
TEST(Pointers, dot_one_side) { auto g = adjoint::gradient(dot, "a"); check("dot", g, dot, In<double>{5}, Const<double>{5}, 5); }
TEST(Pointers, scale) {
  auto g = adjoint::gradient(scale, "out,x,c");
  check("scale", g, scale, Out<double>{4}, In<double>{4}, Scalar<double>{}, 4);
}
TEST(Pointers, axpy_inplace) {
  auto g = adjoint::gradient(axpy_inplace);
  check("axpy_inplace", g, axpy_inplace, InOut<double>{4}, In<double>{4}, Scalar<double>{}, 4);
}
TEST(Pointers, square_inplace) {
  auto g = adjoint::gradient(square_inplace);
  check("square_inplace", g, square_inplace, InOut<double>{5}, 5);
}
TEST(Pointers, matvec) {
  auto g = adjoint::gradient(matvec);
  check("matvec", g, matvec, Out<double>{3}, In<double>{12}, In<double>{4}, 3, 4);
}
TEST(Pointers, row_pointer_out) {
  auto g = adjoint::gradient(row_pointer_out);
  check("row_pointer_out", g, row_pointer_out, Out<double>{6}, In<double>{6}, 2, 3);
}
TEST(Pointers, deref) { auto g = adjoint::gradient(deref); check("deref", g, deref, In<double>{3}); }
TEST(Pointers, address_of) { auto g = adjoint::gradient(address_of); check("address_of", g, address_of, In<double>{3}); }
TEST(Pointers, pointer_walk) { auto g = adjoint::gradient(pointer_walk, "x"); check("pointer_walk", g, pointer_walk, In<double>{5}, 5); }
TEST(Pointers, local_array) { auto g = adjoint::gradient(local_array); check("local_array", g, local_array, In<double>{3}); }
TEST(Pointers, reference_out) {
  double y = 0, dy = 0.7, dx = 0;
  auto g = adjoint::gradient(reference_out);
  g.execute(y, 1.5, &dy, &dx);
  EXPECT_DOUBLE_EQ(y, 6.75);
  EXPECT_NEAR(dx, 0.7 * 6 * 1.5, 1e-12);
  EXPECT_EQ(dy, 0.0);  // the output's adjoint is consumed
}
TEST(Pointers, reference_in) {
  double dx = 0, dy = 0;
  auto g = adjoint::gradient(reference_in);
  g.execute(2.0, 3.0, &dx, &dy);
  EXPECT_DOUBLE_EQ(dx, 3.0);
  EXPECT_DOUBLE_EQ(dy, 2.0);
}
TEST(Pointers, running_sum) { auto g = adjoint::gradient(running_sum); check("running_sum", g, running_sum, InOut<double>{5}, 5); }
TEST(Pointers, index_array) {
  auto g = adjoint::gradient(index_array, "x");
  check("index_array", g, index_array, In<double>{5}, Fixed<const int*>{kIdx}, 5);
}
TEST(Pointers, two_outputs) {
  auto g = adjoint::gradient(two_outputs);
  check("two_outputs", g, two_outputs, Out<double>{3}, Out<double>{3}, In<double>{3}, 3);
}

double local_array_in_loop(const double* x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double pair[2];
    pair[0] = x[i] * x[i + 1];
    pair[1] = pair[0] * x[i];
    s += pair[1] * pair[0];
  }
  return s;
}

TEST(Pointers, local_array_in_loop) {
  auto g = adjoint::gradient(local_array_in_loop, "x");
  check("local_array_in_loop", g, local_array_in_loop, In<double>{5}, 5);
}

// Pointer parameters moved through their arrays (Clad's pointer tests walk arrays this way): the
// body works on a local copy of the pointer.
double walk_stride(const double* a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += a[0] * a[0] * (i + 1);
    a = a + 1;
  }
  return s;
}
void scaled_copy(double* out, const double* in, int n) {
  for (int i = 0; i < n; i++) {
    *out = std::sin(*in) * 2.0;
    ++out;
    in += 1;
  }
}
double pairs(const double* a, int n) {
  double s = 0;
  while (n > 1) {
    s += a[0] * a[1];
    a += 2;
    n -= 2;
  }
  return s;
}

double sum_postfix(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += *x++ * (i + 1.0);
  return s * s;
}

TEST(Pointers, moved_parameters) {
  check("sum_postfix", adjoint::gradient(sum_postfix, "x"), sum_postfix, In<double>{4}, 4);
  check("walk_stride", adjoint::gradient(walk_stride, "a"), walk_stride, In<double>{4}, 4);
  check("scaled_copy", adjoint::gradient(scaled_copy, "out, in"), scaled_copy, Out<double>{3}, In<double>{3}, 3);
  check("pairs", adjoint::gradient(pairs, "a"), pairs, In<double>{6}, 6);
}

// Arrays by reference and rows by pointer: `double (&a)[3]` and `double (&m)[2][2]` take the
// adjoint of the array by pointer (`double (*_d_a)[3]`), `double m[][2]` rows like the array.
double array_reference(double (&a)[3]) { return a[0] * a[1] + a[2] * a[2]; }
double passes_array(double x) {
  double v[3] = {x, 2 * x, 1};
  return array_reference(v) * x;
}
double row_pointer(double m[][2], int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += m[i][0] * m[i][1] * m[i][1];
  return s;
}
double determinant(const double (&m)[2][2]) { return m[0][0] * m[1][1] - m[0][1] * m[1][0]; }
TEST(Pointers, array_parameters) {
  double a[3] = {0.5, -1.25, 2.0}, d_a[3] = {};
  adjoint::gradient(array_reference).execute(a, &d_a);
  EXPECT_NEAR(d_a[0], a[1], 1e-12);
  EXPECT_NEAR(d_a[1], a[0], 1e-12);
  EXPECT_NEAR(d_a[2], 2 * a[2], 1e-12);
  check("passes_array", adjoint::gradient(passes_array), passes_array, Scalar<double>{});
  double m[3][2] = {{0.5, -1}, {1.5, 2}, {-0.25, 0.75}}, d_m[3][2] = {};
  adjoint::gradient(row_pointer, "m").execute(m, 3, d_m);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(d_m[i][0], m[i][1] * m[i][1], 1e-12);
    EXPECT_NEAR(d_m[i][1], 2 * m[i][0] * m[i][1], 1e-12);
  }
  double square[2][2] = {{m[0][0], m[0][1]}, {m[1][0], m[1][1]}}, d_det[2][2] = {};
  adjoint::gradient(determinant).execute(square, &d_det);
  EXPECT_NEAR(d_det[0][0], m[1][1], 1e-12);
  EXPECT_NEAR(d_det[1][1], m[0][0], 1e-12);
  EXPECT_NEAR(d_det[0][1], -m[1][0], 1e-12);
  EXPECT_NEAR(d_det[1][0], -m[0][1], 1e-12);
}

// A local pointer to a variable of numbers, used only as `*p` (braced or not, to an integer loop
// counter too): the variable itself.
double pointers_to_variables(double x, int n) {
  double s = 0;
  double* p{&s};
  for (int i = 0; i < n; ++i) {
    int* k = &i;
    *p += x * *k;
  }
  double y = x;
  double* q = &y;
  *q *= 2;
  return *p * *q + std::sin(*q);
}

TEST(Pointers, pointers_to_variables) {
  check("pointers_to_variables", adjoint::gradient(pointers_to_variables, "x"), pointers_to_variables,
        Scalar<double>{}, 4);
}
TEST(Pointers, unused_pointer) {
  check("unused_pointer", adjoint::gradient(unused_pointer), unused_pointer, Scalar<double>{});
}

// Rows of constants (`const double* const*`): data without derivative, read directly and passed
// row by row to a callee; the gradient is a's.
double weighted_row_sum(const double* row, const double* a, int n) {
  double s = 0;
  for (int j = 0; j < n; j++) s += row[j] * std::sin(a[j]);
  return s;
}
double rows_of_constants(const double* const* rows, const double* a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += rows[i][i] * a[i] * a[i] + weighted_row_sum(rows[i], a, n) * a[i];
  return s;
}

TEST(Pointers, rows_of_constants) {
  double r0[3] = {1, 2, -0.5}, r1[3] = {3, -4, 0.25}, r2[3] = {0.5, 1.5, 2};
  double* rows[3] = {r0, r1, r2};  // double** converts to const double* const*
  double a[3] = {0.5, -1.5, 0.75}, d_a[3] = {};
  adjoint::gradient(rows_of_constants, "a").execute(rows, a, 3, d_a);
  for (int k = 0; k < 3; k++) {
    const double h = 1e-6, keep = a[k];
    a[k] = keep + h;
    const double up = rows_of_constants(rows, a, 3);
    a[k] = keep - h;
    const double down = rows_of_constants(rows, a, 3);
    a[k] = keep;
    EXPECT_NEAR(d_a[k], (up - down) / (2 * h), 1e-6) << "a[" << k << "]";
  }
}
