"""The forward-mode and Hessian half of the random differential tester (generate.py).

Two random functions f<k>(y, x, c, [sp,] n) of each program (generate.py chooses) get a wrapper with
one floating result,

    double wf<k>(double t, const double* x, const double c[4], const double* y0, const double* w,
                const double* p, int n)   // = w . y after f<k>(y = y0, x, c + t e_0, [sp = p,] n)

(p: the struct parameter's members, for a function with one; a copy of them is passed, so the
struct's own tangent is not asked for), and a driver forward<k> that requests of wf<k> the forward
derivatives in t (a scalar), in an element of c, along a direction of x and of y0, vector mode in
"t, c" (for a function without a struct parameter), and, in half of the programs, for the first
of the two, derivative<2> in t and in x, the Hessian in c[0:4], the Hessian-vector product in x and
the gradient in c of a function calling derivative(wf<k>, "t") (a nested request). In half of the
functions without a struct parameter it also asks for the Jacobian in c of

    void jf<k>(double* y, const double* x, const double c[4], const double* y0, int n)
                                          // y after f<k>(y = y0, x, c, n)

through both its forward and its reverse sweeps. It checks them at a random point

- against the reverse gradient of f<k> seeded with w (d_c, and d_x . u, d_y . u: the forward
  J.u equals the reverse u^T.J), to rounding;
- against central differences of wf<k> (first order) and of the first derivatives, forward or
  reverse (second order), at two steps, skipping an element whose differences disagree (a kink);
- among themselves: the Hessian symmetric, its (0, 0) entry equal to derivative<2> in t, u . (H v)
  equal to derivative<2> along u and v, the nested gradient equal to the Hessian's row 0, the
  Jacobian's forward and reverse sweeps equal, w . J equal to the reverse d_c;
- the Jacobian also against central differences of each y_i in each c_j.

It prints `f<k> forward PASS|FAIL|ILL ...` (run.sh counts these apart from the reverse lines).
"""

WRAPPER = """// forward view of f%(k)d: w . y after f%(k)d from y0, with c[0] + t
double wf%(k)d(double t, const double* x, const double c[4], const double* y0, const double* w, const double* p,
          int n) {
  double y[130];
  for (int i = 0; i < n; i++) y[i] = y0[i];
  const double ct[4] = {c[0] + t, c[1], c[2], c[3]};
%(struct)s  f%(k)d(y, x, ct, %(sp)sn);
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * y[i];
  return s;
}"""

# The gradient of a function that calls a derivative (a nested request: the PINN's form).
NESTED = """double nt%(k)d(double t, const double* x, const double c[4], const double* y0, const double* w, const double* p,
          int n) {
  return adjoint::derivative(wf%(k)d, "t").execute(t, x, c, y0, w, p, n);
}"""

JACOBIAN_WRAPPER = """void jf%(k)d(double* y, const double* x, const double c[4], const double* y0, int n) {
  for (int i = 0; i < n; i++) y[i] = y0[i];
  f%(k)d(y, x, c, n);
}"""

STRUCT_COPY = "  P sp = {p[0], p[1], {p[2], p[3], p[4]}};\n"

DRIVER_FIRST = """static int forward%(k)d(const Gradient& grad, int n, int np, unsigned seed) {
  auto dt = adjoint::derivative(wf%(k)d, "t");
  auto dc = adjoint::derivative(wf%(k)d, "c[%(e)d]");
  auto dx = adjoint::derivative(wf%(k)d, "x");
  auto dy = adjoint::derivative(wf%(k)d, "y0");
  Forward fw("f%(k)d", wf%(k)d, grad, n, np, seed);
  fw.first(dt, dc, %(e)d, dx, dy);"""

# Vector mode rejects a callee's struct parameter even when no tangent reaches it (a known gap,
# docs/adjc.md "Vector forward mode"): asked of the functions without one.
DRIVER_VECTOR = """  auto dv = adjoint::derivative<adjoint::vector_mode>(wf%(k)d, "t, c");
  fw.vector(dv);"""

DRIVER_JACOBIAN = """  auto jc = adjoint::jacobian(jf%(k)d, "c");
  fw.jacobian(jf%(k)d, jc);"""

