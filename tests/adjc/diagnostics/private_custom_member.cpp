#include <adjoint/ad.hpp>
// A private member function with a custom pullback: the custom pullback's caller (generated code,
// outside the class) calls it by name, so it must stay public.
class S;
namespace adjoint::custom_derivatives::class_functions {
void scaled_pullback(const S* self, double x, double d_result, S* d_self, double* d_x);
}
class S {
 public:
  double a = 2;
  double f(double x) const {
    return scaled(x) * x;  // error: member function 'scaled' of 'S' must be public: its custom pullback's caller calls it from outside the class
  }

 private:
  double scaled(double x) const { return a * x; }
};
void request() { auto g = adjoint::gradient(&S::f, "x"); (void)g; }
