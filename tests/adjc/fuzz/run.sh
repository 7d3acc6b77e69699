#!/bin/bash
# Random differential testing of adjc (see generate.py): for each seed, generate a program of
# random functions, run adjc on it, compile the output and run it (each gradient against finite
# differences).
#
#   tests/adjc/fuzz/run.sh ADJC INCLUDE_DIR FIRST_SEED LAST_SEED [WORK_DIR]
#
# Per seed, one of:
#   pass      every function's gradient agrees with finite differences, and its forward derivatives
#             and Hessians (forward.py) with those, the gradient and each other
#   FAIL      a wrong gradient (or the output does not compile, or the program crashes)
#   CRASH     adjc itself crashed (a signal, or an exit without a file:line:col diagnostic)
#   rejected  adjc reported an unsupported construct (file:line:col: error: ...); not a failure.
#             The function it names is left out and the others are tried again (generate.py --drop);
#             a rejected forward-mode request leaves out that function's forward checks only
#             (--drop-forward), a rejected vector-mode or Jacobian request only itself
#             (--drop-vector, --drop-jacobian).
# The files of failing seeds are kept in WORK_DIR/failures. Exits 1 if any seed FAILed or CRASHed.
# Environment: FUNCTIONS (functions per program, default 6), GENFLAGS (more generate.py flags, e.g.
# --no-calls), CXX (default g++), CXXFLAGS_EXTRA (e.g. -fsanitize=address,undefined), JOBS_NICE
# (default 10), TIMEOUT (seconds for adjc and for the program, default 120: more on a loaded machine).
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 ADJC INCLUDE_DIR FIRST_SEED LAST_SEED [WORK_DIR]" >&2
  exit 2
fi
ADJC=$1
INCLUDE=$2
FIRST=$3
LAST=$4
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${5:-$(mktemp -d /tmp/adjc_fuzz.XXXXXX)}
FUNCTIONS=${FUNCTIONS:-6}
GENFLAGS=${GENFLAGS:-}
CXXFLAGS_EXTRA=${CXXFLAGS_EXTRA:-}
CXX=${CXX:-g++}
NICE="nice -n ${JOBS_NICE:-10}"
TIMEOUT=${TIMEOUT:-120}
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
mkdir -p "$WORK/failures"
rm -f "$WORK"/failures/fuzz_*

