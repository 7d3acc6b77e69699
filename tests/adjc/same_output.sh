#!/bin/bash
# Evidence that a change to adjc's passes changed no generated code: runs two adjc binaries over
# the same inputs and diffs their outputs, exit statuses and diagnostics.
#
#   tests/adjc/same_output.sh OLD_ADJC NEW_ADJC [NEW_FLAG...]
#
# Inputs: every adjc command of a build tree's build.ninja (the corpus, the GPT-2/Llama losses, the
# tensor gradients, benches; BUILD_NINJA, default /work/base/build/build.ninja, with the include
# flags that build uses), the golden inputs, the diagnostics tests, the Clad-style suite and the
# programs of fuzz seeds 1..FUZZ_SEEDS (default 8). SETS (default "build golden diagnostics clad
# fuzz") chooses among those groups. NEW_FLAGs (e.g. --verify-each) are passed to NEW_ADJC only.
# Prints one line per input that differs and a summary; exits 1 if any differs.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_ADJC NEW_ADJC [NEW_FLAG...]" >&2
  exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
shift 2
NEW_FLAGS=("$@")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD_NINJA=${BUILD_NINJA:-/work/base/build/build.ninja}
FUZZ_SEEDS=${FUZZ_SEEDS:-8}
SETS=" ${SETS:-build golden diagnostics clad fuzz} "
WORK=$(mktemp -d "${TMPDIR:-/tmp}/adjc_same.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3

same=0
differ=0
# compare NAME DIR INPUT ARGS...: runs both binaries on INPUT (from DIR) with ARGS after `--`.
compare() {
  local name=$1 dir=$2 input=$3
  shift 3
  (cd "$dir" && nice -n 5 "$OLD" "$input" -o "$WORK/old.cpp" -- "$@" >"$WORK/old.log" 2>&1; echo $? >"$WORK/old.rc")
  (cd "$dir" && nice -n 5 "$NEW" "$input" -o "$WORK/new.cpp" "${NEW_FLAGS[@]}" -- "$@" >"$WORK/new.log" 2>&1
   echo $? >"$WORK/new.rc")
  local why=""
  cmp -s "$WORK/old.rc" "$WORK/new.rc" || why="exit status $(cat "$WORK/old.rc") -> $(cat "$WORK/new.rc")"
  cmp -s "$WORK/old.log" "$WORK/new.log" || why="$why diagnostics"
  if [ -f "$WORK/old.cpp" ] || [ -f "$WORK/new.cpp" ]; then
    cmp -s "$WORK/old.cpp" "$WORK/new.cpp" || why="$why generated code"
  fi
  if [ -n "$why" ]; then
    echo "DIFFERS $name:$why"
    diff "$WORK/old.log" "$WORK/new.log" | head -5
    differ=$((differ + 1))
  else
    same=$((same + 1))
  fi
  rm -f "$WORK/old.cpp" "$WORK/new.cpp"
}

wanted() { [[ $SETS == *" $1 "* ]]; }

# The build's adjc commands: `cd DIR && .../bin/adjc INPUT -o OUT -MF DEP -- FLAGS`.
wanted build && while read -r line; do
  dir=$(sed -E 's/^ *COMMAND = cd ([^ ]+) && .*/\1/' <<<"$line")
  input=$(sed -E 's/.*bin\/adjc ([^ ]+) -o .*/\1/' <<<"$line")
  read -r -a flags <<<"$(sed -E 's/.* -- (.*)$/\1/' <<<"$line")"
  compare "$input" "$dir" "$input" "${flags[@]}"
done < <(grep -E '^ *COMMAND = cd [^ ]+ && [^ ]*bin/adjc ' "$BUILD_NINJA")

for set in golden diagnostics; do
  wanted $set || continue
  for input in "$ROOT"/tests/adjc/$set/*.cpp; do
    compare "$input" "$WORK" "$input" -std=c++20 -fopenmp -I"$ROOT/include"
  done
done
wanted clad && for input in "$ROOT"/tests/adjc/clad_style/*.cpp; do
  compare "$input" "$WORK" "$input" -std=c++20 -fopenmp -I"$ROOT/include" -I"$ROOT/tests/adjc/clad_style"
done
wanted fuzz || FUZZ_SEEDS=0
for ((seed = 1; seed <= FUZZ_SEEDS; seed++)); do
  "$PYTHON" "$HERE/fuzz/generate.py" "$seed" "$WORK/fuzz_$seed.cpp" --functions 6 --drop "" || exit 2
  compare "fuzz seed $seed" "$WORK" "$WORK/fuzz_$seed.cpp" -std=c++20 -fopenmp -I"$ROOT/include"
done

echo "same: $same, differ: $differ"
[ "$differ" -eq 0 ]
