#!/usr/bin/env bash
# One training step of GPT-2 124M or llama3-bench, adjoint's engines vs PyTorch, in one run: for
# each (B,T) it runs `adjoint bench --engine arrays`, for GPT-2 `adjoint bench --engine tensor`
# (the tensor engine runs GPT-2 only), and then bench/pytorch_step.py on the same model
# (alternating, so a change in machine load hits all; one process each, so each peak RSS is its
# own), then prints one markdown table of medians and ratios, after checking that both sides
# count the same parameters.
# Both get the same threads (2) and the same GEMM kernel (PyTorch's OpenBLAS gets OPENBLAS_CORETYPE set
# to the kernel adjoint reports); PyTorch runs its fast way: OpenMP OpenBLAS, and jemalloc with
# MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 (without it AdamW's buffers are returned to the OS
# and page-faulted back every step).
# Usage: bench/compare.sh [--model gpt2-124M|llama3-bench|llama3.2-1B] [-B b -T t]
#   (default gpt2-124M at adjoint bench's five configs; llama3-bench at (1,64) and (4,64);
#   llama3.2-1B at (1,64) and (2,128): about 20 GB for adjoint, 22 GB for PyTorch, one at a time)
# Env: ADJOINT_BIN (default build/bin/adjoint), ADJOINT_TORCH_PYTHON (default /usr/bin/python3),
#      ADJOINT_BENCH_ARGS (extra flags for both, e.g. "--iters 11"), ADJOINT_BENCH_THREADS (2;
#      1 is steadier when other jobs share the cores: OpenMP barriers then wait on preempted threads;
#      with ADJOINT_BENCH_ARGS="--clock cpu" both sides then time their own CPU work).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
adjoint=${ADJOINT_BIN:-$root/build/bin/adjoint}
python=${ADJOINT_TORCH_PYTHON:-/usr/bin/python3}
threads=${ADJOINT_BENCH_THREADS:-2}
source "$root/bench/pytorch_tuned.sh"

die() { echo "compare: error: $*" >&2; exit 1; }
[ -x "$adjoint" ] || die "$adjoint not found; build it (cmake --build build) or set ADJOINT_BIN"
check_pytorch_tuned compare

usage="usage: $0 [--model gpt2-124M|llama3-bench|llama3.2-1B] [-B b -T t]"
model=gpt2-124M
if [ $# -ge 2 ] && [ "$1" = --model ]; then model=$2; shift 2; fi
case $model in
  gpt2-124M) engines=(arrays tensor); configs=("1 16" "1 32" "2 16" "1 64" "4 64") ;;
  llama3-bench) engines=(arrays); configs=("1 64" "4 64") ;;
  llama3.2-1B) engines=(arrays); configs=("1 64" "2 128") ;;
  *) die "unknown model '$model' ($usage)" ;;
esac
case $# in
  0) ;;
  4) [ "$1" = -B ] && [ "$3" = -T ] || die "$usage"; configs=("$2 $4") ;;
  *) die "$usage" ;;
esac
read -r -a extra <<<"${ADJOINT_BENCH_ARGS:-}"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for config in "${configs[@]}"; do
  read -r B T <<<"$config"
  for engine in "${engines[@]}"; do
    OMP_NUM_THREADS=$threads "$adjoint" bench --engine "$engine" --model "$model" -B "$B" -T "$T" "${extra[@]}" \
        | tee -a "$out/adjoint.txt"
  done
  # The kernel adjoint's GEMM runs (the last JSON line of its bench), for PyTorch's OpenBLAS too.
  kernel=$(grep '^{' "$out/adjoint.txt" | tail -1 | "$python" -c 'import json,sys; print(json.loads(sys.stdin.read())["gemm_kernel"])')
  pytorch_tuned "$threads" "$kernel" "$python" "$root/bench/pytorch_step.py" --model "$model" -B "$B" -T "$T" --threads "$threads" "${extra[@]}" \
      | tee -a "$out/pytorch.txt"
done

"$python" - "$out/adjoint.txt" "$out/pytorch.txt" "$threads" "$model" "${engines[*]}" <<'EOF'
import json, sys

def records(path):
    lines = [line for line in open(path) if line.startswith("{")]
    return {(r["B"], r["T"], r.get("engine", "pytorch")): r for r in map(json.loads, lines)}

adjoint, pytorch = records(sys.argv[1]), records(sys.argv[2])
configs = sorted({key[:2] for key in pytorch}, key=lambda c: (c[0] * c[1], c))
engines = sys.argv[5].split()
if not pytorch or set(adjoint) != {(*c, e) for c in configs for e in engines}:
    sys.exit(f"compare: error: configs differ: adjoint {sorted(adjoint)} pytorch {sorted(pytorch)}")
blas = {r["blas"] for r in pytorch.values()}
if not all("openblas-openmp" in b for b in blas) or any("jemalloc" not in r["malloc"]
                                                       for r in pytorch.values()):
    sys.exit(f"compare: error: PyTorch did not load the OpenMP OpenBLAS and jemalloc: {blas}")
kernels = {r["gemm_kernel"] for r in list(adjoint.values()) + list(pytorch.values())}
if len(kernels) != 1:
    sys.exit(f"compare: error: adjoint and PyTorch ran different GEMM kernels: {sorted(kernels)}")
# The same model on both sides: GPT-2's arena also holds the padded vocabulary's rows (0.03%).
ours, theirs = next(iter(adjoint.values()))["parameters"], next(iter(pytorch.values()))["parameters"]
if abs(ours - theirs) > 0.001 * ours:
    sys.exit(f"compare: error: adjoint has {ours} parameters, PyTorch {theirs}: not the same model")
print(f"\n{sys.argv[4]} ({ours} parameters in adjoint's arena, {theirs} in PyTorch), {sys.argv[3]} thread(s), medians of each run; / arrays = this step's ms / "
      "the arrays engine's (<= 1.25 is the tensor engine's target); PyTorch / this = PyTorch's step ms "
      "/ this step's (>1: faster than PyTorch); arena MB = parameters, gradients, AdamW moments and "
      "activations (+ adjoints) as the engine sized them; sgemm = the 2048^3 sgemm GFLOP/s each "
      "process measured first (low = busy machine)\n")
print("| B | T | engine | fwd+bwd ms | step ms | / arrays | PyTorch / this | tok/s | arena MB "
      "| peak RSS MB | sgemm |")
print("|--:|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|")
for B, T in configs:
    arrays, torch_run = adjoint[(B, T, "arrays")], pytorch[(B, T, "pytorch")]
    for name, r in [(e, adjoint[(B, T, e)]) for e in engines] + [("PyTorch", torch_run)]:
        arena = f"{r['arena_mb']:.0f}" if "arena_mb" in r else "-"
        print(f"| {B} | {T} | {name} | {r['fwdbwd_ms']:.1f} | {r['step_ms']:.1f} "
              f"| {r['step_ms'] / arrays['step_ms']:.2f} | {torch_run['step_ms'] / r['step_ms']:.2f} "
              f"| {r['tok_per_s']:.0f} | {arena} | {r['peak_rss_mb']:.0f} | {r['sgemm_peak_gflops']:.0f} |")
gemm = next(iter(adjoint.values()))["gemm"]
print(f"\n{gemm}; PyTorch: {blas.pop()}, the same kernel, jemalloc with "
      f"MALLOC_CONF={next(iter(pytorch.values()))['malloc_conf']}")
EOF
