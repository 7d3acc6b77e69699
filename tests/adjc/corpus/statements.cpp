// Corpus: switch (case groups, default anywhere, fallthrough, labels inside blocks, in loops with
// continue and return), the comma operator as a statement and nested, casts between arithmetic
// types in every position, pointer casts that add const or give an address as an integer, return
// inside loops, and recursion.
#include <adjoint/ad.hpp>

#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "gradcheck.hpp"

using namespace gradcheck;

double switch_cases(double x, int k) {
  double r = 0;
  switch (k) {
    case 0: r = x * x; break;
    case 1:
    case 2: {
      double t = x * 3;
      r = t * x;
      break;
    }
    default: r = -x; break;
    case 3: return x * x * x;
  }
  return r * x;
}
// Cases falling through into the next (marked [[fallthrough]]), the default among them, in a loop
// with continue; and a switch whose body is one labelled statement.
double switch_fallthrough(const double* x, int n) {
  double s = 1;
  for (int i = 0; i < n; i++) {
    switch (i % 5) {
      case 0: s = s * x[i]; [[fallthrough]];
      case 1: s += x[i] * x[i]; break;
      case 2: s -= x[i]; [[fallthrough]];
      default: s = s * 0.5 + x[i]; [[fallthrough]];
      case 4:
        if (s > 100) continue;
        s *= x[i];
    }
    switch (i) case 2: s = s * s;
  }
  return s;
}
// Range-for over braced lists (std::initializer_list), by value and by const reference, in a loop.
double braced_ranges(double x, double y) {
  double s = 0;
  for (double e : {1., x, 2., y}) s += e * e * x;
  for (const auto& e : {x * y, y}) s *= e;
  for (int k = 0; k < 3; k++)
    for (double e : {x, y * k}) s += e * s;
  return s;
}
double switch_in_loop(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    switch (i % 4) {
      case 0: s += x[i] * x[i]; break;
      case 1: s *= x[i]; break;
      case 2: continue;
      default: s = s - x[i] * s;
    }
    s += 0.5 * x[i];
  }
  return s;
}
float switch_float(float x, int mode) {
  switch (mode + 1) {
    case 1: return x * x;
    case 2: return x * 2.0f;
  }
  return x;
}
double switch_return_in_loop(const double* x, int n) {
  double s = 1;
  for (int i = 0; i < n; i++) {
    switch (i) {
      case 3: return s * x[i];
      default: s = s * (1 + x[i]);
    }
  }
  return s;
}
double comma_statements(double x, double y) {
  double a, b;
  a = x * y, b = x + y;
  int i, j;
  for (i = 0, j = 3; i < j; i++, j--) a = a * b + 0.1;
  return a;
}
// A left operand of a comma that is itself a comma, and values dropped as statements.
double nested_commas(double x, double y) {
  (void)x;
  int k = 1;
  double a = (((void)x, ++k), x * y) * x;
  return ((void)a, ((void)y, x * a)) * k;
}
// Case labels inside blocks of the switch's body, and a statement before the first label (never run).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wswitch-unreachable"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
double switch_labels_in_blocks(double x, int k) {
  double r = 1;
  switch (k) {
    r = 100 * x;
    case 0:
      r = x;
      {
        case 1:
          r += x * x;
          {
            case 2:
              r *= x;
              break;
          }
      }
    case 3: {
      r -= x;
      case 4:
        r *= 3;
    }
  }
  return r * x;
}
#pragma GCC diagnostic pop
double arithmetic_casts(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < static_cast<int>(n); i++)
    s += x[static_cast<long>(i)] * static_cast<double>(i + 1) * double(x[i]) + (double)i;
  return s / double(n) + static_cast<long double>(x[0]) * 2;
}
float float_accumulates_in_double(const float* x, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) acc += static_cast<double>(x[i]) * x[i];
  return static_cast<float>(acc);
}
double pointer_casts(const double* x, int n) {
  const double* p = static_cast<const double*>(x);
  const bool aligned = reinterpret_cast<std::uintptr_t>(x) % alignof(double) == 0;
  double s = 0;
  for (int i = 0; i < n; i++) s += p[i] * (aligned ? 2.0 : 1.0);
  return s * s;
}
double return_in_loop(const double* x, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      if (x[i] * x[j] > 0.5) return x[i] * x[j];
  }
  return x[0];
}
double return_in_while(const double* x, int n) {
  double s = 0;
  int i = 0;
  while (i < n) {
    s = s * 0.5 + x[i];
    if (s > 1) return s * s;
    i++;
  }
  do {
    s = s * x[0];
    if (s < -0.1) return s;
  } while (false);
  return s + 1;
}
double recursive_power(double x, int n) {
  if (n == 0) return 1.0;
  return x * recursive_power(x, n - 1);
}
double tree_sum(const double* x, int lo, int hi) {
  if (hi - lo == 1) return x[lo] * x[lo];
  int mid = (lo + hi) / 2;
  return tree_sum(x, lo, mid) * tree_sum(x, mid, hi);
}

