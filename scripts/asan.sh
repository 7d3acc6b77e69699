#!/usr/bin/env bash
# The ctest suite under AddressSanitizer (with LeakSanitizer) and UBSan, in its own build
# (build-asan/: -O2 -g, -fsanitize=address,undefined on everything, adjc included). Any sanitizer
# report fails the test it happens in. Without arguments it builds everything and runs every
# test but the fuzz.* ones (the fuzzers carry both sanitizers in every build already).
# Usage: scripts/asan.sh [--targets "TARGET..."] [CTEST_ARGS...]
#   --targets builds only those targets; CTEST_ARGS (e.g. -R REGEX) pick the tests to run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
targets=()
if [[ ${1:-} == --targets ]]; then
  read -ra targets <<<"$2"
  shift 2
fi
jobs=$(nproc)
# Leaks are checked, minus those tests/sanitizers/lsan.supp names (each with its reason).
# use_tls=0: GCC 12's LeakSanitizer reads a bogus dynamic-TLS range for threads that libgomp
# starts after a dlopen and its tracer dies of SIGSEGV ("LeakSanitizer has encountered a fatal
# error"). Without TLS as a root, leak reports can only grow, never shrink.
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0:use_tls=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The build runs the instrumented adjc on the corpus, so these hold for it too.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DADJOINT_ASAN=ON -DADJOINT_BUILD_BENCH=OFF \
  >/dev/null
cmake --build build-asan -j"$jobs" ${targets[@]:+--target "${targets[@]}"}
(($#)) || set -- -LE fuzz
ctest --test-dir build-asan --output-on-failure -j"$jobs" "$@"
