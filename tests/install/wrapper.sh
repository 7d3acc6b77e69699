#!/bin/bash
# adjc++ on its own: wrapper.sh <adjc++> <folder of inputs> <work dir>. Checks that a unit that
# requests a gradient compiles (-c, with a dependency file naming the user's files), links and
# runs; that a unit without one passes through (compile and link in one step); and that a request
# adjc rejects fails with the user's file and line.
set -uo pipefail
adjcxx=$1 inputs=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$adjcxx" -std=c++20 -O1 -Wall -Wextra -Werror -MD -MT square.o -MF square.d -c "$inputs/square.cpp" -o square.o ||
  fail "adjc++ -c square.cpp"
grep -q "$inputs/square.cpp" square.d || fail "square.d does not name square.cpp: $(cat square.d)"
grep -q "$inputs/square.hpp" square.d || fail "square.d does not name square.hpp: $(cat square.d)"
grep -q "adjc++\." square.d && fail "square.d names adjc++'s scratch files: $(cat square.d)"
"$adjcxx" square.o -o square || fail "adjc++ linking square.o"
./square || fail "square's gradient"

# Without -o and -MF the outputs are named after each unit, as the compiler names them.
rm -f square.o square.d
"$adjcxx" -std=c++20 -MMD -c "$inputs/square.cpp" "$inputs/cube.cpp" || fail "adjc++ -MMD -c square.cpp cube.cpp"
[ -f square.o ] && [ -f square.d ] && [ -f cube.o ] && [ -f cube.d ] || fail "adjc++ -c without -o: $(ls)"
grep -q "$inputs/cube.cpp" cube.d || fail "cube.d does not name cube.cpp: $(cat cube.d)"

# A compiler that cannot be started: one line naming it, non-zero exit.
ADJC_CXX=/nonexistent/c++ "$adjcxx" -std=c++20 -c "$inputs/square.cpp" -o never.o 2>never.err && fail "no compiler, no error"
grep -q "adjc++: error: cannot run '/nonexistent/c++'" never.err || fail "no compiler: $(cat never.err)"

"$adjcxx" -std=c++20 "$inputs/plain.cpp" -o plain || fail "adjc++ plain.cpp -o plain"
[ "$(./plain)" = plain ] || fail "plain"

"$adjcxx" -std=c++20 -c "$inputs/rejected.cpp" -o rejected.o 2>rejected.err && fail "adjc++ accepted rejected.cpp"
line=$(grep -n "error line" "$inputs/rejected.cpp" | cut -d: -f1)
grep -q "$inputs/rejected.cpp:$line:[0-9]*: error: " rejected.err ||
  fail "the error does not name rejected.cpp:$line: $(cat rejected.err)"
[ -e rejected.o ] && fail "a failed adjc step left rejected.o"
echo "adjc++ passed"
