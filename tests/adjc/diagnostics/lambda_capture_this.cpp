#include <adjoint/ad.hpp>
struct Model {
  double w;
  double loss(double x) const {
    auto term = [this](double v) { return w * v; };  // error: a lambda capturing 'this' is not supported; copy the members it uses into locals and capture those
    return term(x) * x;
  }
};
void request() { auto g = adjoint::gradient(&Model::loss, "x"); (void)g; }