pass=0; fail=0; crash=0; rejected=0
fn_pass=0; fn_fail=0; fn_ill=0; fn_rejected=0
fn_fpass=0; fn_ffail=0; fn_fill=0; fn_frejected=0  # forward mode and Hessians (forward.py)
failing=()
for ((seed = FIRST; seed <= LAST; seed++)); do
  src=$WORK/fuzz_$seed.cpp
  out=$WORK/fuzz_$seed.adjc.cpp
  exe=$WORK/fuzz_$seed
  # A function adjc rejects (an unsupported construct) is left out and the rest tried again; a
  # rejected forward-mode request (forward.py) leaves out only that function's forward checks, and
  # a rejected vector-mode or Jacobian request only itself.
  drop=""; ndrop=0; fdrop=""; nfdrop=0; vdrop=""; jdrop=""; status=ok
  while true; do
    "$PYTHON" "$HERE/generate.py" "$seed" "$src" --functions "$FUNCTIONS" --drop "$drop" --drop-forward "$fdrop" \
      --drop-vector "$vdrop" --drop-jacobian "$jdrop" \
      $GENFLAGS || { echo "seed $seed: generator failed" >&2; exit 2; }
    $NICE timeout "$TIMEOUT" "$ADJC" "$src" -o "$out" -- -std=c++20 -fopenmp -I"$INCLUDE" >"$WORK/adjc.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] && break
    diag=$(grep -m1 -E "^[^ ]+:[0-9]+:[0-9]+: error: " "$WORK/adjc.log")
    if [ $rc -eq 1 ] && [ -n "$diag" ]; then
      line=$(echo "$diag" | sed -E 's/^[^ ]+:([0-9]+):[0-9]+: .*/\1/')
      # The request the error belongs to: forward<k>'s (after "// forward view of f<k>") or the
      # gradient of f<k> in main; without a note, the function the line is in.
      request=$(grep -m1 -E "^$src:[0-9]+:[0-9]+: note: .*requested here" "$WORK/adjc.log" |
                sed -E 's/^[^ ]+:([0-9]+):[0-9]+: .*/\1/')
      at=$line
      if [ -n "$request" ] && ! sed -n "${request}p" "$src" | grep -q 'adjoint::gradient(f'; then at=$request; fi
      # The function the line is in, or whose private helpers ("// used by f<k>") it is in.
      marker=$(head -n "$at" "$src" | grep -E '^(void f[0-9]+\(|// used by f[0-9]+$|// forward view of f[0-9]+)' |
               tail -n 1)
      k=$(echo "$marker" | sed -E 's/^(void f|\/\/ used by f|\/\/ forward view of f)([0-9]+).*/\2/')
      if [[ $marker == "// forward view of"* && -n "$request" && $jdrop != *"$k,"* ]] &&
         sed -n "${request}p" "$src" | grep -q 'adjoint::jacobian(jf'; then
        echo "seed $seed: f$k Jacobian rejected: ${diag#*: error: }"  # its other checks kept
        jdrop="$jdrop$k,"
        continue
      fi
      if [[ $marker == "// forward view of"* && $diag == *"vector mode"* && $vdrop != *"$k,"* ]]; then
        echo "seed $seed: f$k vector mode rejected: ${diag#*: error: }"  # its other checks kept
        vdrop="$vdrop$k,"
        continue
      fi
      if [[ $marker == "// forward view of"* ]]; then
        echo "seed $seed: f$k forward rejected: ${diag#*: error: }"
        fdrop="$fdrop$k,"; nfdrop=$((nfdrop + 1)); fn_frejected=$((fn_frejected + 1))
        continue
      fi
      echo "seed $seed: f${k:-?} rejected: ${diag#*: error: }"
      if [ -z "$k" ] || [ $((ndrop + 1)) -ge "$FUNCTIONS" ]; then
        fn_rejected=$((fn_rejected + FUNCTIONS - ndrop)); status=rejected; break
      fi
      drop="$drop$k,"; ndrop=$((ndrop + 1)); fn_rejected=$((fn_rejected + 1))
      continue
    fi
    status=crash; break
  done
  if [ $status = rejected ]; then
    rejected=$((rejected + 1)); rm -f "$src"; continue
  fi
  if [ $status = crash ]; then
    crash=$((crash + 1)); failing+=("$seed")
    echo "seed $seed: CRASH (adjc exit $rc): $(tail -n 3 "$WORK/adjc.log" | tr '\n' ' ')"
    cp "$src" "$WORK/failures/"; cp "$WORK/adjc.log" "$WORK/failures/fuzz_$seed.adjc.log"
    continue
  fi
  if ! $NICE "$CXX" -std=c++20 -O1 -fopenmp $CXXFLAGS_EXTRA -I"$INCLUDE" "$out" -o "$exe" >"$WORK/cxx.log" 2>&1; then
    fail=$((fail + 1)); failing+=("$seed")
    echo "seed $seed: FAIL (adjc's output does not compile): $(grep -m1 'error' "$WORK/cxx.log")"
    cp "$src" "$out" "$WORK/failures/"; cp "$WORK/cxx.log" "$WORK/failures/fuzz_$seed.cxx.log"
    continue
  fi
  $NICE timeout "$TIMEOUT" "$exe" >"$WORK/run.log" 2>&1
  rc=$?
  reverse_lines() { grep -v " forward " "$WORK/run.log" | grep -c "$1"; }
  forward_lines() { grep " forward " "$WORK/run.log" | grep -c "$1"; }
  p=$(reverse_lines " PASS "); f=$(reverse_lines " FAIL "); i=$(reverse_lines " ILL ")
  fp=$(forward_lines " PASS "); ff=$(forward_lines " FAIL "); fi_=$(forward_lines " ILL ")
  fn_pass=$((fn_pass + p)); fn_fail=$((fn_fail + f)); fn_ill=$((fn_ill + i))
  fn_fpass=$((fn_fpass + fp)); fn_ffail=$((fn_ffail + ff)); fn_fill=$((fn_fill + fi_))
  if [ $rc -ne 0 ] || [ "$f" -ne 0 ] || [ "$ff" -ne 0 ] || [ $((p + i)) -ne $((FUNCTIONS - ndrop)) ]; then
    fail=$((fail + 1)); failing+=("$seed")
    echo "seed $seed: FAIL (exit $rc)"; grep -v " PASS " "$WORK/run.log" | sed 's/^/  /' | head -n 20
    cp "$src" "$out" "$WORK/failures/"; cp "$WORK/run.log" "$WORK/failures/fuzz_$seed.run.log"
  else
    pass=$((pass + 1))
  fi
  rm -f "$src" "$out" "$exe"
  echo "seed $seed: $p passed, $f failed, $i ill, $ndrop rejected; forward: $fp passed, $ff failed, $fi_ ill," \
       "$nfdrop rejected" >>"$WORK/seeds.log"
done
echo "adjc fuzz: seeds $FIRST..$LAST: $pass passed, $fail failed, $crash crashed, $rejected rejected;" \
     "functions: $fn_pass passed, $fn_fail failed, $fn_rejected rejected, $fn_ill ill-conditioned (skipped);" \
     "forward checks: $fn_fpass passed, $fn_ffail failed, $fn_frejected rejected, $fn_fill ill-conditioned"
if [ ${#failing[@]} -ne 0 ]; then
  echo "failing seeds: ${failing[*]} (files in $WORK/failures)"
  exit 1
fi
exit 0
