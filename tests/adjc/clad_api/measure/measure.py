#!/usr/bin/python3
"""Runs test files of Clad's (its test/Gradient, say) unchanged through adjc++ and counts the
CHECK-EXEC and CHECK-EXEC-NEXT lines their output matches, as FileCheck would (in order, a -NEXT
line on the line after the previous match; text, or {{regex}}).

  measure.py <adjc++> <file.C>...

Each file is copied into a scratch folder below this folder's TestUtils.h and PrintOverloads.h
(Clad's tests include "../TestUtils.h"), built with `adjc++ -std=c++20` (ADJC_CXX picks the compiler),
together with the sources of the folder its RUN lines name (`%S/NumDiffDefs.C`), and run; a file
that does not build, or crashes, matches nothing; a file without CHECK-EXEC lines is skipped.
Prints one line per file (matched/total and the first error) and the total.
"""
import os, re, shutil, subprocess, sys, tempfile


def checks_of(text):
    """(next, pattern text) of each CHECK-EXEC and CHECK-EXEC-NEXT line."""
    return [(bool(m.group(1)), m.group(2).strip()) for m in re.finditer(r"CHECK-EXEC(-NEXT)?:(.*)", text)]


def pattern_of(check):
    parts = re.split(r"\{\{(.*?)\}\}", check)
    return "".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts))


def matched(checks, output):
    """As FileCheck: a CHECK line matches from where the previous match ended (the rest of its line
    too), a -NEXT line on the line after the previous match."""
    lines, at, column, found, missing = output.splitlines(), 0, 0, 0, []
    for is_next, check in checks:
        pattern = re.compile(pattern_of(check))
        # A -NEXT line must match the line after the previous match; one that does not still takes
        # its line, so that the -NEXT lines after it are counted against their own lines.
        hit = None
        if is_next:
            if found or missing:
                at, column = at + 1, 0
            if at < len(lines):
                m = pattern.search(lines[at])
                hit = (at, m.end()) if m else None
        else:
            for i in range(at, len(lines)):
                m = pattern.search(lines[i], column if i == at else 0)
                if m:
                    hit = (i, m.end())
                    break
        if hit is None:
            missing.append(check)
        else:
            found, (at, column) = found + 1, hit
    return found, missing


def companions_of(text):
    """The other sources of the folder a RUN line builds with the test (`%S/NumDiffDefs.C`)."""
    run_lines = [m.group(1) for m in re.finditer(r"RUN:(.*)", text)]
    return sorted({m.group(1) for line in run_lines for m in re.finditer(r"%S/([\w.]+\.(?:C|cpp))", line)})


def run(adjcxx, path, text, work):
    sources = []
    for name in [os.path.basename(path)] + companions_of(text):
        sources.append(os.path.join(work, "tests", name))
        shutil.copy(os.path.join(os.path.dirname(path), name), sources[-1])
    program = sources[0] + ".out"
    build = subprocess.run([adjcxx, "-std=c++20"] + sources + ["-o", program], capture_output=True, text=True)
    if build.returncode != 0:
        first = next((l for l in build.stderr.splitlines() if "error" in l), build.stderr[:200])
        return "", "build: " + first
    try:
        result = subprocess.run([program], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "", "timed out"
    return result.stdout, "" if result.returncode >= 0 else "crashed (signal %d)" % -result.returncode


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: measure.py <adjc++> <file.C>...")
    adjcxx, files = os.path.abspath(sys.argv[1]), sys.argv[2:]
    total = passed = 0
    with tempfile.TemporaryDirectory() as work:
        os.mkdir(os.path.join(work, "tests"))
        for header in ("TestUtils.h", "PrintOverloads.h"):
            shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), header), work)
        for path in files:
            text = open(path, errors="replace").read()
            checks = checks_of(text)
            if not checks:
                continue  # a companion source (NumDiffDefs.C) or a compile-only test
            output, why = run(adjcxx, path, text, work)
            found, missing = matched(checks, output)
            total, passed = total + len(checks), passed + found
            print("%-36s %3d/%3d %s" % (os.path.basename(path), found, len(checks), why))
            for check in missing[:3]:
                print("      missing:", check)
    print("TOTAL %d/%d CHECK-EXEC lines" % (passed, total))


if __name__ == "__main__":
    main()
