#!/usr/bin/python3
"""Runs test files of Clad's (its test/Gradient, say) unchanged through adjc++ and counts the
CHECK-EXEC lines their output matches, as FileCheck would (in order; text, or {{regex}}).

  measure.py <adjc++> <file.C>...

Each file is copied into a scratch folder below this folder's TestUtils.h and PrintOverloads.h
(Clad's tests include "../TestUtils.h"), built with `adjc++ -std=c++20` (ADJC_CXX picks the compiler) and run; a file
that does not build, or crashes, matches nothing. Prints one line per file (matched/total and the
first error) and the total.
"""
import os, re, shutil, subprocess, sys, tempfile


def checks_of(text):
    return [m.group(1).strip() for m in re.finditer(r"CHECK-EXEC:(.*)", text)]


def pattern_of(check):
    parts = re.split(r"\{\{(.*?)\}\}", check)
    return "".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts))


def matched(checks, output):
    lines, at, found, missing = output.splitlines(), 0, 0, []
    for check in checks:
        pattern = pattern_of(check)
        hit = next((i for i in range(at, len(lines)) if re.search(pattern, lines[i])), None)
        if hit is None:
            missing.append(check)
        else:
            found, at = found + 1, hit + 1
    return found, missing


def run(adjcxx, path, work):
    source = os.path.join(work, "tests", os.path.basename(path))
    shutil.copy(path, source)
    program = source + ".out"
    build = subprocess.run([adjcxx, "-std=c++20", source, "-o", program], capture_output=True, text=True)
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
            checks = checks_of(open(path, errors="replace").read())
            output, why = run(adjcxx, path, work)
            found, missing = matched(checks, output)
            total, passed = total + len(checks), passed + found
            print("%-36s %3d/%3d %s" % (os.path.basename(path), found, len(checks), why))
            for check in missing[:3]:
                print("      missing:", check)
    print("TOTAL %d/%d CHECK-EXEC lines" % (passed, total))


if __name__ == "__main__":
    main()
