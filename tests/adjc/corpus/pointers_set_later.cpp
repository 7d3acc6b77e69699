// Corpus: pointers null where declared (a local pointer, or a local struct's pointer member null by
// its default initialiser) that a later statement of their block points at another local object or
// into a local array: from there on they read that object, and their adjoint is that object's
// adjoint (docs/adjc.md, "Pointers"). Against central differences.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace pointers_set_later {

struct Cell {
  double w = 0;
  Cell* prev = nullptr;
};
struct Window {
  const double* at = nullptr;
  double scale = 1;
};

// A struct's pointer member given another local struct of its type, read and written through.
double member_at_object(double x, double y) {
  Cell first;
  first.w = x * y;
  Cell second;
  second.prev = &first;
  second.prev->w *= y;
  second.w = std::sin(second.prev->w);
  return second.w * first.w + second.prev->w;
}

// The same in a loop's body: each iteration's structs, and its pointer, are new.
double in_loop_body(double x, double y) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    Cell a;
    a.w = x * i + y;
    Cell b;
    b.w = std::cos(y * i);
    b.prev = &a;
    s += b.prev->w * b.w;
  }
  return s;
}

// A pointer member given an element of a local array, then indexed.
double member_into_array(double x, double y) {
  double values[3] = {x, y, x * y};
  Window view;
  view.scale = x;
  view.at = &values[1];
  return view.at[0] * view.at[1] * view.scale;
}

// A local pointer, null at first, given a local struct; the pointer member passed to a function.
double weight(const Cell* c) { return c->w * c->w; }
double local_pointer_then_call(double x, double y) {
  Cell a{y, nullptr};
  Cell* p = nullptr;
  a.w *= x;
  p = &a;
  Cell b;
  b.prev = p;
  return p->w * x + weight(b.prev);
}

}  // namespace pointers_set_later

using namespace pointers_set_later;

TEST(PointersSetLater, member_at_object) {
  check("member_at_object", adjoint::gradient(member_at_object), member_at_object, Scalar<double>{}, Scalar<double>{});
}
TEST(PointersSetLater, in_loop_body) {
  check("in_loop_body", adjoint::gradient(in_loop_body), in_loop_body, Scalar<double>{}, Scalar<double>{});
}
TEST(PointersSetLater, member_into_array) {
  check("member_into_array", adjoint::gradient(member_into_array), member_into_array, Scalar<double>{},
        Scalar<double>{});
}
TEST(PointersSetLater, local_pointer_then_call) {
  check("local_pointer_then_call", adjoint::gradient(local_pointer_then_call), local_pointer_then_call,
        Scalar<double>{}, Scalar<double>{});
}
