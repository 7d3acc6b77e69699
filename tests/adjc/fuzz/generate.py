#!/usr/bin/python3
"""Random differential tester for adjc: writes a C++ file of random functions and a main that
checks adjc's gradient of each against central finite differences.

    generate.py SEED OUT.cpp [--functions K] [--drop K,...] [--drop-forward K,...] [--drop-vector K,...]
                [--no-calls]
    generate.py SEED OUT.cpp --kernel-chains [--functions K]

(--kernel-chains: chains of kernel calls for adjc's fusion instead, kernel_chains.py; run by
kernel_chains.sh.)

(--drop leaves out the functions with those indices, everything else unchanged: run.sh drops a
function adjc rejects and tries the rest again; --drop-forward leaves out only their forward checks,
--drop-vector only their vector-mode request.
--no-calls: no helper functions, lambdas or function objects, hence no calls.)

Every function has the signature

    void f<k>(double* y, const double* x, const double* c, int n)

(y: n elements, read and updated in place; x: n + 2; c: 4) and is built only from constructs
docs/adjc.md lists as supported: double locals in and out of loops, re-assignment, compound
assignment, ++/--, ?:, if/else, counted for loops (up, down, step 2; nested up to 2 deep; break and
continue), while and do loops with a bounded int counter, reads x[i], x[i + 1], x[n - 1 - i],
c[k], y[...], in-place updates of y, local pointers into x and y (and walking ones), int locals
used as indices and loop bounds, local double[3] arrays, running maxima, the math functions exp
log sqrt tanh sin cos fabs fmax fmin pow erf and the rule table's library functions (std::max,
min, clamp, the <cmath> set; C and float spellings) on arguments kept in their domains, and calls of up
to three random helper functions (double(double, double), double(const double*, double), and
void(double* o, const double* p, double) writing o[0]). n is mostly 3..6, sometimes 63..130.

Extended programs (60% of the seeds, chosen by their own random stream; the other seeds' functions
are exactly what the generator wrote before) also use: local structs S {a, b, v[3]} and S2 {a, b}
initialised by braces, designated initialisers, member assignment or copies, members read and
updated as locals (v as a local array); a struct parameter P {a, b, v[3]} of some functions
(`const P& sp`, `P& sp` written, or `P sp` by value), passed to helpers `double hc(const P&, double)`
and `void hm(P&, double)`; helpers `void hr(double& o, double)` writing locals, struct members and
elements of y through the reference, and `double hk(const double&, const double&)` given elements,
locals and members; std::max/std::min over two such places; from seed 10000, local arrays of S2
(braced, partly braced or filled by a loop; elements copied, members used as locals and read in a
loop); lambdas without captures
((double, double) and (const double*, double)) and function objects (a member k, a const call
operator) declared in the function and called in expressions; and rarely a function returning
`const double&` (adjc rejects it: the function using it is dropped with it).

Values are kept finite by construction (bounded exp arguments, log/sqrt/pow of expressions
bounded away from zero, divisions by 1.5 + e * e, ...; a nominal bound is tracked per expression
and squashed through tanh/sin when it grows). Branches mostly test integer counters; the few that
test values can flip under a finite-difference step only with negligible probability, and the
checker skips an element whose finite differences at two step sizes disagree (a kink or a jump
between them) rather than report it.

main() runs adjoint::gradient(f<k>) (all of y, x, c and sp active) with random weights as the seeds
of y and sp, compares d_y (the gradient w.r.t. y's initial values), d_x, d_c and d_sp (the struct's
members, for J = w . y + w_p . sp after the call) with central differences
(h = 1e-6 max(1, |v|); |adjc - fd| <= 1e-5 max(1, |fd|)), runs the gradient a second time (it must
give the same numbers: the tape must be balanced), and prints one line per function:

    f<k> PASS maxerr=...        f<k> FAIL maxerr=... <first wrong element>
    f<k> ILL ...                (values or gradients too large to judge, or finite differences
                                 at two steps disagree for over a quarter of the elements: not
                                 a failure)

Two functions of each program also get forward-mode and Hessian checks (forward.py), each printing
`f<k> forward PASS|FAIL|ILL ...`.

It exits 1 if any function FAILs.
"""
import math
import random
import sys

import forward

L = 4.0       # nominal bound of a double local or an element of y
BMAX = 30.0   # expressions whose nominal bound exceeds this are squashed
DOUBLE_NAMES = ["a", "b", "d", "e", "g", "h", "s", "t", "u", "v", "w", "z"]
INT_NAMES = ["i", "j", "k", "l", "m", "q"]


def fmt(v):
    return repr(float(v))


class Scope:
    """What a statement may use: variables visible at that point."""

    def __init__(self, parent=None):
        self.parent = parent
        self.doubles = list(parent.doubles) if parent else []     # names
        self.ints = list(parent.ints) if parent else []           # (name, kind): kind full|small
        self.ptrs = list(parent.ptrs) if parent else []           # (name, base, kind)
        self.loop = parent.loop if parent else None               # innermost loop: for|while|do
        self.depth = parent.depth if parent else 0                # loop nesting depth
        self.names = set(parent.names) if parent else set()       # all visible names
        self.in_if = False                                         # directly in an if's block
        self.helper = parent.helper if parent else False           # in a helper: no x, c, y
        self.ivars = list(parent.ivars) if parent else []          # int locals in [0, n - 1]
        # Extended programs (Gen.ext):
        self.reads = list(parent.reads) if parent else []          # read-only places (sp.a of a const P&)
        self.calls = list(parent.calls) if parent else []          # lambdas and function objects: (name, kind)
        self.sp = parent.sp if parent else None                    # the struct parameter: cref|ref|value|None

    def child(self):
        return Scope(self)


