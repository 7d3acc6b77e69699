// A module (a struct of value-class members) with a member function, built on a value class
// whose operations have custom pullbacks: the generated pullbacks of members are free functions
// taking the object as `const C* self`.
#include <adjoint/ad.hpp>

struct Vec {  // a handle to n floats
  float* data;
  int n;
};
void accumulate_adjoint(Vec& into, const Vec& from);
Vec linear(const Vec& w, const Vec& b, const Vec& x);
Vec gelu(const Vec& x);
float sum(const Vec& x);
namespace adjoint::custom_derivatives {
void linear_pullback(const Vec& w, const Vec& b, const Vec& x, Vec d_result, Vec* d_w, Vec* d_b, Vec* d_x);
void gelu_pullback(const Vec& x, Vec d_result, Vec* d_x);
void sum_pullback(const Vec& x, float d_result, Vec* d_x);
}  // namespace adjoint::custom_derivatives

struct Linear {
  Vec weight, bias;
  Vec forward(const Vec& x) const { return linear(weight, bias, x); }
};
struct MLP {
  Linear fc, proj;
  Vec forward(const Vec& x) const {
    Vec h = gelu(fc.forward(x));
    return proj.forward(h);
  }
};

float loss(const MLP& mlp, const Vec& x) { return sum(mlp.forward(x)); }

const char* request() { return adjoint::gradient(loss, "mlp").source(); }
