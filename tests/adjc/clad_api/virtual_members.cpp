// Virtual member functions: clad::differentiate(&Shape::area, ...) differentiates Shape's own body;
// a derivative the class declares as a member (`virtual double area_darg0(double, double);`, as
// Clad's users do) is defined by the request, and a call through a base pointer runs the override's;
// a class that only inherits the declaration gets the override from its request, as with Clad.
#include "clad/Differentiator/Differentiator.h"

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

struct Shape {
  virtual ~Shape() = default;
  virtual double area(double s, double t) { return s * t; }
  virtual double area_darg0(double s, double t);
  double slope(double s) { return area_darg0(s, 2.5); }
};

struct Square : Shape {
  double area(double s, double t) override { return s * s * t; }
  double area_darg0(double s, double t) override;
};

struct Strip : Shape {  // declares no area_darg0: the request adds the override
  double area(double s, double t) override { return 3 * s * t * t; }
};

int main() {
  auto of_shape = clad::differentiate(&Shape::area, 0);
  auto of_square = clad::differentiate(&Square::area, "s");
  Shape shape;
  Square square;
  double s = 1.7, t = 2.5;
  expect_gradient("Shape::area by execute", of_shape.execute(shape, s, t), s, [&] { return shape.Shape::area(s, t); });
  expect_gradient("Square::area by execute", of_square.execute(square, s, t), s, [&] { return square.area(s, t); });
  Shape* base = &square;
  expect_gradient("area_darg0 through a base pointer", base->area_darg0(s, t), s, [&] { return base->area(s, t); });
  expect_gradient("a member calling area_darg0", shape.slope(s), s, [&] { return shape.area(s, 2.5); });
  expect_gradient("the same member of Square", square.slope(s), s, [&] { return square.area(s, 2.5); });
  auto of_strip = clad::differentiate(&Strip::area, 0);
  (void)of_strip;
  Strip strip;
  Shape* inherited = &strip;
  expect_gradient("the override a request adds", inherited->area_darg0(s, t), s, [&] { return strip.area(s, t); });
  return clad_style::report();
}
