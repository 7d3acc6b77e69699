#!/usr/bin/env bash
# Data-parallel training on this machine, setups interleaved run by run, same model and per-process
# batch; per setup the medians over the steps after the first two of each run (log.jsonl): tokens/s
# (and against the first setup), step ms, reduce ms (under mpirun: the gradient sum's time after the
# backward, what --overlap did not hide) and AdamW moments per process.
#   --compare processes (default): one process with all the threads against N processes x 1 thread
#     (N = the threads), the default backward: what communication costs on shared memory.
#   --compare zero-overlap: N processes x 1 thread (--np, default 2), the hand-written backward (the
#     one whose layers start the sums), --zero 0 and 1, --overlap off and on.
# Usage: bench/distributed/scaling.sh [--compare processes|zero-overlap] [--model gpt2-124M] [-B 4] [-T 64]
#        [--steps 8] [--runs 3] [--np 2]
# Env: ADJOINT_BIN (default build/bin/adjoint), THREADS (default nproc; --compare processes).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
adjoint=${ADJOINT_BIN:-$root/build/bin/adjoint}
threads=${THREADS:-$(nproc)}
compare=processes model=gpt2-124M B=4 T=64 steps=8 runs=3 np=2
while (($#)); do
  [ $# -ge 2 ] || { echo "scaling: error: $1 needs a value" >&2; exit 2; }
  case $1 in
    --compare) compare=$2 ;; --model) model=$2 ;; -B) B=$2 ;; -T) T=$2 ;; --steps) steps=$2 ;; --runs) runs=$2 ;;
    --np) np=$2 ;;
    *) echo "scaling: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
# Each setup: "name;processes;threads per process;train flags".
case $compare in
  processes)
    setups=("1 process x $threads threads;1;$threads;"
            "$threads processes x 1 thread (mpirun);$threads;1;") ;;
  zero-overlap)
    setups=()
    for flags in "--zero 0" "--zero 0 --overlap" "--zero 1" "--zero 1 --overlap"; do
      setups+=("\`$flags\`;$np;1;--backward manual $flags")
    done ;;
  *) echo "scaling: error: --compare is processes or zero-overlap, not '$compare'" >&2; exit 2 ;;
esac
command -v mpirun >/dev/null || { echo "scaling: error: mpirun not found (apt-get install openmpi-bin)" >&2; exit 1; }
[ -x "$adjoint" ] || { echo "scaling: error: $adjoint not found; build it or set ADJOINT_BIN" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work/train.bin" <<'PY'
import sys, numpy as np
n = 200000
header = np.zeros(256, dtype=np.int32); header[:3] = [20240520, 1, n]
with open(sys.argv[1], "wb") as f:
    f.write(header.tobytes()); f.write(np.random.default_rng(1).integers(0, 50257, n, dtype=np.uint16).tobytes())
PY
args=(train --model "$model" --train-tokens "$work/train.bin" -B "$B" -T "$T" --steps "$steps" --warmup 1
      --val-every 0 --sample-every 0 --sample-tokens 1)
for run in $(seq "$runs"); do
  for s in "${!setups[@]}"; do
    IFS=';' read -r _ processes per_process flags <<<"${setups[$s]}"
    read -ra flags <<<"$flags"
    out=(--out "$work/$s-$run")
    if ((processes == 1)); then
      OMP_NUM_THREADS=$per_process "$adjoint" "${args[@]}" "${flags[@]}" "${out[@]}" >/dev/null 2>"$work/err"
    else
      mpirun --oversubscribe -np "$processes" -x OMP_NUM_THREADS="$per_process" "$adjoint" "${args[@]}" \
        "${flags[@]}" "${out[@]}" >/dev/null 2>"$work/err"
    fi || { cat "$work/err" >&2; exit 1; }
  done
done
/usr/bin/python3 - "$work" "$runs" "$model" "$B" "$T" "${setups[@]}" <<'PY'
import json, statistics, sys
work, runs, model, B, T, *setups = sys.argv[1:]
median = statistics.median
def runs_of(s):
    """Per run: medians over the steps after the first two of tokens/s, step ms and reduce ms (None
    without mpirun), and the run record."""
    result = []
    for r in range(1, int(runs) + 1):
        lines = [json.loads(line) for line in open(f"{work}/{s}-{r}/log.jsonl")]
        steps = [x for x in lines if "tok_per_s" in x][2:]
        reduce = [x["reduce_ms"] for x in steps if "reduce_ms" in x]
        result.append((median(x["tok_per_s"] for x in steps), median(x["ms"] for x in steps),
                       median(reduce) if reduce else None, next(x["run"] for x in lines if "run" in x)))
    return result
def listed(values, form):
    return f"{form.format(median(values))} ({', '.join(form.format(v) for v in values)})"
print(f"{model}, B={B} T={T} per process; medians over the steps after the first two of each of {runs} "
      f"interleaved runs (runs in parentheses)")
print("| setup | tokens/s | / first | step ms | reduce ms after the backward | AdamW moments MB/process |")
print("|---|---|---:|---|---|---:|")
first = None
for s, setup in enumerate(setups):
    results = runs_of(s)
    tokens = [x[0] for x in results]
    first = first or median(tokens)
    reduce = [x[2] for x in results if x[2] is not None]
    print(f"| {setup.split(';')[0]} | {listed(tokens, '{:.0f}')} | {median(tokens) / first:.2f} "
          f"| {listed([x[1] for x in results], '{:.0f}')} | {listed(reduce, '{:.1f}') if reduce else '-'} "
          f"| {results[0][3]['adamw_moment_bytes_per_process'] / 1e6:.0f} |")
PY
