// Clad's stateful custom derivatives: `f_reverse_forw` runs in f's place in the forward sweep and
// fills a clad::pullback_state<S>, which `f_pullback` receives (by value or by reference) in the
// reverse sweep: here the values the functions overwrite, which their pullbacks need.
#include "clad/Differentiator/Differentiator.h"

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

void scale_in_place(double* v, double k) { *v *= k; }

// A state holding a non-copyable tape: passed by reference.
struct Saved {
  clad::tape<double> olds;
};
void cube_in_place(double* v) { *v = *v * *v * *v; }

template <class T>
void shift_in_place(T* v, T by) {
  *v += by * by;
}

// Returns where it was given: the pointer to one number it returns is that number's address.
double* same(double* p) { return p; }

namespace clad::custom_derivatives {
void scale_in_place_reverse_forw(double* v, double k, double* /*d_v*/, double /*d_k*/,
                                 clad::pullback_state<double>& state) {
  state.data = *v;  // the value the call overwrites
  *v *= k;
}
void scale_in_place_pullback(double* /*v*/, double k, double* d_v, double* d_k, clad::pullback_state<double> state) {
  *d_k += state.data * *d_v;
  *d_v *= k;
}

void cube_in_place_reverse_forw(double* v, double* /*d_v*/, clad::pullback_state<Saved>& state) {
  clad::push(state.data.olds, *v);
  *v = *v * *v * *v;
}
void cube_in_place_pullback(double* /*v*/, double* d_v, clad::pullback_state<Saved>& state) {
  const double old = clad::pop(state.data.olds);
  *d_v *= 3 * old * old;
}

template <class T>
void shift_in_place_reverse_forw(T* v, T by, T* /*d_v*/, T /*d_by*/, clad::pullback_state<double>& state) {
  state.data = 2 * by;  // the derivative of by * by, known in the forward sweep
  *v += by * by;
}
template <class T>
void shift_in_place_pullback(T* /*v*/, T /*by*/, T* d_v, T* d_by, clad::pullback_state<double> state) {
  *d_by += state.data * *d_v;
}

clad::ValueAndAdjoint<double*, double*> same_reverse_forw(double* p, double* d_p, clad::pullback_state<double>& state) {
  state.data = 1;  // the pullback passes the adjoint on scaled by this: a state never set breaks it
  return {p, d_p};
}
void same_pullback(double* /*p*/, double* d_p, clad::pullback_state<double> state) { *d_p *= state.data; }
}  // namespace clad::custom_derivatives

double scaled(double x, double k) {
  double v = x * x;
  scale_in_place(&v, k);
  scale_in_place(&v, x);
  return v;
}

double cubed(double x, double y) {
  double a = x + y;
  cube_in_place(&a);
  double b = x * y;
  cube_in_place(&b);
  return a - b;
}

double shifted(double x, double y) {
  double v = x * y;
  shift_in_place(&v, y);
  return v * x;
}

double through_pointer(double x, double y) { return *same(&x) * y + x; }

int main() {
  clad_style::expect_gradients("scaled", scaled, clad::gradient(scaled), 1.3, -0.7);
  clad_style::expect_gradients("cubed", cubed, clad::gradient(cubed), 0.6, 1.1);
  clad_style::expect_gradients("shifted", shifted, clad::gradient(shifted), 0.8, 1.9);
  clad_style::expect_gradients("through_pointer", through_pointer, clad::gradient(through_pointer), 2.1, -0.4);
  return clad_style::report();
}
