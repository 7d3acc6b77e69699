#!/bin/bash
# Random differential testing of adjc's fusion decisions (kernel_chains.py, generate.py
# --kernel-chains): for each seed, the fusion remarks adjc --remarks prints must be the ones the
# generator expects, pair by pair, every function's gradient must agree with central differences
# (a gtest program over tests/adjc/gradcheck.hpp), and the fused code's outputs and gradients at a
# fixed point must be those of adjc's output under --no-fusion (the same operations per element;
# a relative 1e-12 allows for sums the threads split differently).
#
#   tests/adjc/fuzz/kernel_chains.sh ADJC INCLUDE_DIR TESTS_DIR FIRST_SEED LAST_SEED [WORK_DIR]
#
# TESTS_DIR is tests/adjc (gradcheck.hpp). Failing seeds' files stay in WORK_DIR/failures; exits 1
# if any seed failed. Environment: FUNCTIONS (default 4), CXX (default g++).
set -u
if [ $# -lt 5 ]; then
  echo "usage: $0 ADJC INCLUDE_DIR TESTS_DIR FIRST_SEED LAST_SEED [WORK_DIR]" >&2
  exit 2
fi
ADJC=$1; INCLUDE=$2; TESTS=$3; FIRST=$4; LAST=$5
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${6:-$(mktemp -d /tmp/adjc_chains.XXXXXX)}
FUNCTIONS=${FUNCTIONS:-4}
CXX=${CXX:-g++}
mkdir -p "$WORK/failures"
pass=0; fail=0; failing=()
for ((seed = FIRST; seed <= LAST; seed++)); do
  src=$WORK/chains_$seed.cpp; out=$WORK/chains_$seed.adjc.cpp; exe=$WORK/chains_$seed
  /usr/bin/python3 "$HERE/generate.py" "$seed" "$src" --kernel-chains --functions "$FUNCTIONS" ||
    { echo "seed $seed: generator failed" >&2; exit 2; }
  why=""
  if ! nice timeout 120 "$ADJC" "$src" -o "$out" --remarks -- -std=c++20 -fopenmp -I"$INCLUDE" -I"$TESTS" \
      >"$WORK/adjc.log" 2>&1; then
    why="adjc failed: $(tail -n 2 "$WORK/adjc.log" | tr '\n' ' ')"
  else
    # Expected and reported outcomes, one "f<k> can|cannot" line per pair, in order.
    expected=$(grep -E '^// expect f[0-9]+:' "$src" |
               awk '{ f = $3; sub(":", "", f); for (i = 4; i <= NF; i++) print f, $i }')
    # A pair adjc fused ("are fused") is one that can fuse.
    reported=$(grep -E "remark: in 'f[0-9]+', the calls of .* ((can|cannot) fuse|are fused)" "$WORK/adjc.log" |
               sed -E -e "s/.*in '(f[0-9]+)', the calls of .* are fused .*/\1 can/" \
                      -e "s/.*in '(f[0-9]+)', the calls of .* (can|cannot) fuse.*/\1 \2/")
    if [ "$expected" != "$reported" ]; then
      why="fusion remarks differ: $(diff <(echo "$expected") <(echo "$reported") | tr '\n' ' ')"
    elif ! nice "$CXX" -std=c++20 -O1 -fopenmp -I"$INCLUDE" -I"$TESTS" "$out" -o "$exe" -lgtest -lgtest_main \
        -pthread >"$WORK/cxx.log" 2>&1; then
      why="adjc's output does not compile: $(grep -m1 error "$WORK/cxx.log")"
    elif ! CHAINS_DUMP=$WORK/fused.txt nice timeout 120 "$exe" >"$WORK/run.log" 2>&1; then
      why="wrong gradient: $(grep -m1 -A3 'Failure' "$WORK/run.log" | tr '\n' ' ')"
    elif ! nice timeout 120 "$ADJC" "$src" -o "$out" --no-fusion -- -std=c++20 -fopenmp -I"$INCLUDE" -I"$TESTS" \
        >"$WORK/adjc.log" 2>&1; then
      why="adjc --no-fusion failed: $(tail -n 2 "$WORK/adjc.log" | tr '\n' ' ')"
    elif ! nice "$CXX" -std=c++20 -O1 -fopenmp -I"$INCLUDE" -I"$TESTS" "$out" -o "$exe" -lgtest -lgtest_main \
        -pthread >"$WORK/cxx.log" 2>&1; then
      why="adjc's output under --no-fusion does not compile: $(grep -m1 error "$WORK/cxx.log")"
    elif ! CHAINS_DUMP=$WORK/unfused.txt nice timeout 120 "$exe" --gtest_filter=KernelChains.dump >"$WORK/run.log" 2>&1; then
      why="the unfused program failed: $(tail -n 3 "$WORK/run.log" | tr '\n' ' ')"
    elif ! differ=$(/usr/bin/python3 "$HERE/same_values.py" "$WORK/fused.txt" "$WORK/unfused.txt" 1e-12); then
      why="fused and unfused code differ: $differ"
    fi
  fi
  if [ -n "$why" ]; then
    fail=$((fail + 1)); failing+=("$seed"); echo "seed $seed: FAIL: $why"
    cp "$src" "$WORK/adjc.log" "$WORK/failures/" 2>/dev/null
  else
    pass=$((pass + 1))
  fi
  rm -f "$src" "$out" "$exe" "$WORK/fused.txt" "$WORK/unfused.txt"
done
echo "adjc kernel chains: seeds $FIRST..$LAST: $pass passed, $fail failed"
[ ${#failing[@]} -eq 0 ] || { echo "failing seeds: ${failing[*]} (files in $WORK/failures)"; exit 1; }