class Gen:
    def __init__(self, rng, real="double", ext=False, calls=True, struct_arrays=False):
        self.r = rng
        self.struct_arrays = struct_arrays  # local arrays of S2 too (seeds from 10000)
        self.calls = calls      # lambdas and function objects too (helpers: generate())
        self.real = real        # the floating type of the program (double or float)
        # Extended programs also use structs, reference parameters, lambdas and function objects;
        # the others are exactly what this generator wrote before those existed.
        self.ext = ext
        self.functors = []      # names of function object types
        self.lambdas = 0        # lambdas written so far (their names are lam0, lam1, ...)
        self.lines = []
        self.indent = 1
        self.stmt_budget = 0
        self.returned = False
        self.helpers = []       # (name, kind): s (double, double), p (const double*, double), w (writes)
        self.call_depth = 0

    # ---- helpers -------------------------------------------------------------------------
    def emit(self, s):
        self.lines.append("  " * self.indent + s)

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def weighted(self, options):
        total = sum(w for w, _ in options)
        x = self.r.random() * total
        for w, v in options:
            x -= w
            if x < 0:
                return v
        return options[-1][1]

    def fresh(self, sc, pool):
        free = [n for n in pool if n not in sc.names]
        if free:
            return self.pick(free)
        k = 2
        while True:
            name = "%s%d" % (self.pick(pool), k)
            if name not in sc.names:
                return name
            k += 1

    # ---- index expressions -----------------------------------------------------------------
    def full_ints(self, sc):
        return [n for n, kind in sc.ints if kind == "full"]

    def small_ints(self, sc):
        return [n for n, kind in sc.ints if kind == "small"]

    def x_index(self, sc):
        full, small = self.full_ints(sc), self.small_ints(sc)
        opts = [(1, lambda: self.pick(["0", "1", "n - 1", "n", "n + 1"]))]
        if full:
            i = self.pick(full)
            opts.append((5, lambda: self.pick([i, i, "%s + 1" % i, "%s + 2" % i, "n - 1 - %s" % i])))
        if small:
            k = self.pick(small)
            opts.append((3, lambda: self.pick([k, "%s + 1" % k])))
        return self.weighted(opts)()

    def y_index(self, sc, write=False):
        full, small = self.full_ints(sc), self.small_ints(sc)
        opts = [(1, lambda: self.pick(["0", "n - 1"]))]
        if full:
            i = self.pick(full)
            if write:
                opts.append((6, lambda: self.pick([i, i, i, "n - 1 - %s" % i])))
            else:
                opts.append((6, lambda: self.pick([i, i, "n - 1 - %s" % i, "(%s + 1) %% n" % i])))
        if small:
            k = self.pick(small)
            opts.append((2, lambda: k))
        return self.weighted(opts)()

    def ptr_read(self, sc, name, base, kind):
        # kind: row (x + i: [0], [1], [2]), cell (y + i: [0]), xoff (x + 1: [idx] with idx <= n),
        # ybase (y: like y)
        if kind == "row":
            return "%s[%d]" % (name, self.r.randint(0, 2))
        if kind == "cell":
            return "%s[0]" % name
        if kind in ("buf", "rbuf"):  # a local double[3], an array member v[3] (rbuf: read-only)
            return "%s[%s]" % (name, self.buf_index(sc))
        if kind == "end":  # x + n, after a walk
            return "%s[%d]" % (name, self.r.randint(0, 1))
        if kind == "xoff":
            full = self.full_ints(sc)
            if full and self.chance(0.7):
                i = self.pick(full)
                return "%s[%s]" % (name, self.pick([i, "%s + 1" % i]))
            return "%s[%s]" % (name, self.pick(["0", "1", "n - 1"]))
        return "%s[%s]" % (name, self.y_index(sc))

    # ---- expressions: (code, nominal bound) --------------------------------------------------
    def leaf(self, sc):
        if sc.helper:
            opts = [(1, lambda: self.const())]
            # Earlier helpers (a call inside a called function).
            callable_ = [h for h in self.helpers if h[1] in "sk" or (h[1] == "p" and "p" in sc.names)]
            if callable_ and self.call_depth == 0:
                opts.append((0.5, lambda: self.call(sc, self.pick(callable_))))
        else:
            opts = [
                (4, lambda: ("x[%s]" % self.x_index(sc), 1.0)),
                (2, lambda: ("c[%d]" % self.r.randint(0, 3), 1.0)),
                (2, lambda: ("y[%s]" % self.y_index(sc), L)),
                (1, lambda: self.const()),
            ]
            value_helpers = [h for h in self.helpers if h[1] in "spk" or (h[1] == "c" and sc.sp)]
            if value_helpers and self.call_depth == 0:
                opts.append((1.5, lambda: self.call(sc, self.pick(value_helpers))))
        if self.ext:
            if sc.calls and self.call_depth == 0:
                opts.append((1.5, lambda: self.call(sc, self.pick(sc.calls))))
            if sc.reads:
                opts.append((2, lambda: (self.pick(sc.reads), 1.0)))
            if not sc.helper:
                opts.append((1, lambda: (self.place_minmax(sc), L)))
        if sc.doubles:
            # Recent locals more often.
            opts.append((6, lambda: (self.pick(sc.doubles[-3:] + sc.doubles), L)))
        if sc.ptrs:
            def p():
                name, base, kind = self.pick(sc.ptrs)
                return (self.ptr_read(sc, name, base, kind), 1.0 if base == "x" else L)
            opts.append((3, p))
        if sc.ints and self.chance(0.3):
            def iv():
                name, kind = self.pick(sc.ints)
                return ("0.25 * %s" % name, 2.0)
            opts.append((1, iv))
        return self.weighted(opts)()

    def buf_index(self, sc):
        full, small = self.full_ints(sc), self.small_ints(sc)
        opts = [(1, lambda: str(self.r.randint(0, 2)))]
        if full:
            opts.append((3, lambda: "%s %% 3" % self.pick(full)))
        if small:
            opts.append((3, lambda: self.pick(small)))
        return self.weighted(opts)()

    def x_pointer_arg(self, sc):
        """A pointer p with p[0], p[1], p[2] inside x."""
        if sc.helper:
            return "p"
        return self.pointer_arg(sc, "x", "x + 1", "row")

    def y_pointer_arg(self, sc):
        """A pointer o with o[0] inside y."""
        return self.pointer_arg(sc, "y", "y + (n - 1)", "cell")

    def pointer_arg(self, sc, base, other, kind):
        """base, other, base + an int in range, or a local pointer of `kind`."""
        named = [n for n, b, k in sc.ptrs if k == kind]
        opts = [(1, lambda: base), (1, lambda: other)]
        if self.full_ints(sc):
            opts.append((3, lambda: "%s + %s" % (base, self.pick(self.full_ints(sc)))))
        if named:
            opts.append((2, lambda: self.pick(named)))
        return self.weighted(opts)()

    def place(self, sc):
        """An lvalue of the floating type: an element of x or y, a local, a struct member."""
        opts = [(2, lambda: "x[%s]" % self.x_index(sc)), (1, lambda: "y[%s]" % self.y_index(sc)),
                (1, lambda: "c[%d]" % self.r.randint(0, 3))]
        if sc.doubles:
            opts.append((2, lambda: self.pick(sc.doubles)))
        if sc.reads:
            opts.append((1, lambda: self.pick(sc.reads)))
        arrays = [(n, b, k) for n, b, k in sc.ptrs if k in ("buf", "rbuf")]
        if arrays:
            opts.append((1, lambda: self.ptr_read(sc, *self.pick(arrays))))
        return self.weighted(opts)()

    def place_minmax(self, sc):
        """std::max/std::min over two places (references to elements, locals, members)."""
        return "std::%s(%s, %s)" % (self.pick(["max", "min"]), self.place(sc), self.place(sc))

    def call(self, sc, helper):
        name, kind = helper
        self.call_depth += 1
        a, _ = self.bounded_expr(sc, depth=self.r.randint(0, 1))
        if kind == "s":
            b, _ = self.bounded_expr(sc, depth=self.r.randint(0, 1))
            code = "%s(%s, %s)" % (name, a, b)
        elif kind == "k":  # const double& parameters: places or values
            if not sc.helper and self.chance(0.6):
                # A place, or the reference std::max/min returns to one.
                a = self.place_minmax(sc) if self.chance(0.25) else self.place(sc)
            b = self.place(sc) if not sc.helper and self.chance(0.6) else self.bounded_expr(sc, depth=1)[0]
            code = "%s(%s, %s)" % (name, a, b)
        elif kind == "c":  # (const P&, double) or (P, double)
            code = "%s(sp, %s)" % (name, a)
        else:
            code = "%s(%s, %s)" % (name, self.x_pointer_arg(sc), a)
        self.call_depth -= 1
        return code, L

    def const(self):
        v = self.pick([0.5, 0.25, 1.5, 2.0, 0.75, 1.25, 3.0, 0.1])
        return (fmt(v), v)

    def squash(self, code, bound, limit=1.0):
        """Returns an expression of bound <= limit (>= 1) equal to code when bound is small."""
        if bound <= limit:
            return code, bound
        f = self.pick(["std::tanh", "std::sin", "std::erf", "std::cos"])
        return "%s(%s)" % (f, code), 1.0

    def cond(self, sc):
        """A condition. Integer ones mostly; value ones compare with a constant (a finite
        difference step flips them only with negligible probability; such elements are skipped)."""
        ints = [n for n, _ in sc.ints]
        opts = [(2, lambda: self.value_cond(sc))]
        if ints:
            i = self.pick(ints)
            opts.append((5, lambda: self.pick([
                "%s %% 2 == 0" % i, "%s %% 2 == 1" % i, "%s < n / 2" % i, "%s > 1" % i,
                "%s == 0" % i, "%s != 2" % i, "%s %% 3 == 1" % i])))
            if len(ints) >= 2:
                j = self.pick([n for n in ints if n != i])
                opts.append((2, lambda: self.pick(["%s < %s" % (i, j), "%s > %s" % (i, j), "%s == %s" % (i, j)])))
        return self.weighted(opts)()

    def value_cond(self, sc):
        a, _ = self.leaf(sc)
        return "%s %s %s" % (a, self.pick([">", "<"]), self.pick(["0.0", "0.3", "-0.2", "0.5", "1.0"]))

    def expr(self, sc, depth):
        if depth <= 0 or self.chance(0.25):
            return self.leaf(sc)
        d = depth - 1

        def binop():
            a, ba = self.expr(sc, d)
            b, bb = self.expr(sc, d)
            op = self.pick(["+", "-", "*", "*", "+"])
            if op == "*":
                code, bound = "%s * %s" % (paren(a), paren(b)), ba * bb
            else:
                code, bound = "%s %s %s" % (a, op, paren(b)), ba + bb
            return code, bound

        def div():
            a, ba = self.expr(sc, d)
            b, bb = self.expr(sc, max(d - 1, 0))
            form = self.r.randint(0, 2)
            if form == 0:
                return "%s / (1.5 + %s * %s)" % (paren(a), paren(b), paren(b)), ba / 1.5
            if form == 1:
                b, _ = self.squash(b, bb)
                return "%s / (2.0 + %s)" % (paren(a), b), ba
            b, _ = self.squash(b, bb)
            return "(%s) / (1.25 - 0.25 * %s)" % (a, paren(b)), ba

        def unary():
            a, ba = self.expr(sc, d)
            f = self.pick(["tanh", "sin", "cos", "erf"])
            return "std::%s(%s)" % (f, a), 1.0

        def exp():
            a, ba = self.expr(sc, d)
            if ba > 3.0:
                if self.chance(0.3):
                    b, _ = self.leaf(sc)
                    return "std::exp(-%s * %s)" % (paren(b), paren(b)), 1.0
                a, ba = self.squash(a, ba)
            return "std::exp(%s)" % a, math.exp(ba)

        def log():
            a, ba = self.expr(sc, d)
            form = self.r.randint(0, 2)
            if form == 0:
                b, bb = self.expr(sc, max(d - 1, 0))
                return "std::log(1.5 + %s * %s)" % (paren(b), paren(b)), math.log(1.5 + bb * bb)
            if form == 1:
                a, _ = self.squash(a, ba)
                return "std::log(2.0 + %s)" % a, 1.1
            a, ba = self.squash(a, ba, 3.0)
            return "std::log(1.0 + std::exp(%s))" % a, ba + 1.0

        def sqrt():
            if self.chance(0.5):
                b, bb = self.expr(sc, max(d - 1, 0))
                return "std::sqrt(1.0 + %s * %s)" % (paren(b), paren(b)), math.sqrt(1 + bb * bb)
            a, ba = self.expr(sc, d)
            a, _ = self.squash(a, ba)
            return "std::sqrt(1.5 + %s)" % a, 1.6

        def fabs():
            a, ba = self.expr(sc, d)
            return "std::fabs(%s)" % a, ba

        def fmaxmin():
            a, ba = self.expr(sc, d)
            b, bb = self.expr(sc, d)
            return "std::%s(%s, %s)" % (self.pick(["fmax", "fmin"]), a, b), max(ba, bb)

        def pow_():
            if self.chance(0.6):
                b, bb = self.expr(sc, max(d - 1, 0))
                b, bb = self.squash(b, bb, 2.0)
                e = self.pick([0.5, 1.5, -0.5, 2.0, 0.75, 3.0])
                return "std::pow(1.5 + %s * %s, %s)" % (paren(b), paren(b), fmt(e)), (1.5 + bb * bb) ** max(e, 0.0)
            a, ba = self.expr(sc, d)
            a, _ = self.squash(a, ba)
            e, be = self.expr(sc, d)
            e, be = self.squash(e, be, 2.0)
            return "std::pow(2.0 + %s, %s)" % (a, e), 3.0 ** be

        def ternary():
            a, ba = self.expr(sc, d)
            b, bb = self.expr(sc, d)
            return "(%s ? %s : %s)" % (self.cond(sc), a, b), max(ba, bb)

        def neg():
            a, ba = self.expr(sc, d)
            return "-%s" % paren(a), ba

        def library():
            """The library functions of adjc's rule table (std::, C and float C spellings), on
            arguments kept in their domains; kinks and jumps (max, clamp, abs, copysign, floor)
            are left to the checker's two-step test."""
            a, ba = self.expr(sc, d)
            a, _ = self.squash(a, ba)
            b, bb = self.expr(sc, max(d - 1, 0))
            b, _ = self.squash(b, bb)
            pb = paren(b)
            R = self.real
            x = "x[%s]" % self.x_index(sc) if not sc.helper else "a"

            def c_or_std(name, arg):
                form = self.r.randint(0, 2)
                if form == 0:
                    return "std::%s(%s)" % (name, arg)
                return "%s%s(%s)" % (name, "f" if R == "float" and form == 1 else "", arg)
            forms = [
                (3, lambda: ("std::max<%s>(%s, %s)" % (R, a, b), 1.0)),
                (3, lambda: ("std::min<%s>(%s, %s)" % (R, a, b), 1.0)),
                (2, lambda: ("std::max(%s, %s)" % ("0.0f" if R == "float" else "0.0", x), 1.0)),
                (2, lambda: ("std::clamp<%s>(%s, -0.5, 0.5)" % (R, a), 0.5)),
                (1, lambda: ("std::abs(%s)" % a, 1.0)),
                (1, lambda: (c_or_std("exp2", a), 2.0)),
                (1, lambda: (c_or_std("expm1", a), 1.8)),
                (1, lambda: (c_or_std("log1p", "0.5 + %s * %s" % (pb, pb)), 0.5)),
                (1, lambda: (c_or_std("log2", "1.5 + %s * %s" % (pb, pb)), 1.4)),
                (1, lambda: (c_or_std("log10", "1.5 + %s * %s" % (pb, pb)), 0.4)),
                (1, lambda: (c_or_std("cbrt", "1.5 + %s" % pb), 1.4)),
                (1, lambda: ("std::hypot(%s, 0.5 + %s * %s)" % (a, pb, pb), 1.6)),
                (1, lambda: (c_or_std("tan", "0.5 * %s" % paren(a)), 0.6)),
                (1, lambda: (c_or_std("asin", "0.5 * %s" % paren(a)), 0.6)),
                (1, lambda: (c_or_std("acos", "0.5 * %s" % paren(a)), 2.1)),
                (1, lambda: (c_or_std("atan", a), 0.8)),
                (1, lambda: ("std::atan2(%s, 1.5 + %s * %s)" % (a, pb, pb), 0.6)),
                (1, lambda: (c_or_std("sinh", a), 1.2)),
                (1, lambda: (c_or_std("cosh", a), 1.6)),
                (1, lambda: (c_or_std("asinh", a), 0.9)),
                (1, lambda: (c_or_std("acosh", "1.5 + %s * %s" % (pb, pb)), 1.4)),
                (1, lambda: (c_or_std("atanh", "0.5 * %s" % paren(a)), 0.6)),
                (1, lambda: (c_or_std("erfc", a), 2.0)),
                (1, lambda: ("std::fma(%s, %s, 0.5)" % (a, b), 1.5)),
                (0.3, lambda: ("std::copysign(%s, %s)" % (a, b), 1.0)),
                (0.3, lambda: ("%s * std::%s(%s)" % (a, self.pick(["floor", "ceil", "round", "trunc"]), b), 1.0)),
            ]
            return self.weighted(forms)()

        f = self.weighted([(8, binop), (2, div), (2, unary), (1, exp), (1, log), (1, sqrt),
                           (1, fabs), (1, fmaxmin), (1, pow_), (1, ternary), (1, neg), (3, library)])
        code, bound = f()
        if bound > BMAX:
            code, bound = self.squash(code, bound)
        return code, bound

    def bounded_expr(self, sc, limit=L, depth=None):
        if depth is None:
            depth = self.r.randint(1, 3)
        code, bound = self.expr(sc, depth)
        if bound > limit:
            if self.chance(0.5):
                return "%s * std::tanh(%s)" % (fmt(min(limit, 2.0)), code), min(limit, 2.0)
            return self.squash(code, bound)
        return code, bound

    def factor(self, sc):
        """A multiplier in [0.75, 1.25] (or a bounded value of magnitude <= 1)."""
        a, ba = self.expr(sc, self.r.randint(0, 2))
        form = self.r.randint(0, 3)
        if form == 0:
            return "(1.0 + 0.25 * std::tanh(%s))" % a
        if form == 1:
            return "(1.0 - 0.25 * std::sin(%s))" % a
        if form == 2 and not sc.helper:
            return "x[%s]" % self.x_index(sc)
        return "std::cos(%s)" % a

    def divisor(self, sc):
        a, ba = self.expr(sc, self.r.randint(0, 2))
        if self.chance(0.5):
            return "(1.0 + %s * %s)" % (paren(a), paren(a))
        a, _ = self.squash(a, ba)
        return "(1.25 + 0.25 * %s)" % paren(a)

    # ---- statements ------------------------------------------------------------------------
    def block(self, sc, n_stmts):
        for k in range(n_stmts):
            if self.stmt_budget <= 0 and k > 0:
                break
            self.stmt(sc)

    def stmt(self, sc):
        self.stmt_budget -= 1
        opts = [
            (1 if sc.in_if else 4, self.decl),
            (3, self.y_update),
            (1, self.incdec),
        ]
        if not sc.helper:
            opts.append((0.7, self.int_decl))
            if sc.ivars:
                opts.append((1, self.int_update))
        if sc.doubles:
            opts += [(3, self.assign), (3, self.compound)]
        if sc.depth < 2:
            opts += [(3 if sc.depth == 0 else 2, self.for_loop), (1, self.while_loop), (0.5, self.do_loop)]
        opts.append((2, self.if_stmt))
        if sc.loop:
            opts.append((1, self.jump))
        if sc.doubles and sc.depth < 2:
            opts.append((1, self.running_max))
        if sc.helper:
            opts = [(4, self.decl)] + ([(3, self.assign), (3, self.compound), (1, self.incdec)] if sc.doubles else [])
            opts.append((1, self.if_stmt))
        else:
            opts.append((1, self.ptr_decl))
            if any(h[1] == "w" for h in self.helpers):
                opts.append((0.6, self.call_stmt))
            if sc.depth == 0:
                opts.append((0.7, self.buf_decl))
            if any(k == "buf" for _, _, k in sc.ptrs):
                opts.append((1.5, self.buf_update))
        if self.ext and not sc.helper:
            opts.append((0.8, self.struct_decl))
            if any(h[1] == "r" for h in self.helpers):
                opts.append((0.8, self.ref_call))
            if sc.sp == "ref" and any(h[1] == "m" for h in self.helpers):
                opts.append((1, self.struct_call))
            if self.struct_arrays:
                opts.append((0.6, self.struct_array_decl))
        if sc.depth > 0 and not sc.helper:
            opts.append((2, self.def_modify_use))
        if sc.depth < 2 and not sc.helper:
            opts.append((0.7, self.pointer_walk))
        if sc.depth == 0 and sc.parent is None and not self.returned and not sc.helper:
            opts.append((0.3, self.early_return))
        self.weighted(opts)(sc)

    def decl(self, sc):
        name = self.fresh(sc, DOUBLE_NAMES)
        code, _ = self.bounded_expr(sc)
        self.emit("double %s = %s;" % (name, code))
        sc.doubles.append(name)
        sc.names.add(name)

    def assign(self, sc):
        name = self.pick(sc.doubles[-3:] + sc.doubles)
        code, _ = self.bounded_expr(sc)
        self.emit("%s = %s;" % (name, code))

    def compound(self, sc):
        name = self.pick(sc.doubles[-3:] + sc.doubles)
        op = self.pick(["+=", "-=", "*=", "/=", "+="])
        if op in ("+=", "-="):
            code, _ = self.bounded_expr(sc, 1.0)
        elif op == "*=":
            code = self.factor(sc)
        else:
            code = self.divisor(sc)
        self.emit("%s %s %s;" % (name, op, code))

    def int_decl(self, sc):
        """An int local kept in [0, n - 1]: an index, a loop bound, updated (so its values must
        be kept for the reverse sweep)."""
        name = self.fresh(sc, ["m", "q", "r2", "k2", "idx", "lim"])
        opts = ["n - 1", "n / 2", "0", "1 % n"] + self.full_ints(sc)
        self.emit("int %s = %s;" % (name, self.pick(opts)))
        sc.ints.append((name, "full"))
        sc.ivars.append(name)
        sc.names.add(name)

    def int_update(self, sc):
        m = self.pick(sc.ivars)
        others = [v for v in self.full_ints(sc) if v != m]
        opts = ["%s = (%s + 1) %% n;" % (m, m), "%s = n - 1 - %s;" % (m, m), "%s = %s / 2;" % (m, m)]
        if others:
            o = self.pick(others)
            opts += ["%s = %s;" % (m, o), "%s = (%s + %s) %% n;" % (m, m, o)]
        self.emit(self.pick(opts))

    def incdec(self, sc):
        if not sc.doubles:
            return self.decl(sc)
        name = self.pick(sc.doubles)
        self.emit(self.pick(["%s++;", "%s--;", "++%s;", "--%s;"]) % name)

    def y_target(self, sc):
        cells = [(n, b, k) for n, b, k in sc.ptrs if b == "y"]
        if cells and self.chance(0.4):
            name, base, kind = self.pick(cells)
            if kind == "cell":
                return "%s[0]" % name
            return "%s[%s]" % (name, self.y_index(sc, write=True))
        return "y[%s]" % self.y_index(sc, write=True)

    def y_update(self, sc):
        t = self.y_target(sc)
        form = self.r.randint(0, 7)
        if form >= 6:
            a, ba = self.bounded_expr(sc, 1.0, depth=self.r.randint(1, 2))
            f = self.pick(["std::exp(%s)", "std::tanh(%s)", "std::sqrt(1.5 + %s)", "std::exp(-%s)"])
            self.emit("%s = %s;" % (t, f % (paren(a) if "-%s" in f else a)))
            return
        if form == 0:
            self.emit("%s = %s * %s;" % (t, t, self.factor(sc)))
        elif form == 1:
            code, _ = self.bounded_expr(sc, 1.0)
            self.emit("%s += %s;" % (t, code))
        elif form == 2:
            code, _ = self.bounded_expr(sc)
            self.emit("%s = %s;" % (t, code))
        elif form == 3:
            code, _ = self.bounded_expr(sc, 1.0)
            self.emit("%s -= %s;" % (t, code))
        elif form == 4:
            self.emit("%s *= %s;" % (t, self.factor(sc)))
        else:
            # y[i] = y[i] * y[i]-like nonlinear in-place update, kept bounded.
            self.emit("%s = %s * std::tanh(%s);" % (t, fmt(self.pick([1.0, 2.0])), t))

    def loop_body(self, sc, var_kind_pairs, loop_kind):
        inner = sc.child()
        for name, kind in var_kind_pairs:
            inner.ints.append((name, kind))
            inner.names.add(name)
        inner.loop = loop_kind
        inner.depth = sc.depth + 1
        self.indent += 1
        self.block(inner, self.r.randint(1, 4))
        return inner

    def for_loop(self, sc):
        i = self.fresh(sc, INT_NAMES)
        outer = self.full_ints(sc)
        forms = [
            (5, "for (int {i} = 0; {i} < n; {i}++) {{"),
            (2, "for (int {i} = n - 1; {i} >= 0; {i}--) {{"),
            (1, "for (int {i} = 0; {i} < n; {i} += 2) {{"),
            (1, "for (int {i} = 1; {i} < n; {i} += 2) {{"),
            (1, "for (int {i} = 0; {i} < n; ++{i}) {{"),
        ]
        if outer:
            o = self.pick(outer)
            forms += [(2, "for (int {i} = 0; {i} < %s; {i}++) {{" % o),
                      (1, "for (int {i} = %s; {i} < n; {i}++) {{" % o)]
        self.emit(self.weighted(forms).format(i=i))
        self.loop_body(sc, [(i, "full")], "for")
        self.indent -= 1
        self.emit("}")

    def while_loop(self, sc):
        k = self.fresh(sc, INT_NAMES)
        small = self.chance(0.3)
        self.emit("int %s = 0;" % k)
        sc.names.add(k)
        self.emit("while (%s < %s) {" % (k, "3" if small else "n"))
        self.loop_body(sc, [(k, "small" if small else "full")], "while")
        self.emit(self.pick(["%s++;", "%s += 1;", "%s = %s + 1;"]).replace("%s", k))
        self.indent -= 1
        self.emit("}")

    def do_loop(self, sc):
        k = self.fresh(sc, INT_NAMES)
        self.emit("int %s = 0;" % k)
        sc.names.add(k)
        self.emit("do {")
        self.loop_body(sc, [(k, "small")], "do")
        self.emit("%s++;" % k)
        self.indent -= 1
        self.emit("} while (%s < 3);" % k)

    def if_stmt(self, sc):
        self.emit("if (%s) {" % self.cond(sc))
        self.indent += 1
        self.block(self.if_scope(sc), self.r.randint(1, 2))
        self.indent -= 1
        if self.chance(0.5):
            self.emit("} else {")
            self.indent += 1
            self.block(self.if_scope(sc), self.r.randint(1, 2))
            self.indent -= 1
        self.emit("}")

    def if_scope(self, sc):
        inner = sc.child()
        inner.in_if = True
        return inner

    def jump(self, sc):
        # continue would skip a while/do loop's increment: only for loops get it.
        kinds = ["break"] + (["continue"] if sc.loop == "for" else [])
        self.emit("if (%s) %s;" % (self.cond(sc), self.pick(kinds)))

    def running_max(self, sc):
        m = self.fresh(sc, DOUBLE_NAMES)
        self.emit("double %s = %s;" % (m, self.pick(["-10.0", "x[0]", "c[1]", "0.0"])))
        sc.names.add(m)
        i = self.fresh(sc, INT_NAMES)
        self.emit("for (int {i} = 0; {i} < n; {i}++) {{".format(i=i))
        inner = sc.child()
        inner.ints.append((i, "full"))
        inner.names.add(i)
        inner.loop = "for"
        inner.depth = sc.depth + 1
        self.indent += 1
        code, _ = self.bounded_expr(inner)
        if self.chance(0.5):
            self.emit("if (%s > %s) %s = %s;" % (paren(code), m, m, code))
        elif self.chance(0.5):
            v = self.fresh(inner, DOUBLE_NAMES)
            self.emit("double %s = %s;" % (v, code))
            self.emit("if (%s > %s) %s = %s;" % (v, m, m, v))
        else:
            self.emit("%s = std::fmax(%s, %s);" % (m, m, code))
        self.indent -= 1
        self.emit("}")
        sc.doubles.append(m)

    def ptr_decl(self, sc):
        full = self.full_ints(sc)
        name = self.fresh(sc, ["p", "r", "o", "row", "out"])
        if full and sc.depth > 0:
            i = self.pick(full)
            if self.chance(0.5):
                self.emit("const double* %s = x + %s;" % (name, i))
                sc.ptrs.append((name, "x", "row"))
            else:
                self.emit("double* %s = y + %s;" % (name, i))
                sc.ptrs.append((name, "y", "cell"))
        else:
            if self.chance(0.5):
                self.emit("const double* %s = x + 1;" % name)
                sc.ptrs.append((name, "x", "xoff"))
            else:
                self.emit("double* %s = y;" % name)
                sc.ptrs.append((name, "y", "ybase"))
        sc.names.add(name)

    def def_modify_use(self, sc):
        """A local defined in a loop body from outer values, then something it read modified, then
        the local used nonlinearly: the shape where recomputing the local in the reverse sweep
        (instead of taping it) would read the modified value."""
        name = self.fresh(sc, DOUBLE_NAMES)
        code, _ = self.bounded_expr(sc, depth=self.r.randint(1, 2))
        self.emit("double %s = %s;" % (name, code))
        sc.doubles.append(name)
        sc.names.add(name)
        for _ in range(self.r.randint(1, 2)):
            self.weighted([(3, self.y_update), (2, self.assign), (2, self.compound), (1, self.incdec),
                           (1, self.if_stmt)] + ([(1, self.for_loop)] if sc.depth < 2 else []))(sc)
        t = self.y_target(sc) if self.chance(0.6) else self.pick(sc.doubles)
        form = self.r.randint(0, 3)
        # (Non-expanding forms: repeated in loops they must not overflow.)
        if form == 0:
            self.emit("%s = std::sin(%s) * %s;" % (t, name, name))
        elif form == 1:
            self.emit("%s += std::sin(%s) * %s;" % (t, name, self.leaf(sc)[0]))
        elif form == 2:
            self.emit("%s = %s * std::tanh(%s);" % (t, t, name))
        else:
            self.emit("%s -= std::exp(std::tanh(%s));" % (t, name))

    def pointer_walk(self, sc):
        """const double* p = x; (or double* q = y + 0;) advanced by one each iteration."""
        on_x = self.chance(0.6)
        name = self.fresh(sc, ["p", "r", "o", "row", "out"])
        sc.names.add(name)
        if on_x:
            self.emit("const double* %s = x;" % name)
        else:
            self.emit("double* %s = y;" % name)
        i = self.fresh(sc, INT_NAMES)
        self.emit("for (int {i} = 0; {i} < n; {i}++) {{".format(i=i))
        inner = sc.child()
        inner.ints.append((i, "full"))
        inner.names.add(i)
        inner.loop = "for"
        inner.depth = sc.depth + 1
        inner.ptrs.append((name, "x" if on_x else "y", "row" if on_x else "cell"))
        self.indent += 1
        self.block(inner, self.r.randint(1, 3))
        # Make sure the walking pointer is read or written at least once.
        if on_x:
            code, _ = self.bounded_expr(inner, 1.0, depth=1)
            self.emit("y[%s] += %s * %s;" % (i, self.ptr_read(inner, name, "x", "row"), paren(code)))
        else:
            self.emit("%s[0] = %s[0] * %s;" % (name, name, self.factor(inner)))
        self.emit("%s = %s + 1;" % (name, name))
        self.indent -= 1
        self.emit("}")
        if on_x:
            sc.ptrs.append((name, "x", "end"))

    def call_stmt(self, sc):
        name = self.pick([h[0] for h in self.helpers if h[1] == "w"])
        self.call_depth += 1
        a, _ = self.bounded_expr(sc, depth=self.r.randint(0, 1))
        self.call_depth -= 1
        self.emit("%s(%s, %s, %s);" % (name, self.y_pointer_arg(sc), self.x_pointer_arg(sc), a))

    def buf_decl(self, sc):
        name = self.fresh(sc, ["buf", "tmp", "acc"])
        sc.names.add(name)
        self.emit("double %s[3];" % name)
        self.fill_three(sc, name)
        sc.ptrs.append((name, "buf", "buf"))

    def fill_three(self, sc, target):
        """`for (int k = 0; k < 3; k++) target[k] = <an expression that may read k>;`"""
        k = self.fresh(sc, INT_NAMES)
        inner = sc.child()
        inner.ints.append((k, "small"))
        inner.names.add(k)
        inner.depth = sc.depth + 1
        code, _ = self.bounded_expr(inner)
        self.emit("for (int {k} = 0; {k} < 3; {k}++) {t}[{k}] = {e};".format(k=k, t=target, e=code))

    def buf_update(self, sc):
        name = self.pick([n for n, b, k in sc.ptrs if k == "buf"])
        t = "%s[%s]" % (name, self.buf_index(sc))
        form = self.r.randint(0, 3)
        if form == 0:
            code, _ = self.bounded_expr(sc, 1.0)
            self.emit("%s += %s;" % (t, code))
        elif form == 1:
            self.emit("%s = %s * %s;" % (t, t, self.factor(sc)))
        elif form == 2:
            code, _ = self.bounded_expr(sc)
            self.emit("%s = %s;" % (t, code))
        else:
            self.emit("%s = std::tanh(%s) * %s;" % (t, t, self.leaf(sc)[0]))

    def struct_decl(self, sc):
        """A local S (two members and an array member v[3]) or S2 (two members), by braces,
        designated initialisers, member assignment or a copy, its members then used as locals."""
        name = self.fresh(sc, ["ls", "ms", "ns"])
        sc.names.add(name)
        e1, _ = self.bounded_expr(sc, depth=self.r.randint(0, 2))
        e2, _ = self.bounded_expr(sc, depth=self.r.randint(0, 2))
        if self.real == "float":  # (double constants make the expressions double: no narrowing in braces)
            e1, e2 = "double(%s)" % e1, "double(%s)" % e2
        with_array = self.chance(0.5)
        if not with_array:
            name = self.fresh(sc, ["cs", "cs2", "cs3"])
            sc.names.add(name)
        # Structs of the same type in scope, to copy.
        copies = [n for n in sorted(sc.names)
                  if n not in (name, "sp") and n + ".a" in sc.doubles and (n[0] == "c") != with_array]
        if copies and self.chance(0.5):
            form = "copy"
        elif with_array:
            form = self.pick(["{%s, %s}", "{%s, %s}", "{.a = %s, .b = %s}", "{.b = %s}", "assign"])
        else:
            form = self.pick(["{%s, %s}", "{.a = %s, .b = %s}", "brace", "assign"])
        struct = "S" if with_array else "S2"
        if form == "assign":
            self.emit("%s %s;" % (struct, name))
            self.emit("%s.a = %s;" % (name, e1))
            self.emit("%s.b = %s;" % (name, e2))
        elif form == "brace":
            self.emit("%s %s{%s, %s};" % (struct, name, e1, e2))
        elif form == "copy":
            self.emit("%s %s = %s;" % (struct, name, self.pick(copies)))
        elif form == "{.b = %s}":
            self.emit("%s %s = {.b = %s};" % (struct, name, e2))  # a is zero
        else:
            self.emit(("%s %s = " + form + ";") % (struct, name, e1, e2))
        sc.doubles += [name + ".a", name + ".b"]
        if with_array and form == "copy":
            sc.ptrs.append((name + ".v", "buf", "buf"))
        elif with_array:
            self.fill_three(sc, name + ".v")
            sc.ptrs.append((name + ".v", "buf", "buf"))

    def struct_array_decl(self, sc):
        """A local array of 2 or 3 S2: braced (elements not given are zero), or declared and filled
        by a loop over its elements; its elements' members then used as locals; sometimes one
        element copied into another, or all elements read in a loop into a local."""
        name = self.fresh(sc, ["sa", "sb", "sc"])
        sc.names.add(name)
        m = self.r.randint(2, 3)
        q = self.fresh(sc, ["q", "qq"])
        double = (lambda e: "double(%s)" % e) if self.real == "float" else (lambda e: e)
        form = self.pick(["braced", "partial", "loop"])
        if form == "loop":
            e1, _ = self.bounded_expr(sc, depth=self.r.randint(0, 2))
            e2, _ = self.bounded_expr(sc, 1.0, depth=self.r.randint(0, 2))
            self.emit("S2 %s[%d];" % (name, m))
            self.emit("for (int %s = 0; %s < %d; %s++) {" % (q, q, m, q))
            self.emit("  %s[%s].a = %s;" % (name, q, e1))
            self.emit("  %s[%s].b = %s * %s;" % (name, q, e2, q))
            self.emit("}")
        else:
            given = m if form == "braced" else self.r.randint(1, m - 1)
            elements = []
            for _ in range(given):
                e1, _ = self.bounded_expr(sc, depth=self.r.randint(0, 2))
                e2, _ = self.bounded_expr(sc, depth=self.r.randint(0, 2))
                elements.append("{%s, %s}" % (double(e1), double(e2)))
            self.emit("S2 %s[%d] = {%s};" % (name, m, ", ".join(elements)))
        if self.chance(0.3):
            to, frm = self.r.sample(range(m), 2)
            self.emit("%s[%d] = %s[%d];" % (name, to, name, frm))
        locals_ = [d for d in sc.doubles if d.isidentifier()]
        if locals_ and self.chance(0.5):
            self.emit("for (int %s = 0; %s < %d; %s++) %s += std::tanh(%s[%s].a) * %s[%s].b;"
                      % (q, q, m, q, self.pick(locals_), name, q, name, q))
        sc.doubles += ["%s[%d].%s" % (name, k, member) for k in range(m) for member in "ab"]

    def ref_call(self, sc):
        """A helper writing its first argument through a double&: a local, a struct member or an
        element of y."""
        name = self.pick([h[0] for h in self.helpers if h[1] == "r"])
        targets = [(2, lambda: "y[%s]" % self.y_index(sc, write=True))]
        if sc.doubles:
            targets.append((3, lambda: self.pick(sc.doubles)))
        bufs = [n for n, b, k in sc.ptrs if k == "buf"]
        if bufs:
            targets.append((1, lambda: "%s[%s]" % (self.pick(bufs), self.buf_index(sc))))
        t = self.weighted(targets)()
        self.call_depth += 1
        a, _ = self.bounded_expr(sc, 1.0, depth=self.r.randint(0, 1))
        self.call_depth -= 1
        self.emit("%s(%s, %s);" % (name, t, a))

    def struct_call(self, sc):
        """A helper updating members of the struct parameter through a P&."""
        name = self.pick([h[0] for h in self.helpers if h[1] == "m"])
        self.call_depth += 1
        a, _ = self.bounded_expr(sc, 1.0, depth=self.r.randint(0, 1))
        self.call_depth -= 1
        self.emit("%s(sp, %s);" % (name, a))

    def callable_decl(self, sc):
        """At the top of a function: a lambda without captures or a function object, called later."""
        if self.functors and self.chance(0.4):
            name = self.fresh(sc, ["fo", "fn", "op"])
            self.emit("%s %s%s;" % (self.pick(self.functors), name, self.pick(["{0.5}", "{1.25}", " = {-0.75}"])))
            kind = "s"
        else:
            kind = self.pick(["s", "p"])
            name = "lam%d" % self.lambdas
            self.lambdas += 1
            head, body = self.callable_body(kind, "[](")
            self.emit("auto %s = %s {" % (name, head))
            for line in body:
                self.emit(line)
            self.emit("};")
        sc.names.add(name)
        sc.calls.append((name, kind))

    def callable_body(self, kind, prefix, member=None):
        """The head and body lines (without the closing brace) of a function of `kind` (s: (double a,
        double b), p: (const double* p, double a)) returning a bounded value; `member` is read too."""
        saved = (self.lines, self.indent, self.stmt_budget)
        sc = Scope()
        sc.helper = True
        if kind == "s":
            head = prefix + "double a, double b)"
            sc.doubles += ["a", "b"]
            sc.names |= {"a", "b"}
        else:
            head = prefix + "const double* p, double a)"
            sc.doubles.append("a")
            sc.names |= {"a", "p"}
            sc.ptrs.append(("p", "x", "row"))
        if member:
            sc.reads.append(member)
            sc.names.add(member)
        self.lines = []
        self.indent = 1
        self.stmt_budget = self.r.randint(0, 2)
        if self.stmt_budget:
            self.block(sc, 2)
        code, _ = self.bounded_expr(sc)
        self.emit("return %s;" % code)
        body = self.lines
        self.lines, self.indent, self.stmt_budget = saved
        return head, body

    def functor(self, m):
        """A function object type: a member k and a const call operator of (double, double)."""
        name = "F%d" % m
        head, body = self.callable_body("s", "double operator()(", member="k")
        text = ["struct %s {" % name, "  double k;", "  %s const {" % head]
        text += ["  " + line for line in body]
        text += ["  }", "};"]
        return name, "\n".join(text)

    def early_return(self, sc):
        self.returned = True
        self.emit("if (%s) return;" % self.value_cond(sc))

    def helper(self, m):
        """A user function the random functions call: (name, kind, source)."""
        kind = self.pick(["s", "p", "w"] + (["r", "k", "c", "m"] if self.ext else []))
        sc = Scope()
        sc.helper = True
        if kind == "r":  # writes through a double&
            name = "hr%d" % m
            head = "void %s(double& o, double a) {" % name
            sc.doubles += ["a", "o"]
            sc.names |= {"a", "o"}
        elif kind == "k":  # const double& parameters
            name = "hk%d" % m
            head = "double %s(const double& a, const double& b) {" % name
            sc.reads += ["a", "b"]
            sc.names |= {"a", "b"}
        elif kind in "cm":  # the struct by const& (reads its members) or by & (updates them)
            name = "h%s%d" % (kind, m)
            head = "%s %s(%sP& q, double a) {" % ("double" if kind == "c" else "void", name,
                                                  "const " if kind == "c" else "")
            sc.doubles.append("a")
            sc.names |= {"a", "q"}
            if kind == "c":
                sc.reads += ["q.a", "q.b"]
                sc.ptrs.append(("q.v", "x", "rbuf"))
            else:
                sc.doubles += ["q.a", "q.b"]
                sc.ptrs.append(("q.v", "x", "buf"))
        elif kind == "s":
            name = "hs%d" % m
            head = "double %s(double a, double b) {" % name
            sc.doubles += ["a", "b"]
            sc.names |= {"a", "b"}
        elif kind == "p":
            name = "hp%d" % m
            head = "double %s(const double* p, double a) {" % name
            sc.doubles.append("a")
            sc.names |= {"a", "p"}
            sc.ptrs.append(("p", "x", "row"))
        else:
            name = "hw%d" % m
            head = "void %s(double* o, const double* p, double a) {" % name
            sc.doubles.append("a")
            sc.names |= {"a", "p", "o"}
            sc.ptrs.append(("p", "x", "row"))
        self.lines = [head]
        self.indent = 1
        self.stmt_budget = self.r.randint(1, 3)
        self.block(sc, 3)
        if kind == "p" and self.chance(0.6):
            acc = self.fresh(sc, DOUBLE_NAMES)
            self.emit("double %s = 0.0;" % acc)
            self.emit("for (int k = 0; k < 3; k++) %s += p[k] * %s;" % (acc, paren(self.leaf(sc)[0])))
            sc.doubles.append(acc)
            sc.names.add(acc)
        if kind == "w":
            code, _ = self.bounded_expr(sc, 1.0)
            if self.chance(0.5):
                self.emit("o[0] = o[0] * %s + %s;" % (self.factor(sc), paren(code)))
            else:
                self.emit("o[0] += %s;" % code)
        elif kind in "rm":
            code, _ = self.bounded_expr(sc, 1.0)
            t = "o" if kind == "r" else self.pick(["q.a", "q.b", "q.v[%d]" % self.r.randint(0, 2)])
            if self.chance(0.5):
                self.emit("%s = %s * %s + %s;" % (t, t, self.factor(sc), paren(code)))
            else:
                self.emit("%s += %s;" % (t, code))
        else:
            code, _ = self.bounded_expr(sc)
            self.emit("return %s;" % code)
        self.lines.append("}")
        return name, kind, "\n".join(self.lines)

    def function(self, k):
        """f<k>'s source, after the helpers only it uses; and its struct parameter's kind (cref, ref,
        value or None)."""
        sc = Scope()
        private = []
        if self.ext:
            sc.sp = self.weighted([(4, None), (2, "cref"), (2, "ref"), (1, "value")])
            if self.chance(0.05):
                # A function returning a reference: adjc rejects it (a diagnostic, and f<k> dropped).
                private = ["// used by f%d" % k, "const double& at%d(const double* p, int j) { return p[j]; }" % k]
        param = {"cref": "const P& sp, ", "ref": "P& sp, ", "value": "P sp, "}.get(sc.sp, "")
        self.lines = private + ["void f%d(double* y, const double* x, const double* c, %sint n) {" % (k, param)]
        self.indent = 1
        self.returned = False
        if sc.sp:
            sc.names.add("sp")
            if sc.sp in ("cref", "value"):  # (adjc rejects writes to a struct parameter by value)
                sc.reads += ["sp.a", "sp.b"]
                sc.ptrs.append(("sp.v", "x", "rbuf"))
            else:
                sc.doubles += ["sp.a", "sp.b"]
                sc.ptrs.append(("sp.v", "buf", "buf"))
        if private:
            self.emit("y[0] += at%d(x, 1) * c[0];" % k)
        if self.ext and self.calls and self.chance(0.5):
            for _ in range(self.r.randint(1, 2)):
                self.callable_decl(sc)
        self.stmt_budget = self.r.randint(6, 16)
        self.block(sc, 100)
        # Make the top-level locals reach the output.
        if sc.doubles:
            terms = []
            for v in self.r.sample(sc.doubles, min(len(sc.doubles), 3)):
                terms.append("%s * std::tanh(%s)" % (fmt(self.pick([0.5, 0.25, 1.0])), v))
            self.emit("for (int i = 0; i < n; i++) y[i] = y[i] * %s + %s;" % (
                fmt(self.pick([0.5, 1.0, 0.75])), " + ".join(terms)))
        self.lines.append("}")
        return "\n".join(self.lines), sc.sp


