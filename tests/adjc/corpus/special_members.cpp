// Corpus: structs with special members of the user's own. A destructor whose body has no effect,
// copy and move constructors that initialise each member from the source's (a move resetting the
// source's members, where the source is not read again: an implicit move on `return t;`, a
// temporary, `std::move` of a local or parameter by value never read afterwards), a deleted move
// constructor (results returned by copy), a default constructor of the user's that does not zero;
// and a copy constructor that does more than copy members (`value(2 * o.value)`) where C++17 elides
// the copy (an init-capture `[v = CopyValue(x)]`), so that it never runs. Each gradient against
// central differences (the doubling copy constructor would be a factor of 4 off).
#include <adjoint/ad.hpp>

#include <cmath>
#include <utility>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace special_members {

// An empty destructor: as the compiler's.
struct Box {
  double value;
  ~Box() {}
  double get() const { return value; }
};
Box make_box(double x) { return {x * x}; }
double temporary_method(double x) { return make_box(x).get(); }

// Boxes overwritten in a loop: taped whole (as their bytes, no constructor runs).
double box_loop(double x, double y) {
  Box b = make_box(x);
  double sum = 0;
  for (int i = 0; i < 3; ++i) {
    b = make_box(b.get() * y + 0.5);
    sum += std::sin(b.get());
  }
  return sum;
}

// A local array of Boxes overwritten in a loop: taped whole, as bytes.
double box_array(double x) {
  Box b[3] = {{x}, {x * 2}, {x * 3}};
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    b[i].value = std::sin(b[i].value) * x;
    s += b[i].get() * b[i].value;
  }
  for (int i = 0; i < 3; ++i) {
    b[i].value = b[i].value * b[i].value;
    s += b[i].value;
  }
  return s;
}

// A move constructor that copies the members and resets the source's; the compiler gives it no
// assignment, so generated code assigns by copies.
struct S {
  double x;
  S() : x(0) {}
  S(double px) : x(px) {}
  S(const S&) = default;
  S(S&& other) noexcept : x(other.x) { other.x = 0; }
  S operator+(const S& other) const {
    S res(x + other.x);
    return res;  // NRVO or the implicit move: either is a copy of x
  }
};
struct M {
  S f(const S& a, const S& b) const {
    auto t = a + b;
    return t;
  }
};
double implicit_move_return(const M& m, const S& a, const S& b) {
  auto y = m.f(a, b);
  return y.x * a.x;
}

// A move of a parameter by value that is not read again, with a pointer member carried along.
struct P {
  double x;
  double* p;
  P() : x(0), p(nullptr) {}
  P(double px) : x(px), p(nullptr) {}
  P(const P&) = default;
  P& operator=(const P&) = default;
  P(P&& other) noexcept : x(other.x), p(other.p) {
    other.x = 0;
    other.p = nullptr;
  }
};
struct N {
  P g(P v) const { return P(std::move(v)); }
};
double move_return_expression(double x) {
  N n;
  auto y = n.g(P(x * x));
  return y.x * x;
}

// `std::move` of a local never read afterwards, and a copy (the copy constructor is the compiler's).
double keep(P q) { return std::exp(q.x); }
double moved_local(double x, double y) {
  P a(x * y);
  P b(a.x + y);
  double first = keep(a);
  double second = keep(std::move(b));
  return first + second * a.x;
}

// A copy constructor and destructor of the user's that copy members and do nothing; a default
// constructor that does not zero (an adjoint of Cell is zeroed byte-wise).
struct Cell {
  double v, w;
  Cell() : v(1), w(2) {}
  Cell(double a, double b) : v(a), w(b) {}
  Cell(const Cell& o) : v(o.v), w(o.w) {}
  ~Cell() { ; }
};
Cell swap_scaled(Cell c, double k) { return Cell(c.w * k, c.v); }
double copied_cells(double x, double y) {
  Cell a(x, y);
  Cell b = a;
  Cell c = swap_scaled(b, x);
  return c.v * c.w + a.v;
}

// A deleted move constructor: results are returned by copy.
struct CopyOnly {
  double value = 0;
  double* storage = nullptr;
  CopyOnly() = default;
  explicit CopyOnly(double x) : value(x) {}
  CopyOnly(const CopyOnly&) = default;
  CopyOnly(CopyOnly&&) = delete;
  double read() const { return value; }
};
CopyOnly make_copy_only(double x) { return CopyOnly(x * x); }
double copy_only(double x) { return make_copy_only(x).read() * x; }

// A copy constructor that doubles: never run where C++17 elides the copy.
struct CopyValue {
  double value;
  CopyValue() : value(0) {}
  CopyValue(double x) : value(x) {}
  CopyValue(const CopyValue& other) : value(other.value * 2) {}
};
double elided_copy_capture(double x) {
  auto inner = [v = CopyValue(x)] { return v.value * v.value; };
  double value = inner();
  return value * value;
}
double mutable_record(double x) {
  auto inner = [v = CopyValue(x)]() mutable {
    v.value *= 2;
    return v.value * v.value;
  };
  double first = inner();
  return first + inner();
}
double nested_record_snapshot(double x) {
  auto outer = [&x] {
    auto inner = [v = CopyValue(x)]() mutable {
      v.value *= 2;
      return v.value * v.value;
    };
    x *= 2;
    return inner();
  };
  double first = outer();
  return first + outer();
}
double local_record(double x) {
  CopyValue v(x);  // built in place: no copy
  v.value *= x;
  const CopyValue& r = v;
  return r.value * std::cos(v.value);
}

}  // namespace special_members

using namespace special_members;

TEST(SpecialMembers, empty_destructor) {
  check("temporary_method", adjoint::gradient(temporary_method), temporary_method, Scalar<double>{});
  check("box_loop", adjoint::gradient(box_loop), box_loop, Scalar<double>{}, Scalar<double>{});
  check("box_array", adjoint::gradient(box_array), box_array, Scalar<double>{});
}

TEST(SpecialMembers, implicit_move_return) {
  // Against central differences in a.x (a struct parameter).
  M m;
  for (double ax : {1.5, -0.7}) {
    S a(ax), b(2.5), da;
    adjoint::gradient(implicit_move_return, "a").execute(m, a, b, &da);
    const double h = 1e-6;
    S up(ax + h), down(ax - h);
    const double fd = (implicit_move_return(m, up, b) - implicit_move_return(m, down, b)) / (2 * h);
    EXPECT_NEAR(da.x, fd, 1e-6 * std::fmax(1.0, std::fabs(fd)));
  }
}

TEST(SpecialMembers, resetting_moves) {
  check("move_return_expression", adjoint::gradient(move_return_expression), move_return_expression,
        Scalar<double>{});
  check("moved_local", adjoint::gradient(moved_local), moved_local, Scalar<double>{}, Scalar<double>{});
}

TEST(SpecialMembers, member_copies) {
  check("copied_cells", adjoint::gradient(copied_cells), copied_cells, Scalar<double>{}, Scalar<double>{});
  check("copy_only", adjoint::gradient(copy_only), copy_only, Scalar<double>{});
}

TEST(SpecialMembers, elided_copies) {
  check("elided_copy_capture", adjoint::gradient(elided_copy_capture), elided_copy_capture, Scalar<double>{});
  check("mutable_record", adjoint::gradient(mutable_record), mutable_record, Scalar<double>{});
  check("nested_record_snapshot", adjoint::gradient(nested_record_snapshot), nested_record_snapshot,
        Scalar<double>{});
  check("local_record", adjoint::gradient(local_record), local_record, Scalar<double>{});
}
