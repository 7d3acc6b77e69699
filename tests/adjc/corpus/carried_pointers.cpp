// Corpus: structs with pointer members used as values (results, local objects, arrays of them, a
// by-value parameter the body changes), whose pointer members are only carried along (null, or
// pointing at a parameter's array) while the derivative flows through the number members; a split
// struct's pointer member copied with the struct.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace carried_pointers {

struct Tagged {
  double v;
  const double* origin;
  double twice() const { return 2 * v; }
};
Tagged tag(double a) { return {a * a, nullptr}; }
Tagged tag_at(const double* p, int k) { return {std::sin(p[k]), p + k}; }

struct Link {
  Link* next = nullptr;
  double w = 0;
};
struct Pair {
  Tagged a, b;
};

double result_member(double x, double y) { return tag(x).v * y + tag(y).twice(); }

double local_object(double x, double y) {
  Tagged t{x * y, nullptr};
  Tagged* p = &t;
  return (*p).twice() * x + t.v;
}

double origin_carried(const double* p, double x) {
  Tagged t = tag_at(p, 1);
  Tagged u = t;
  u.v *= x;
  u.origin = t.origin;
  return u.twice() + t.v * p[2];
}

double in_loop(const double* p, double x) {
  double s = 0;
  Tagged t{x, p};
  for (int i = 0; i < 3; ++i) {
    t = tag(t.v * 0.5 + p[i]);
    s += t.twice() * x;
  }
  return s;
}

double linked(double x, double y) {
  Link a;
  a.w = x;
  Link b{&a, y};
  Link c = b;
  c.w *= a.w;
  c.next = b.next;
  return c.w + b.w * a.w;
}

double array_and_nested(double x, double y) {
  Tagged ts[2] = {{x, nullptr}, tag(y)};
  Pair q{ts[1], {x * y, nullptr}};
  q.a.v += ts[0].v;
  return q.a.twice() * q.b.v;
}

double scaled(Tagged t, double k) {
  t.v *= k;
  return t.twice();
}
double changed_copy(double x, double k) { return scaled({x, nullptr}, k) * x; }

// A struct used through its members only (split): its pointer member is a local pointer, which a
// copy of the struct shares.
struct Target {
  double* at;
  double k;
};
double split_copy(double x, double y) {
  double a = x;
  Target s{&a, y};
  Target t = s;
  *t.at *= t.k;
  return a * y;
}

}  // namespace carried_pointers

using namespace carried_pointers;

TEST(CarriedPointers, result_member) {
  check("result_member", adjoint::gradient(result_member), result_member, Scalar<double>{}, Scalar<double>{});
}
TEST(CarriedPointers, local_object) {
  check("local_object", adjoint::gradient(local_object), local_object, Scalar<double>{}, Scalar<double>{});
}
TEST(CarriedPointers, origin_carried) {
  check("origin_carried", adjoint::gradient(origin_carried), origin_carried, In<double>{3}, Scalar<double>{});
}
TEST(CarriedPointers, in_loop) {
  check("in_loop", adjoint::gradient(in_loop), in_loop, In<double>{3}, Scalar<double>{});
}
TEST(CarriedPointers, linked) { check("linked", adjoint::gradient(linked), linked, Scalar<double>{}, Scalar<double>{}); }
TEST(CarriedPointers, array_and_nested) {
  check("array_and_nested", adjoint::gradient(array_and_nested), array_and_nested, Scalar<double>{}, Scalar<double>{});
}
TEST(CarriedPointers, split_copy) {
  check("split_copy", adjoint::gradient(split_copy), split_copy, Scalar<double>{}, Scalar<double>{});
}
TEST(CarriedPointers, changed_copy) {
  check("changed_copy", adjoint::gradient(changed_copy), changed_copy, Scalar<double>{}, Scalar<double>{});
}
