// Member functions with every qualifier Clad's member-function tests use (const, volatile, &, &&,
// noexcept), one returning a reference to a member it writes, and ++ on the object.
#include <adjoint/ad.hpp>

#include <string>

#include "check.hpp"

using clad_style::expect_gradient;

class SimpleFunctions {
 public:
  double x, y;
  double mem_fn(double i, double j) { return (x + y) * i + i * j; }
  double const_mem_fn(double i, double j) const { return (x + y) * i + i * j; }
  double volatile_mem_fn(double i, double j) volatile { return (x + y) * i + i * j; }
  double lval_ref_mem_fn(double i, double j) & { return (x + y) * i + i * j; }
  double const_lval_ref_mem_fn(double i, double j) const& { return (x + y) * i + i * j; }
  double rval_ref_mem_fn(double i, double j) && { return (x + y) * i + i * j; }
  double noexcept_mem_fn(double i, double j) noexcept { return (x + y) * i * i + i * j; }
  double& ref_mem_fn(double i) {
    x = +i;
    x = -i * x;
    return x;
  }
  SimpleFunctions& operator++() {
    x += 1.0;
    return *this;
  }
};

double uses_increment(double a, double b) {
  SimpleFunctions s{a, b};
  ++s;
  ++s;
  return s.x * s.y;
}

double uses_reference_result(double a, double b) {
  SimpleFunctions s{a, b};
  double r = s.ref_mem_fn(b);
  return r * s.y + s.x;
}

int main() {
  SimpleFunctions s{2, 3};
  double i = 0.75, j = -1.5;
  auto check_pair = [&](const char* name, auto request, auto f) {
    double di = 0, dj = 0;
    request.execute(&s, i, j, &di, &dj);
    expect_gradient((std::string(name) + " / di").c_str(), di, i, [&] { return f(i, j); });
    expect_gradient((std::string(name) + " / dj").c_str(), dj, j, [&] { return f(i, j); });
  };
  check_pair("mem_fn", adjoint::gradient(&SimpleFunctions::mem_fn), [&](double a, double b) { return s.mem_fn(a, b); });
  check_pair("const_mem_fn", adjoint::gradient(&SimpleFunctions::const_mem_fn),
             [&](double a, double b) { return s.const_mem_fn(a, b); });
  check_pair("volatile_mem_fn", adjoint::gradient(&SimpleFunctions::volatile_mem_fn),
             [&](double a, double b) { return s.volatile_mem_fn(a, b); });
  check_pair("lval_ref_mem_fn", adjoint::gradient(&SimpleFunctions::lval_ref_mem_fn),
             [&](double a, double b) { return s.lval_ref_mem_fn(a, b); });
  check_pair("const_lval_ref_mem_fn", adjoint::gradient(&SimpleFunctions::const_lval_ref_mem_fn),
             [&](double a, double b) { return s.const_lval_ref_mem_fn(a, b); });
  check_pair("rval_ref_mem_fn", adjoint::gradient(&SimpleFunctions::rval_ref_mem_fn),
             [&](double a, double b) { return SimpleFunctions{s}.rval_ref_mem_fn(a, b); });
  check_pair("noexcept_mem_fn", adjoint::gradient(&SimpleFunctions::noexcept_mem_fn),
             [&](double a, double b) { return s.noexcept_mem_fn(a, b); });

  double di = 0;
  SimpleFunctions ds{};
  adjoint::gradient(&SimpleFunctions::ref_mem_fn, "this, i").execute(&s, i, &ds, &di);
  expect_gradient("ref_mem_fn / di", di, i, [&] {
    SimpleFunctions t = s;
    return t.ref_mem_fn(i);
  });

  double a = 1.25, b = -0.5, da = 0, db = 0;
  adjoint::gradient(uses_increment).execute(a, b, &da, &db);
  expect_gradient("uses_increment / da", da, a, [&] { return uses_increment(a, b); });
  expect_gradient("uses_increment / db", db, b, [&] { return uses_increment(a, b); });
  da = db = 0;
  adjoint::gradient(uses_reference_result).execute(a, b, &da, &db);
  expect_gradient("uses_reference_result / da", da, a, [&] { return uses_reference_result(a, b); });
  expect_gradient("uses_reference_result / db", db, b, [&] { return uses_reference_result(a, b); });
  return clad_style::report();
}
