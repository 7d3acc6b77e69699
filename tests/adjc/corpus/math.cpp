// Corpus: math functions, float and double forms and std:: spellings.
#include <adjoint/ad.hpp>

#include <cmath>
#include <math.h>

#include "gradcheck.hpp"

using namespace gradcheck;

double f_exp(double x) { return exp(x) * x; }
double f_log(double x) { return log(x * x + 1) + std::log(x); }
double f_sqrt(double x) { return sqrt(x) + std::sqrt(x * 2); }
double f_tanh(double x) { return tanh(x * 2) * std::tanh(x); }
double f_pow(double x, double y) { return pow(x, y) + std::pow(x, 3.0); }
double f_sin_cos(double x) { return sin(x) * cos(x * 3) + std::sin(x) - std::cos(x); }
double f_fabs(double x, double y) { return fabs(x - y) * std::fabs(y); }
double f_fmax(double x, double y) { return fmax(x, y) * std::fmax(x * x, 0.3); }
double f_fmin(double x, double y) { return fmin(x, y * 2) + std::fmin(y, 0.1); }
double f_erf(double x) { return erf(x) + std::erf(x * 0.5); }
float f_expf(float x) { return expf(x) + std::exp(x * 0.5f); }
float f_logf(float x) { return logf(x) * std::log(x + 1.0f); }
float f_sqrtf_tanhf(float x) { return sqrtf(x) * tanhf(x); }
float f_powf(float x, float y) { return powf(x, y); }
float f_sinf_cosf(float x) { return sinf(x) + cosf(x) * std::sin(x); }
float f_fabsf_fmaxf(float x, float y) { return fabsf(x) * fmaxf(x, y) + fminf(x, y); }
float f_erff(float x) { return erff(x) * 2.0f; }
double gelu(double x) { return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
double softplus(double x) { return log(1 + exp(x)); }
double nested_math(double x) { return exp(sin(sqrt(x)) * log(x + 2)); }
// A local array element set by sqrt and never read again: the reverse has no copy of the array, so
// sqrt's derivative must not read the result back from it (it read 0 and gave NaN).
double unread_sqrt_row(const double* x) {
  double row[3];
  for (int i = 0; i < 3; i++) row[i] = sin(x[i]);
  row[1] = sqrt(1.5 + tanh(x[0] * x[2]));
  (void)row;
  return x[0] * x[1];
}
// u + y converges onto |.|'s kink from below and lands on 0 exactly (s - tanh(s) rounds to 0), then
// stays: du/dx = 0, du/dy = -y's last factor. With |x|' = 1 at 0 each landed step doubled u's adjoint;
// the doublings cancel in y's adjoint only up to rounding, 2^60 eps off here (fuzz seed 10445).
double kink_landing(double x, double y) {
  double u = x;
  for (int k = 0; k < 80; k++) {
    u += tanh(fabs(u + y));
    if (k == 20) y = y * 0.7;
  }
  return u * 0.3;
}
// Values that reach no result (dead code, an unused call result) have a zero adjoint: no reverse
// may run for them, as sqrt's partial there is NaN (b < -1.5) and NaN times zero is NaN.
double sqrt_in_dead_code(const double& a, const double& b) {
  if (b < 0.0) {
    double s = std::sin(std::sqrt(1.5 + b));
    s = s * a;
  }
  return a * b;
}
double dead_sqrt(double a, double b) {
  double unused = sqrt_in_dead_code(a, sqrt(1.5 + b));
  (void)unused;
  return sqrt_in_dead_code(a, b) + a;
}

TEST(Math, exp) { auto g = adjoint::gradient(f_exp); check("exp", g, f_exp, Scalar<double>{}); }
TEST(Math, log) { auto g = adjoint::gradient(f_log); check("log", g, f_log, Scalar<double>{0.5, 2}); }
TEST(Math, sqrt) { auto g = adjoint::gradient(f_sqrt); check("sqrt", g, f_sqrt, Scalar<double>{0.5, 2}); }
TEST(Math, tanh) { auto g = adjoint::gradient(f_tanh); check("tanh", g, f_tanh, Scalar<double>{}); }
TEST(Math, pow) { auto g = adjoint::gradient(f_pow); check("pow", g, f_pow, Scalar<double>{0.5, 2}, Scalar<double>{}); }
TEST(Math, sin_cos) { auto g = adjoint::gradient(f_sin_cos); check("sin_cos", g, f_sin_cos, Scalar<double>{}); }
TEST(Math, fabs) { auto g = adjoint::gradient(f_fabs); check("fabs", g, f_fabs, Scalar<double>{}, Scalar<double>{}); }
TEST(Math, fmax) { auto g = adjoint::gradient(f_fmax); check("fmax", g, f_fmax, Scalar<double>{}, Scalar<double>{}); }
TEST(Math, fmin) { auto g = adjoint::gradient(f_fmin); check("fmin", g, f_fmin, Scalar<double>{}, Scalar<double>{}); }
TEST(Math, erf) { auto g = adjoint::gradient(f_erf); check("erf", g, f_erf, Scalar<double>{}); }
TEST(Math, expf) { auto g = adjoint::gradient(f_expf); check("expf", g, f_expf, Scalar<float>{}); }
TEST(Math, logf) { auto g = adjoint::gradient(f_logf); check("logf", g, f_logf, Scalar<float>{0.5, 2}); }
TEST(Math, sqrtf_tanhf) { auto g = adjoint::gradient(f_sqrtf_tanhf); check("sqrtf_tanhf", g, f_sqrtf_tanhf, Scalar<float>{0.5, 2}); }
TEST(Math, powf) { auto g = adjoint::gradient(f_powf); check("powf", g, f_powf, Scalar<float>{0.5, 2}, Scalar<float>{}); }
TEST(Math, sinf_cosf) { auto g = adjoint::gradient(f_sinf_cosf); check("sinf_cosf", g, f_sinf_cosf, Scalar<float>{}); }
TEST(Math, fabsf_fmaxf) {
  auto g = adjoint::gradient(f_fabsf_fmaxf);
  check("fabsf_fmaxf", g, f_fabsf_fmaxf, Scalar<float>{}, Scalar<float>{});
}
TEST(Math, erff) { auto g = adjoint::gradient(f_erff); check("erff", g, f_erff, Scalar<float>{}); }
TEST(Math, gelu) { auto g = adjoint::gradient(gelu); check("gelu", g, gelu, Scalar<double>{-3, 3}); }
TEST(Math, softplus) { auto g = adjoint::gradient(softplus); check("softplus", g, softplus, Scalar<double>{-3, 3}); }
TEST(Math, nested_math) { auto g = adjoint::gradient(nested_math); check("nested_math", g, nested_math, Scalar<double>{0.5, 2}); }
TEST(Math, dead_sqrt) {
  check("dead_sqrt", adjoint::gradient(dead_sqrt), dead_sqrt, Scalar<double>{0.5, 2}, Scalar<double>{-3, -2});
}
TEST(Math, kink_landing) {
  check("kink_landing", adjoint::gradient(kink_landing), kink_landing, Scalar<double>{-3, -2}, Scalar<double>{0.5, 1});
}
TEST(Math, unread_sqrt_row) {
  check("unread_sqrt_row", adjoint::gradient(unread_sqrt_row), unread_sqrt_row, In<double>{3});
}
