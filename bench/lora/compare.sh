#!/usr/bin/env bash
# A LoRA training step: `adjoint train --lora-rank` on a Hugging Face folder (its BF16 base kept
# bf16, and with --lora-fp32-base) against bench/lora/pytorch_lora_step.py (plain PyTorch, fp32
# base, the same shape, rank and targets), interleaved round by round so that a change in the
# machine's load hits all alike; one process each, so each peak RSS (/usr/bin/time) is its own.
# PyTorch runs as bench/compare.sh runs it: OpenMP OpenBLAS with adjoint's GEMM kernel, jemalloc
# with MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1, the same OMP threads.
# Usage: bench/lora/compare.sh FOLDER MODEL [-B b] [-T t] [--rounds n] [--steps n] [--only bf16]
#   FOLDER: e.g. written by bench/lora/random_bf16_folder.py; MODEL: its shape for PyTorch
#   (llama3.2-1B or llama3.1-8B). Rank 16 on q,k,v,o. --only bf16 runs adjoint's bf16 base alone
#   (the 8B target: neither fp32 base fits in 24 GB).
# Env: ADJOINT_BIN (default build/bin/adjoint), ADJOINT_TORCH_PYTHON (/usr/bin/python3),
#      ADJOINT_BENCH_THREADS (2).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
adjoint=${ADJOINT_BIN:-$root/build/bin/adjoint}
python=${ADJOINT_TORCH_PYTHON:-/usr/bin/python3}
threads=${ADJOINT_BENCH_THREADS:-2}
source "$root/bench/pytorch_tuned.sh"
die() { echo "lora compare: error: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: $0 FOLDER MODEL [-B b] [-T t] [--rounds n] [--steps n] [--only bf16]"
folder=$1 model=$2
shift 2
B=1 T=64 rounds=2 steps=4 only=""
while [ $# -gt 0 ]; do
  case $1 in
    -B) B=$2 ;; -T) T=$2 ;; --rounds) rounds=$2 ;; --steps) steps=$2 ;; --only) only=$2 ;;
    *) die "unknown flag $1" ;;
  esac
  shift 2
done
[ -x "$adjoint" ] || die "$adjoint not found"
[ -d "$folder" ] || die "$folder: not a folder"
check_pytorch_tuned "lora compare"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$python" - "$out/tokens.bin" <<'EOF'
import sys, numpy as np
header = np.zeros(256, dtype="<i4"); header[:3] = [20240520, 1, 1 << 16]
with open(sys.argv[1], "wb") as f:
    f.write(header.tobytes()); f.write(np.random.default_rng(0).integers(0, 65535, 1 << 16).astype("<u2").tobytes())
EOF

run_adjoint() {  # $1: label, then extra flags
  local label=$1
  shift
  env -u OPENBLAS_CORETYPE OMP_NUM_THREADS="$threads" /usr/bin/time -f "peak_rss_kb %M" \
      "$adjoint" train --model "$folder" --train-tokens "$out/tokens.bin" -B "$B" -T "$T" --steps "$steps" \
      --lora-rank 16 --lora-targets q,k,v,o --val-every 0 --sample-tokens 0 --out "$out/run_$label" "$@" \
      >"$out/$label.txt" 2>&1 || { cat "$out/$label.txt"; die "adjoint ($label) failed"; }
  "$python" - "$out/run_$label/log.jsonl" "$out/$label.txt" "$label" <<'EOF' >>"$out/results.jsonl"
import json, re, statistics, sys
steps = [json.loads(l) for l in open(sys.argv[1]) if '"ms"' in l]
text = open(sys.argv[2]).read()
rss = int(re.search(r"peak_rss_kb (\d+)", text).group(1))
kernel = re.search(r"gemm: OpenBLAS [^,]*, (\w+) kernel", text).group(1)
ms = statistics.median(s["ms"] for s in steps[1:])
print(json.dumps({"impl": sys.argv[3], "step_s": ms / 1e3, "peak_rss_gb": rss / 2**20, "kernel": kernel}))
EOF
  rm -rf "$out/run_$label"
}

run_pytorch() {
  local kernel
  kernel=$(tail -1 "$out/results.jsonl" | "$python" -c 'import json,sys; print(json.loads(sys.stdin.read())["kernel"])')
  pytorch_tuned "$threads" "$kernel" "$python" "$root/bench/lora/pytorch_lora_step.py" --model "$model" -B "$B" -T "$T" --steps $((steps - 1)) \
      --threads "$threads" | tail -1 >>"$out/results.jsonl"
}

for round in $(seq "$rounds"); do
  run_adjoint bf16
  [ "$only" = bf16 ] && continue
  run_adjoint fp32 --lora-fp32-base
  run_pytorch
done

"$python" - "$out/results.jsonl" "$model" "$B" "$T" "$threads" "$(uptime)" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault(r["impl"], []).append(r)
print(f"\nLoRA r16 on q,k,v,o, {sys.argv[2]} B={sys.argv[3]} T={sys.argv[4]}, {sys.argv[5]} threads; "
      f"median step over rounds; load: {sys.argv[6].strip()}\n")
torch_s = statistics.median(r["step_s"] for r in by["pytorch"]) if "pytorch" in by else None
torch_rss = max(r["peak_rss_gb"] for r in by["pytorch"]) if "pytorch" in by else None
print("| run | s/step | tok/s | peak RSS GB | PyTorch s / this | this RSS / PyTorch's |")
print("|:--|--:|--:|--:|--:|--:|")
tokens = int(sys.argv[3]) * int(sys.argv[4])
for impl, rs in by.items():
    s = statistics.median(r["step_s"] for r in rs)
    rss = max(r["peak_rss_gb"] for r in rs)
    speed = f"{torch_s / s:.2f}" if torch_s else "-"
    mem = f"{rss / torch_rss:.2f}" if torch_rss else "-"
    print(f"| {impl} | {s:.2f} | {tokens / s:.1f} | {rss:.2f} | {speed} | {mem} |")
EOF