def paren(code):
    """Parenthesises code unless it is an atom (a name, a number, an indexed read, a call)."""
    depth = 0
    for ch in code:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in " ?:":
            return "(%s)" % code
    if code.startswith("-"):
        return "(%s)" % code
    return code


CHECKER = r"""
// ---- checker -------------------------------------------------------------------------------
using Fn = void (*)(real*, const real*, const real*, int);
// Finite-difference steps, the step disagreement that marks a kink, and the tolerance.
constexpr bool single = sizeof(real) == sizeof(float);
constexpr double H1 = single ? 1e-2 : 1e-6, H2 = single ? 3e-3 : 1e-5, KINK = single ? 5e-3 : 1e-6,
                 TOL = single ? 2e-2 : 1e-5;


// The arguments of a function: y, x, c and the struct parameter's members a, b, v[0..2] as p (empty
// for a function without one). y and p are read and written in place.
struct Args {
  std::vector<real> y, x, c, p;
};
static auto plain(Fn f) {
  return [f](Args& a, int n) { f(a.y.data(), a.x.data(), a.c.data(), n); };
}
template <class G>
static auto plain_gradient(const G& g) {
  return [&g](Args& a, Args& d, int n) {
    g.execute(a.y.data(), a.x.data(), a.c.data(), n, d.y.data(), d.x.data(), d.c.data());
  };
}

// J = w . y + wp . p after the call; its gradient by adjc (seeds w, wp) and by finite differences.
template <class Run, class Grad>
static int check(const char* name, Run run_f, Grad grad, int n, int np, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Args a0{std::vector<real>(n), std::vector<real>(n + 2), std::vector<real>(4), std::vector<real>(np)};
  std::vector<real> w(n), wp(np);
  for (auto& v : a0.y) v = u(rng);
  for (auto& v : a0.x) v = u(rng);
  for (auto& v : a0.c) v = u(rng);
  for (auto& v : w) v = u(rng);
  for (auto& v : a0.p) v = u(rng);
  for (auto& v : wp) v = u(rng);
  auto J = [&](const Args& at) {
    Args a = at;
    run_f(a, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += double(w[i]) * a.y[i];
    for (int i = 0; i < np; i++) s += double(wp[i]) * a.p[i];
    return s;
  };
  // Analytic, twice (the second run must agree exactly: a balanced tape).
  std::vector<real> an[2][4];
  const char* names[4] = {"y", "x", "c", "p"};
  for (int run = 0; run < 2; run++) {
    Args a = a0, d{w, std::vector<real>(n + 2, 0.0f), std::vector<real>(4, 0.0f), wp};
    grad(a, d, n);
    an[run][0] = d.y; an[run][1] = d.x; an[run][2] = d.c; an[run][3] = d.p;
  }
  for (int a = 0; a < 4; a++)
    for (std::size_t i = 0; i < an[0][a].size(); i++)
      if (!(an[0][a][i] == an[1][a][i]) && !(std::isnan(an[0][a][i]) && std::isnan(an[1][a][i]))) {
        std::printf("%s FAIL repeat: second execute differs (%s[%zu]: %.17g vs %.17g)\n", name, names[a], i,
                    an[0][a][i], an[1][a][i]);
        return 1;
      }
  Args at = a0;
  std::feclearexcept(FE_INVALID);
  double j0 = J(at);
  if (!std::isfinite(j0) || std::fabs(j0) > 1e6) {
    std::printf("%s ILL objective %g\n", name, j0);
    return 2;
  }
  // A NaN the function computes and then overwrites leaves J finite, but its adjoint is 0 * NaN in
  // any reverse mode (PyTorch's too): not a differentiable function at this point.
  if (std::fetestexcept(FE_INVALID))
    for (int a = 0; a < 4; a++)
      for (real g : an[0][a])
        if (!std::isfinite(g)) {
          std::printf("%s ILL a NaN computed and overwritten inside the function\n", name);
          return 2;
        }
  double maxerr = 0, worst_an = 0, worst_fd = 0;
  const char* worst_arg = "";
  std::size_t worst_i = 0;
  int skipped = 0;
  std::vector<real>* args[4] = {&at.y, &at.x, &at.c, &at.p};
  for (int a = 0; a < 4; a++) {
    std::vector<real>& v = *args[a];
    for (std::size_t i = 0; i < v.size(); i++) {
      const real saved = v[i];
      // Central difference at step h, and the gap between its forward and backward halves.
      struct Fd { double central, gap; };
      auto fd_at = [&](double h) {
        const double step = h * std::fmax(1.0, std::fabs(double(saved)));
        v[i] = real(saved + step);
        const double up = J(at);
        const double hi = v[i];
        v[i] = real(saved - step);
        const double down = J(at);
        const double lo = v[i];
        v[i] = saved;
        return Fd{(up - down) / (double(hi) - lo), (up - j0) / (hi - saved) - (j0 - down) / (saved - lo)};
      };
      const Fd fd1 = fd_at(H1), fd2 = fd_at(H2);
      const double fd = fd1.central;
      const double g_an = an[0][a][i];
      if (!std::isfinite(fd) || std::fabs(fd) > 1e6) {
        std::printf("%s ILL gradient %s[%zu] fd %g\n", name, names[a], i, fd);
        return 2;
      }
      const double scale = std::fmax(1.0, std::fabs(fd));
      // A kink between the steps makes them disagree. One closer than both steps does not, but it
      // shows in the halves: on a smooth function their gap shrinks with the step (h f''), across
      // a kink it stays the jump in slope.
      const double near_gap = H1 < H2 ? fd1.gap : fd2.gap, far_gap = H1 < H2 ? fd2.gap : fd1.gap;
      if (std::fabs(fd - fd2.central) > KINK * scale ||
          (std::fabs(near_gap) > KINK * scale && std::fabs(near_gap) > 0.6 * std::fabs(far_gap))) {
        skipped++;
        continue;
      }
      const double err = std::isfinite(g_an) ? std::fabs(g_an - fd) / scale : 1e300;
      if (err > maxerr) {
        maxerr = err; worst_an = g_an; worst_fd = fd; worst_arg = names[a]; worst_i = i;
      }
    }
  }
  const std::size_t total = at.y.size() + at.x.size() + at.c.size() + at.p.size();
  if (4 * std::size_t(skipped) > total) {  // finite differences disagree with themselves: chaotic
    std::printf("%s ILL finite differences unstable at %d of %zu elements\n", name, skipped, total);
    return 2;
  }
  if (maxerr > TOL) {
    std::printf("%s FAIL maxerr=%.3g at d_%s[%zu]: adjc %.12g, finite differences %.12g (n=%d, seed %u, %d skipped)\n",
                name, maxerr, worst_arg, worst_i, worst_an, worst_fd, n, seed, skipped);
    return 1;
  }
  std::printf("%s PASS maxerr=%.3g%s\n", name, maxerr, skipped ? " (some elements skipped: kinks)" : "");
  return 0;
}
"""