DRIVER_SECOND = """  auto d2t = adjoint::derivative<2>(wf%(k)d, "t");
  auto d2x = adjoint::derivative<2>(wf%(k)d, "x");
  auto h = adjoint::hessian(wf%(k)d, "c[0:4]");
  auto hv = adjoint::hessian_vector(wf%(k)d, "x");
  auto gn = adjoint::gradient(nt%(k)d, "c");
  fw.second(dt, d2t, d2x, h, hv, gn);"""

CHECKER = r"""
// ---- forward mode and Hessians (forward.py) ----------------------------------------------------
using Wrapped = real (*)(real, const real*, const real*, const real*, const real*, const real*, int);
using Gradient = std::function<void(Args&, Args&, int)>;
// Two analytic derivatives (forward against reverse, one order against another) agree to rounding.
constexpr double SAME = single ? 1e-3 : 1e-9;

struct Forward {
  const char* name;
  Wrapped F;
  const Gradient& grad;
  int n, np;
  Args at;                                  // the point (y: y0)
  std::vector<real> w, u, v, uy;            // weights of y; directions in x (u, v) and in y0 (uy)
  Args g;                                   // the reverse gradient of w . y at the point
  double maxerr = 0;
  int compared = 0, skipped = 0, failed = 0;
  char first_failure[240] = "";

  Forward(const char* name_, Wrapped F_, const Gradient& grad_, int n_, int np_, unsigned seed)
      : name(name_), F(F_), grad(grad_), n(n_), np(np_) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> r(-1.0, 1.0);
    auto fill = [&](std::size_t size) {
      std::vector<real> out(size);
      for (auto& e : out) e = r(rng);
      return out;
    };
    at = Args{fill(n), fill(n + 2), fill(4), fill(np)};
    w = fill(n); u = fill(n + 2); v = fill(n + 2); uy = fill(n);
    g = reverse(at);
  }
  Args reverse(const Args& point) const {
    Args a = point, d{w, std::vector<real>(n + 2), std::vector<real>(4), std::vector<real>(np)};
    grad(a, d, n);
    return d;
  }
  // F at the point with t = s.
  double value(double s) const { return F(real(s), at.x.data(), at.c.data(), at.y.data(), w.data(), at.p.data(), n); }
  // The reverse gradient at the point moved by s (memoised: one call per step for all elements).
  template <class Move>
  static auto reverse_moved(const Forward& fw, Move move) {
    return [&fw, move, cache = std::map<double, Args>()](double s) mutable -> const Args& {
      auto it = cache.find(s);
      if (it == cache.end()) {
        Args p = fw.at;
        move(p, s);
        it = cache.emplace(s, fw.reverse(p)).first;
      }
      return it->second;
    };
  }
  static double dot(const std::vector<real>& a, const std::vector<real>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); i++) s += double(a[i]) * b[i];
    return s;
  }
  static std::vector<real> moved(const std::vector<real>& a, const std::vector<real>& dir, double s) {
    std::vector<real> out(a);
    for (std::size_t i = 0; i < out.size(); i++) out[i] = real(out[i] + s * dir[i]);
    return out;
  }
  void note(double err, const char* what, double got, double want) {
    compared++;
    if (!(err <= maxerr)) maxerr = std::isfinite(err) ? err : 1e300;
    if (std::isfinite(err) && err <= (single ? 2e-2 : 1e-5)) return;
    if (failed++ == 0)
      std::snprintf(first_failure, sizeof first_failure, "%s: adjc %.12g, expected %.12g", what, got, want);
  }
  // Two analytic values that must agree to rounding.
  void same(const char* what, double got, double want) {
    const double err = std::fabs(got - want) / std::fmax(1.0, std::fmax(std::fabs(got), std::fabs(want)));
    note(err <= SAME ? 0.0 : err, what, got, want);
  }
  // An analytic derivative against central differences of at(s), at two steps; skipped at a kink.
  template <class At>
  void differences(const char* what, double got, At at_step) {
    const double f0 = at_step(0.0);
    struct Fd { double central, gap; };
    auto fd_at = [&](double h) {
      const double up = at_step(h), down = at_step(-h);
      return Fd{(up - down) / (2 * h), (up - f0) / h - (f0 - down) / h};
    };
    const Fd fd1 = fd_at(H1), fd2 = fd_at(H2);
    const double scale = std::fmax(1.0, std::fabs(fd1.central));
    const double near_gap = H1 < H2 ? fd1.gap : fd2.gap, far_gap = H1 < H2 ? fd2.gap : fd1.gap;
    if (!std::isfinite(fd1.central) || std::fabs(fd1.central - fd2.central) > KINK * scale ||
        (std::fabs(near_gap) > KINK * scale && std::fabs(near_gap) > 0.6 * std::fabs(far_gap))) {
      skipped++;
      return;
    }
    note(std::fabs(got - fd1.central) / scale, what, got, fd1.central);
  }
  template <class T, class C, class X, class Y>
  void first(const T& dt, const C& dc, int e, const X& dx, const Y& dy) {
    const real* c = at.c.data();
    const double d_t = dt.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n);
    same("d/dt against reverse d_c[0]", d_t, g.c[0]);
    differences("d/dt against differences", d_t, [&](double s) { return value(s); });
    const double d_c = dc.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n);
    same("d/dc[e] against reverse", d_c, g.c[e]);
    differences("d/dc[e] against differences", d_c, [&](double s) {
      std::vector<real> moved_c(at.c);
      moved_c[e] = real(moved_c[e] + s);
      return double(F(real(0), at.x.data(), moved_c.data(), at.y.data(), w.data(), at.p.data(), n));
    });
    const double d_x = dx.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n, u.data());
    same("d/dx along u against reverse d_x . u", d_x, dot(g.x, u));
    differences("d/dx along u against differences", d_x, [&](double s) {
      const std::vector<real> x = moved(at.x, u, s);
      return double(F(real(0), x.data(), c, at.y.data(), w.data(), at.p.data(), n));
    });
    const double d_y = dy.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n, uy.data());
    same("d/dy0 along uy against reverse d_y . uy", d_y, dot(g.y, uy));
    differences("d/dy0 along uy against differences", d_y, [&](double s) {
      const std::vector<real> y0 = moved(at.y, uy, s);
      return double(F(real(0), at.x.data(), c, y0.data(), w.data(), at.p.data(), n));
    });
  }
  template <class V>
  void vector(const V& dv) {
    real vt = 0, vc[4] = {0, 0, 0, 0};
    dv.execute(real(0), at.x.data(), at.c.data(), at.y.data(), w.data(), at.p.data(), n, &vt, vc);
    same("vector mode d/dt against reverse d_c[0]", vt, g.c[0]);
    for (int i = 0; i < 4; i++) same("vector mode d/dc[i] against reverse", vc[i], g.c[i]);
  }
  // The Jacobian of y in c, both sweeps: against each other, the reverse gradient (w . J = d_c)
  // and central differences of y.
  template <class J>
  void jacobian(void (*jf)(real*, const real*, const real*, const real*, int), const J& jc) {
    adjoint::matrix<real> Jf(n, 4), Jr(n, 4);
    std::vector<real> y(n);
    jc.execute_forward(y.data(), at.x.data(), at.c.data(), at.y.data(), n, Jf);
    jc.execute_reverse(y.data(), at.x.data(), at.c.data(), at.y.data(), n, Jr);
    for (int j = 0; j < 4; j++) {
      double wJ = 0;
      for (int i = 0; i < n; i++) wJ += double(w[i]) * Jf(i, j);
      same("w . J column against reverse d_c", wJ, g.c[j]);
      std::map<double, std::vector<real>> moved_y;  // y with c_j moved by s, one call per step
      auto y_at = [&](double s) -> const std::vector<real>& {
        auto it = moved_y.find(s);
        if (it == moved_y.end()) {
          std::vector<real> c(at.c), out(n);
          c[j] = real(c[j] + s);
          jf(out.data(), at.x.data(), c.data(), at.y.data(), n);
          it = moved_y.emplace(s, out).first;
        }
        return it->second;
      };
      for (int i = 0; i < n; i++) {
        same("Jacobian forward against reverse sweeps", Jf(i, j), Jr(i, j));
        differences("Jacobian against differences of y", Jf(i, j), [&](double s) { return double(y_at(s)[i]); });
      }
    }
  }
  template <class T, class T2, class X2, class Hs, class HV, class GN>
  void second(const T& dt, const T2& d2t, const X2& d2x, const Hs& h, const HV& hv, const GN& gn) {
    const real* c = at.c.data();
    const double dtt = d2t.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n);
    differences("d2/dt2 against differences of d/dt", dtt, [&](double s) {
      return double(dt.execute(real(s), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n));
    });
    real H[16];
    h.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n, H);
    same("H[0][0] against d2/dt2", H[0], dtt);
    real gc[4] = {0, 0, 0, 0};
    gn.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n, gc);
    for (int j = 0; j < 4; j++) {
      same("gradient in c of d/dt (nested) against H[0]", gc[j], H[j]);
      differences("gradient in c of d/dt (nested) against differences of d/dt", gc[j], [&](double s) {
        std::vector<real> moved_c(at.c);
        moved_c[j] = real(moved_c[j] + s);
        return double(dt.execute(real(0), at.x.data(), moved_c.data(), at.y.data(), w.data(), at.p.data(), n));
      });
    }
    for (int i = 0; i < 4; i++) {
      auto moved_ci = reverse_moved(*this, [i](Args& p, double s) { p.c[i] = real(p.c[i] + s); });
      for (int j = 0; j < 4; j++) {
        if (j > i) same("H symmetric", H[i * 4 + j], H[j * 4 + i]);
        differences("H row against differences of the reverse d_c", H[i * 4 + j],
                    [&](double s) { return double(moved_ci(s).c[j]); });
      }
    }
    std::vector<real> Hv(n + 2, real(0));
    hv.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n, v.data(), Hv.data());
    const double uHv = d2x.execute(real(0), at.x.data(), c, at.y.data(), w.data(), at.p.data(), n, v.data(), u.data());
    same("u . (H v) against derivative<2> along v, u", dot(u, Hv), uHv);
    auto moved_x = reverse_moved(*this, [this](Args& p, double s) { p.x = moved(at.x, v, s); });
    for (int i = 0; i < n + 2; i++)
      differences("H v against differences of the reverse d_x along v", Hv[i],
                  [&](double s) { return double(moved_x(s).x[i]); });
  }
  int verdict() const {
    if (failed) {
      std::printf("%s forward FAIL maxerr=%.3g (%d of %d comparisons) %s\n", name, maxerr, failed, compared, first_failure);
      return 1;
    }
    if (4 * skipped > compared + skipped) {
      std::printf("%s forward ILL finite differences unstable at %d of %d comparisons\n", name, skipped,
                  compared + skipped);
      return 2;
    }
    std::printf("%s forward PASS maxerr=%.3g (%d comparisons, %d skipped)\n", name, maxerr, compared, skipped);
    return 0;
  }
};
"""


def wrapper(k, struct, second, jacobian):
    """wf<k>'s source (in double: generate.py retypes it), nt<k>'s if second, jf<k>'s if jacobian."""
    text = WRAPPER % {"k": k, "struct": STRUCT_COPY if struct else "", "sp": "sp, " if struct else ""}
    if second:
        text += "\n" + NESTED % {"k": k}
    if jacobian:
        text += "\n" + JACOBIAN_WRAPPER % {"k": k}
    return text


def driver(k, element, second, vector, jacobian):
    """forward<k>'s source: the requests of wf<k> and their checks (vector mode too if vector, the
    Jacobian of jf<k> if jacobian, second order and the nested gradient if second)."""
    lines = [DRIVER_FIRST % {"k": k, "e": element}]
    if vector:
        lines.append(DRIVER_VECTOR % {"k": k})
    if jacobian:
        lines.append(DRIVER_JACOBIAN % {"k": k})
    if second:
        lines.append(DRIVER_SECOND % {"k": k})
    lines += ["  return fw.verdict();", "}"]
    return "\n".join(lines)
