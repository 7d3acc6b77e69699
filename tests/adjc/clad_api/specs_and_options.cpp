// clad::gradient's parameter lists ("x, y", positions, reordered, parts of arrays), its options as
// template arguments, clad::array_ref adjoints and dump().
#include "clad/Differentiator/Differentiator.h"

#include <cstring>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

double product(double x, double y, double z) { return x * y * y + z * x; }

double weighted(const double* v, int n, double w) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += w * v[i] * v[i];
  return s;
}

int main() {
  double x = 1.5, y = -0.5, z = 2.0;
  auto f = [&] { return product(x, y, z); };

  double dx = 0, dy = 0, dz = 0;
  clad::gradient(product).execute(x, y, z, &dx, &dy, &dz);
  expect_gradient("all: dx", dx, x, f);
  expect_gradient("all: dy", dy, y, f);
  expect_gradient("all: dz", dz, z, f);

  dx = dy = 0;
  clad::gradient(product, "y, x").execute(x, y, z, &dx, &dy);  // adjoints in parameter order
  expect_gradient("\"y, x\": dx", dx, x, f);
  expect_gradient("\"y, x\": dy", dy, y, f);

  dz = 0;
  clad::gradient(product, "2").execute(x, y, z, &dz);
  expect_gradient("\"2\": dz", dz, z, f);

  dy = 0;
  clad::gradient<clad::opts::disable_tbr>(product, "y").execute(x, y, z, &dy);
  expect_gradient("disable_tbr: dy", dy, y, f);
  dx = 0;
  clad::gradient<clad::opts::enable_tbr, clad::opts::disable_va>(product, "x").execute(x, y, z, &dx);
  expect_gradient("enable_tbr, disable_va: dx", dx, x, f);

  // An array's adjoint through clad::array_ref; "v[0:2]" names the array (its whole adjoint).
  double v[3] = {0.5, -1.0, 2.0}, w = 0.75, d_v[3] = {}, d_w = 0;
  clad::array_ref<double> d_v_ref(d_v, 3);
  auto g = clad::gradient(weighted, "v[0:2], w");
  g.execute(v, 3, w, d_v_ref, &d_w);
  for (int i = 0; i < 3; ++i) expect_gradient("d_v[i]", d_v[i], v[i], [&] { return weighted(v, 3, w); });
  expect_gradient("d_w", d_w, w, [&] { return weighted(v, 3, w); });

  // dump() prints the generated code, source() hands it over.
  g.dump();
  clad_style::expect_value("source() names weighted_grad", std::strstr(g.source(), "weighted_grad") != nullptr, 1);
  return clad_style::report();
}
