#include <adjoint/ad.hpp>
struct Shape {
  double size;
  virtual double area() const { return size * size; }
};
struct Circle : Shape {
  double area() const override { return 3.14159 * size * size; }
};
double scaled(double s) {
  Circle c;  // error: local variable 'c' has type 'Circle': class 'Circle' has virtual functions
  c.size = s;
  return c.size * 2;
}
void request() { auto g = adjoint::gradient(scaled); (void)g; }
