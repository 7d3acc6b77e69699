#!/bin/bash
# The PINN training step (examples/pinn) against PyTorch: the same network, points, loss and Adam,
# float64, the same number of threads; PyTorch run its fast way (bench/pytorch_tuned.sh). Both
# multiply with the same OpenBLAS (its OpenMP build) and the same kernel: the one `pinn` reports
# (adjoint's GEMM picks it for the CPU's ISA, src/kernels/gemm.cpp, or takes OPENBLAS_CORETYPE
# when set) is given to PyTorch's OpenBLAS, as bench/compare.sh does; both print the kernel that
# ran, and they must agree. Runs both ROUNDS times, interleaved (so that a change in the machine's
# load falls on both), and prints each run's median step — wall time and process CPU time (all
# threads) — then the median over rounds of the CPU times and their ratio. On a shared machine the
# CPU times are the numbers to compare; on an idle one the wall times are too.
#
#   bench/pinn/compare.sh [BUILD_DIR]   (ADJOINT_BENCH_THREADS: 1; PINN_STEPS: 30; ROUNDS: 3)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
threads=${ADJOINT_BENCH_THREADS:-1}
steps=${PINN_STEPS:-30}
rounds=${ROUNDS:-3}
source "$here/../pytorch_tuned.sh"
die() { echo "pinn compare: error: $*" >&2; exit 1; }
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "ADJOINT_BENCH_THREADS must be a positive integer, not '$threads'"
[[ "$steps" =~ ^[1-9][0-9]*$ ]] || die "PINN_STEPS must be a positive integer, not '$steps'"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$rounds'"
[ -x "$build/bin/pinn" ] || die "$build/bin/pinn missing: cmake --build $build --target pinn"
check_pytorch_tuned "pinn compare"
# Prints "WALL CPU KERNEL" of one run of ours and of theirs.
ours() {
  OMP_NUM_THREADS=$threads "$build/bin/pinn" --steps "$steps" |
    sed -n -e 's/.*; GEMM kernel \(.*\)$/kernel \1/p' -e 's/^median step: \([0-9.]*\) ms, CPU time \([0-9.]*\) ms.*/\1 \2/p' |
    awk '$1 == "kernel" { k = $2; next } { print $0, k }'
}
theirs() {
  pytorch_tuned "$threads" "$1" /usr/bin/python3 "$here/pinn_step.py" --steps "$steps" |
    sed -n 's/^pytorch median step: \([0-9.]*\) ms, CPU time \([0-9.]*\) ms.*GEMM kernel \([^)]*\))$/\1 \2 \3/p'
}
echo "PINN step, MLP 2-64-64-64-1, 400 interior + 160 boundary points, float64, $threads thread(s), median of $steps steps"
echo "round  adjc wall  adjc CPU  PyTorch wall  PyTorch CPU (ms)"
our_cpu=() their_cpu=()
for ((r = 1; r <= rounds; ++r)); do
  read -r a_wall a_cpu a_kernel <<<"$(ours)"
  read -r t_wall t_cpu t_kernel <<<"$(theirs "${a_kernel:-}")"
  [ -n "${a_cpu:-}" ] && [ -n "${t_cpu:-}" ] || die "a run printed no median"
  [ "${a_kernel:-}" = "${t_kernel:-}" ] || die "adjc ran GEMM kernel '${a_kernel:-}', PyTorch '${t_kernel:-}'"
  printf "%5d  %9s  %8s  %12s  %11s\n" "$r" "$a_wall" "$a_cpu" "$t_wall" "$t_cpu"
  our_cpu+=("$a_cpu") their_cpu+=("$t_cpu")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
a=$(median "${our_cpu[@]}") t=$(median "${their_cpu[@]}")
echo "median CPU time per step: adjc $a ms, PyTorch $t ms (GEMM kernel $a_kernel)"
awk -v a="$a" -v b="$t" 'BEGIN { printf "adjc is %.2fx PyTorch'"'"'s speed (CPU time)\n", b / a }'
