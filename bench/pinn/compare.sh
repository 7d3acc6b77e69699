#!/bin/bash
# The PINN training step (examples/pinn) against PyTorch: the same network, points, loss and Adam,
# float64, the same number of threads; PyTorch with the OpenMP OpenBLAS and jemalloc, as
# bench/compare.sh runs it. Prints both medians and the ratio.
#
#   bench/pinn/compare.sh [BUILD_DIR]     (ADJOINT_BENCH_THREADS: 1; PINN_STEPS: 30)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
threads=${ADJOINT_BENCH_THREADS:-1}
steps=${PINN_STEPS:-30}
openblas_openmp=/usr/lib/x86_64-linux-gnu/openblas-openmp
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
die() { echo "pinn compare: error: $*" >&2; exit 1; }
[ -x "$build/bin/pinn" ] || die "$build/bin/pinn missing: cmake --build $build --target pinn"
[ -f "$openblas_openmp/libblas.so.3" ] || die "$openblas_openmp missing: apt-get install libopenblas0-openmp"
[ -f "$jemalloc" ] || die "$jemalloc missing: apt-get install libjemalloc2"
ours=$(OMP_NUM_THREADS=$threads "$build/bin/pinn" --steps "$steps" | sed -n 's/^median step: \([0-9.]*\) ms.*/\1/p')
theirs=$(env LD_LIBRARY_PATH="$openblas_openmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$jemalloc" \
         MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 OMP_NUM_THREADS="$threads" \
         /usr/bin/python3 "$here/pinn_step.py" --steps "$steps" | sed -n 's/^pytorch median step: \([0-9.]*\) ms.*/\1/p')
[ -n "$ours" ] && [ -n "$theirs" ] || die "a run printed no median"
echo "PINN step, MLP 2-64-64-64-1, 400 interior + 160 boundary points, float64, $threads thread(s), median of $steps"
echo "adjc (pinn):  $ours ms"
echo "PyTorch:      $theirs ms"
awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "adjc is %.2fx PyTorch'"'"'s speed\n", b / a }'
