#include <adjoint/ad.hpp>
struct Vec {
  double* data;
  int n;
};
void accumulate_adjoint(Vec& into, const Vec& from);
Vec twice(const Vec& a);
double sum(const Vec& a);
namespace adjoint::custom_derivatives {
void twice_pullback(const Vec& a, Vec d_result, Vec* d_a);
void sum_pullback(const Vec& a, double d_result, Vec* d_a);
}
class Layer {
 public:
  Vec forward() const {
    return twice(weight);  // error: member 'weight' must be public
  }

 private:
  Vec weight;
};
double f(const Layer& layer) { return sum(layer.forward()); }
void request() { auto g = adjoint::gradient(f); (void)g; }