# The struct parameter P of extended programs, to and from its members as a vector.
CHECKER_STRUCT = r"""
static P to_struct(const std::vector<real>& v) {
  P s;
  s.a = v[0];
  s.b = v[1];
  for (int k = 0; k < 3; k++) s.v[k] = v[2 + k];
  return s;
}
static void from_struct(const P& s, std::vector<real>& v) { v = {s.a, s.b, s.v[0], s.v[1], s.v[2]}; }
template <class F>
static auto with_struct(F f) {
  return [f](Args& a, int n) {
    P s = to_struct(a.p);
    f(a.y.data(), a.x.data(), a.c.data(), s, n);
    from_struct(s, a.p);
  };
}
template <class G>
static auto with_struct_gradient(const G& g) {
  return [&g](Args& a, Args& d, int n) {
    P s = to_struct(a.p), ds = to_struct(d.p);
    g.execute(a.y.data(), a.x.data(), a.c.data(), s, n, d.y.data(), d.x.data(), d.c.data(), &ds);
    from_struct(ds, d.p);
  };
}
"""


def generate(seed, k_functions, drop=(), calls=True, drop_forward=(), drop_vector=(), drop_jacobian=()):
    rng = random.Random(seed)
    # The forward-mode checks draw from a stream of their own: the functions stay what they were.
    frng = random.Random(seed * 7919 + 3)
    # A third of the programs in float: every double of the functions becomes a float.
    real = "float" if random.Random(seed * 7919 + 1).random() < 1 / 3 else "double"
    # Over half of the programs also use structs, reference parameters, lambdas and function objects.
    ext = random.Random(seed * 7919 + 2).random() < 0.6
    gen = Gen(rng, real, ext, calls, struct_arrays=ext and seed >= 10000)
    out = ["// Generated by tests/adjc/fuzz/generate.py, seed %d. Do not edit." % seed,
           "#include <adjoint/ad.hpp>", "", "#include <algorithm>", "#include <cfenv>", "#include <cmath>", "#include <cstdio>",
           "#include <functional>", "#include <map>", "#include <math.h>", "#include <random>", "#include <vector>", ""]

    def typed(text):
        return text.replace("double", real)
    if ext:
        out += [typed("struct S { double a, b; double v[3]; };  // local structs"),
                typed("struct S2 { double a, b; };"),
                typed("struct P { double a, b; double v[3]; };  // a parameter"), ""]
        for m in range(rng.randint(0, 2)):
            name, text = gen.functor(m)
            if calls:
                out += [typed(text), ""]
                gen.functors.append(name)
    for m in range(rng.randint(0, 3)):
        name, kind, text = gen.helper(m)
        if calls:
            out.append(typed(text))
            out.append("")
            gen.helpers.append((name, kind))
    kinds = []
    for k in range(k_functions):
        text, sp = gen.function(k)
        kinds.append(sp)
        if k not in drop:
            out.append(typed(text))
            out.append("")
    out.append("using real = %s;" % real)
    out.append(CHECKER)
    if ext:
        out.append(CHECKER_STRUCT)
    out.append(forward.CHECKER)
    # Forward mode and Hessians of two functions (each request costs about what a gradient does):
    # first order for both; in half of the programs (each nested stage parses the program again)
    # second order for the first.
    chosen = sorted(frng.sample(range(k_functions), min(2, k_functions)))
    elements = {k: frng.randint(0, 3) for k in chosen}
    second = chosen[0] if frng.random() < 0.5 else None
    checked = {k: (elements[k], k == second) for k in chosen}
    # The Jacobian (vector mode's sweeps, so not of a function with a struct parameter) of half of
    # them; drawn after the rest, which stay what they were.
    jacobian = {k: frng.random() < 0.5 and kinds[k] is None and k not in drop_jacobian for k in chosen}
    forward_kept = [k for k in chosen if k not in drop and k not in drop_forward]
    for k in forward_kept:
        out += [typed(forward.wrapper(k, kinds[k], k == second, jacobian[k])),
                forward.driver(k, *checked[k], vector=kinds[k] is None and k not in drop_vector, jacobian=jacobian[k]),
                ""]
    out += ["int main() {", "  int fails = 0;"]
    for k in range(k_functions):
        # Mostly small; sometimes past 64 iterations (branch bits are pushed in words of 64).
        n = rng.randint(3, 6) if rng.random() < 0.85 else rng.choice([63, 64, 65, 130])
        if kinds[k]:
            run, grad, np = "with_struct(f%d)" % k, "with_struct_gradient(g)", 5
        else:
            run, grad, np = "plain(f%d)" % k, "plain_gradient(g)", 0
        seed_k = rng.randint(1, 1 << 30)
        line = ("  { auto g = adjoint::gradient(f%d); const int r = check(\"f%d\", %s, %s, %d, %d, %du); fails += r == 1;"
                % (k, k, run, grad, n, np, seed_k))
        if k in forward_kept:  # (compared with the reverse gradient: only when that one passed)
            line += " if (r == 0) fails += forward%d(%s, %d, %d, %du) == 1;" % (k, grad, n, np, seed_k + 1)
        if k not in drop:
            out.append(line + " }")
    out.append("  return fails ? 1 : 0;")
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    k = 6
    if "--functions" in args:
        idx = args.index("--functions")
        k = int(args[idx + 1])
        del args[idx:idx + 2]
    calls = "--no-calls" not in args
    chains = "--kernel-chains" in args
    args = [a for a in args if a not in ("--no-calls", "--kernel-chains")]
    drops = {}
    for flag in ("--drop", "--drop-forward", "--drop-vector", "--drop-jacobian"):
        drops[flag] = set()
        if flag in args:
            idx = args.index(flag)
            drops[flag] = {int(v) for v in args[idx + 1].split(",") if v}
            del args[idx:idx + 2]
    if len(args) != 2:
        sys.stderr.write("usage: generate.py SEED OUT.cpp [--functions K] [--drop K,...] [--drop-forward K,...] "
                         "[--drop-vector K,...] [--drop-jacobian K,...] [--no-calls] [--kernel-chains]\n")
        return 2
    if chains:
        import kernel_chains
        text = kernel_chains.generate(int(args[0]), k)
    else:
        text = generate(int(args[0]), k, drops["--drop"], calls, drops["--drop-forward"], drops["--drop-vector"],
                        drops["--drop-jacobian"])
    with open(args[1], "w") as fh:
        fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