TEST(Statements, switch_fallthrough) {
  check("switch_fallthrough", adjoint::gradient(switch_fallthrough, "x"), switch_fallthrough, In<double>{8}, 8);
}
TEST(Statements, braced_ranges) {
  check("braced_ranges", adjoint::gradient(braced_ranges), braced_ranges, Scalar<double>{}, Scalar<double>{});
}
TEST(Statements, switch_cases) {
  for (int k = 0; k < 5; k++) check("switch_cases", adjoint::gradient(switch_cases, "x"), switch_cases, Scalar<double>{}, k);
}
TEST(Statements, switch_in_loop) {
  check("switch_in_loop", adjoint::gradient(switch_in_loop, "x"), switch_in_loop, In<double>{9}, 9);
}
TEST(Statements, switch_float) {
  for (int m = -1; m < 3; m++)
    check("switch_float", adjoint::gradient(switch_float, "x"), switch_float, Scalar<float>{}, m);
}
TEST(Statements, switch_return_in_loop) {
  check("switch_return_in_loop", adjoint::gradient(switch_return_in_loop, "x"), switch_return_in_loop,
        In<double>{6}, 6);
  check("switch_return_in_loop", adjoint::gradient(switch_return_in_loop, "x"), switch_return_in_loop,
        In<double>{3}, 3);
}
TEST(Statements, comma_statements) {
  check("comma_statements", adjoint::gradient(comma_statements), comma_statements, Scalar<double>{}, Scalar<double>{});
}
TEST(Statements, nested_commas) {
  check("nested_commas", adjoint::gradient(nested_commas), nested_commas, Scalar<double>{}, Scalar<double>{});
}
TEST(Statements, switch_labels_in_blocks) {
  for (int k = 0; k < 6; k++)
    check("switch_labels_in_blocks", adjoint::gradient(switch_labels_in_blocks, "x"), switch_labels_in_blocks,
          Scalar<double>{}, k);
}
TEST(Statements, arithmetic_casts) {
  check("arithmetic_casts", adjoint::gradient(arithmetic_casts, "x"), arithmetic_casts, In<double>{4}, 4);
  check("float_accumulates_in_double", adjoint::gradient(float_accumulates_in_double, "x"),
        float_accumulates_in_double, In<float>{4}, 4);
}
TEST(Statements, pointer_casts) {
  check("pointer_casts", adjoint::gradient(pointer_casts, "x"), pointer_casts, In<double>{3}, 3);
}
TEST(Statements, return_in_loop) {
  check("return_in_loop", adjoint::gradient(return_in_loop, "x"), return_in_loop, In<double>{4}, 4);
  check("return_in_loop", adjoint::gradient(return_in_loop, "x"), return_in_loop, In<double>{4, -0.3, 0.3}, 4);
  check("return_in_while", adjoint::gradient(return_in_while, "x"), return_in_while, In<double>{5, -1, 1}, 5);
  check("return_in_while", adjoint::gradient(return_in_while, "x"), return_in_while, In<double>{5, 0, 0.3}, 5);
}
TEST(Statements, recursion) {
  for (int n = 0; n < 5; n++) check("recursive_power", adjoint::gradient(recursive_power, "x"), recursive_power, Scalar<double>{}, n);
  check("tree_sum", adjoint::gradient(tree_sum, "x"), tree_sum, In<double>{7}, 0, 7);
}

// Checks and messages in differentiated code: assert (a void `c ? (void)0 : __assert_fail(...)`
// unless NDEBUG), a void conditional calling a library function, printf, and void casts. They run
// in the forward sweep only.
#undef NDEBUG
#include <cassert>
double checked(const double* x, int n) {
  assert(n > 0 && "at least one element");
  double s = 0;
  for (int i = 0; i < n; i++) {
    assert(std::isfinite(x[i]));
    s += x[i] * x[i];
  }
  s > 1e300 ? (void)std::fprintf(stderr, "overflow in checked: %g\n", s) : void(0);
  if (s < 0) std::printf("impossible: %s %d\n", __func__, n);
  (void)0;
  return std::sqrt(s);
}
TEST(Statements, asserts_and_messages) {
  auto g = adjoint::gradient(checked, "x");
  check("checked", g, checked, In<double>{4}, 4);
}
