#!/usr/bin/env bash
# A training step on a quiet machine against the same step beside one busy process (a shell loop
# that never sleeps, as a compile or a second job would be), for OpenMP's waits as adjoint sets
# them (no setting in the environment) and as libgomp leaves them (GOMP_SPINCOUNT=300000, its
# default): the step's ms each way and busy / quiet, whose target is <= 2 (docs/performance.md).
# Run it on an otherwise idle machine: the busy process is the only other load it means.
# Usage: bench/shared_cores/run.sh [--model NAME] [-B b] [-T t] [--iters n] [--threads n]
#   (default gpt2-124M, B=1, T=16, 7 iterations, 2 threads)
# Env: ADJOINT_BIN (default build/bin/adjoint).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
adjoint=${ADJOINT_BIN:-$root/build/bin/adjoint}
model=gpt2-124M B=1 T=16 iters=7 threads=2
die() { echo "shared_cores: error: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "$1 needs a value"
  case $1 in
    --model) model=$2 ;;
    -B) B=$2 ;;
    -T) T=$2 ;;
    --iters) iters=$2 ;;
    --threads) threads=$2 ;;
    *) die "unknown argument '$1' (usage: $0 [--model NAME] [-B b] [-T t] [--iters n] [--threads n])" ;;
  esac
  shift 2
done
[ -x "$adjoint" ] || die "$adjoint not found; build it (cmake --build build --target adjoint) or set ADJOINT_BIN"

busy_pid=
stop_busy() { if [ -n "$busy_pid" ]; then kill "$busy_pid" 2>/dev/null || true; wait "$busy_pid" 2>/dev/null || true; busy_pid=; fi; }
trap stop_busy EXIT

# The step's median ms (the JSON line's step_ms) with the given environment settings.
step_ms() {
  env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_NUM_THREADS="$threads" "$@" "$adjoint" bench --model "$model" \
      -B "$B" -T "$T" --backward manual --iters "$iters" --warmup 2 \
    | grep '^{' | tail -1 | sed 's/.*"step_ms":\([0-9.e+-]*\).*/\1/' | awk '{ printf "%.1f", $1 }'
}

echo "| waits | quiet step ms | beside one busy process ms | busy / quiet |"
echo "|:--|--:|--:|--:|"
for setting in "adjoint's (no setting)" "libgomp's default (GOMP_SPINCOUNT=300000)"; do
  case $setting in
    adjoint*) settings=() ;;
    *) settings=(GOMP_SPINCOUNT=300000) ;;
  esac
  quiet=$(step_ms "${settings[@]}")
  bash -c 'while :; do :; done' &
  busy_pid=$!
  busy=$(step_ms "${settings[@]}")
  stop_busy
  echo "| $setting | $quiet | $busy | $(awk -v b="$busy" -v q="$quiet" 'BEGIN { printf "%.2f", b / q }') |"
done
echo
echo "$model (B=$B, T=$T), $threads threads, medians of $iters; $(nproc) cores"
