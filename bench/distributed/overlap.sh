#!/usr/bin/env bash
# What ZeRO-1 and the overlapped gradient sum cost and save on this machine: N processes x 1 thread
# train the same model with the hand-written backward (the one whose layers start the sums),
# --zero 0 and 1, --overlap off and on, runs interleaved. Per setup, the medians over the steps
# after the first two of each run (log.jsonl): step ms, reduce ms (the sum's time after the
# backward: what the backward did not hide) and AdamW moments per process.
# Usage: bench/distributed/overlap.sh [--model gpt2-124M] [-B 4] [-T 64] [--steps 8] [--runs 2] [--np 2]
# Env: ADJOINT_BIN (default build/bin/adjoint).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
adjoint=${ADJOINT_BIN:-$root/build/bin/adjoint}
model=gpt2-124M B=4 T=64 steps=8 runs=2 np=2
while (($#)); do
  case $1 in
    --model) model=$2 ;; -B) B=$2 ;; -T) T=$2 ;; --steps) steps=$2 ;; --runs) runs=$2 ;; --np) np=$2 ;;
    *) echo "overlap: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
command -v mpirun >/dev/null || { echo "overlap: error: mpirun not found (apt-get install openmpi-bin)" >&2; exit 1; }
[ -x "$adjoint" ] || { echo "overlap: error: $adjoint not found; build it or set ADJOINT_BIN" >&2; exit 1; }
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
      --val-every 0 --sample-every 0 --sample-tokens 1 --backward manual)
setups=("zero0" "zero0-overlap" "zero1" "zero1-overlap")
for run in $(seq "$runs"); do
  for setup in "${setups[@]}"; do
    flags=(--zero "${setup:4:1}")
    [[ $setup == *overlap ]] && flags+=(--overlap)
    mpirun --oversubscribe -np "$np" -x OMP_NUM_THREADS=1 "$adjoint" "${args[@]}" "${flags[@]}" \
      --out "$work/$setup-$run" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  done
done
/usr/bin/python3 - "$work" "$runs" "$np" "$model" "$B" "$T" "${setups[@]}" <<'PY'
import json, statistics, sys
work, runs, np_, model, B, T, *setups = sys.argv[1:]
print(f"{model}, {np_} processes x 1 thread, B={B} T={T} each, manual backward; medians over the steps after the "
      f"first two of {runs} interleaved runs")
print("| setup | step ms (runs) | reduce ms after the backward (runs) | AdamW moments MB/process |")
print("|---|---|---|---:|")
for setup in setups:
    step, reduce = [], []
    for r in range(1, int(runs) + 1):
        lines = [json.loads(line) for line in open(f"{work}/{setup}-{r}/log.jsonl")]
        record = next(x["run"] for x in lines if "run" in x)
        steps = [x for x in lines if "ms" in x][2:]
        step.append(statistics.median(x["ms"] for x in steps))
        reduce.append(statistics.median(x["reduce_ms"] for x in steps))
    print(f"| {setup} | {statistics.median(step):.0f} ({', '.join(f'{v:.0f}' for v in step)}) "
          f"| {statistics.median(reduce):.1f} ({', '.join(f'{v:.1f}' for v in reduce)}) "
          f"| {record['adamw_moment_bytes_per_process'] / 1e6:.0f} |")
PY
