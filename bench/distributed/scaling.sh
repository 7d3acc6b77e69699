#!/usr/bin/env bash
# Data-parallel throughput on this machine: N processes x (threads/N) threads against one process
# with all the threads, same model and per-process batch, interleaved runs; tokens/s is the median
# over the timed steps of each run (log.jsonl), after the first two.
# Usage: bench/distributed/scaling.sh [--model gpt2-124M] [-B 4] [-T 64] [--steps 8] [--runs 3]
# Env: ADJOINT_BIN (default build/bin/adjoint), THREADS (default nproc).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
adjoint=${ADJOINT_BIN:-$root/build/bin/adjoint}
threads=${THREADS:-$(nproc)}
model=gpt2-124M B=4 T=64 steps=8 runs=3
while (($#)); do
  case $1 in
    --model) model=$2 ;; -B) B=$2 ;; -T) T=$2 ;; --steps) steps=$2 ;; --runs) runs=$2 ;;
    *) echo "scaling: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
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
  OMP_NUM_THREADS=$threads "$adjoint" "${args[@]}" --out "$work/one$run" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  mpirun --oversubscribe -np "$threads" -x OMP_NUM_THREADS=1 "$adjoint" "${args[@]}" --out "$work/many$run" \
    >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
done
/usr/bin/python3 - "$work" "$runs" "$threads" "$model" "$B" "$T" <<'PY'
import json, statistics, sys
work, runs, threads, model, B, T = sys.argv[1], int(sys.argv[2]), sys.argv[3], *sys.argv[4:]
def tok_per_s(out):
    steps = [r for r in map(json.loads, open(f"{work}/{out}/log.jsonl")) if "tok_per_s" in r]
    return statistics.median(r["tok_per_s"] for r in steps[2:])
one = [tok_per_s(f"one{r}") for r in range(1, runs + 1)]
many = [tok_per_s(f"many{r}") for r in range(1, runs + 1)]
print(f"{model}, B={B} T={T} per process, median tokens/s of each run's steps after the first two, {runs} runs")
print("| setup | tokens/s (runs) | median | / one process |\n|---|---|---:|---:|")
for name, values in ((f"1 process x {threads} threads", one), (f"{threads} processes x 1 thread (mpirun)", many)):
    print(f"| {name} | {', '.join(f'{v:.0f}' for v in values)} | {statistics.median(values):.0f} "
          f"| {statistics.median(values) / statistics.median(one):.2f} |")
PY
