#!/usr/bin/python3
"""same_values.py A B TOL: whether two dumps of named value lists (`name x1 x2 ...` a line, as
kernel_chains.py's `dump` test writes them) hold the same names and values, each pair within TOL
relative to max(1, |a|, |b|). Prints the first difference and exits 1 when not."""
import sys


def read(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def main():
    a, b, tol = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3])
    if not a:
        print("%s holds no values" % sys.argv[1])
        return 1
    if [line[:2] for line in a] != [line[:2] for line in b] or [len(x) for x in a] != [len(x) for x in b]:
        print("the dumps list different arrays")
        return 1
    for la, lb in zip(a, b):
        for i, (x, y) in enumerate(zip(map(float, la[2:]), map(float, lb[2:]))):
            if not abs(x - y) <= tol * max(1.0, abs(x), abs(y)):  # false for NaN too
                print("%s %s element %d: %.17g against %.17g" % (la[0], la[1], i, x, y))
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
