# Sourced by the comparison scripts (bench/compare.sh, bench/lora/compare.sh, bench/pinn/compare.sh):
# PyTorch run its fast way on CPU, so that a ratio against it is against its best: the OpenMP build
# of OpenBLAS (Debian's default pthreads build ignores OMP_NUM_THREADS and spins on its own pool),
# jemalloc with MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 (without it freed optimizer buffers
# go back to the OS and are page-faulted in again every step), and the thread count adjoint runs.
openblas_openmp=/usr/lib/x86_64-linux-gnu/openblas-openmp
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2

# check_pytorch_tuned NAME: stops with NAME's one-line error if either library is missing.
check_pytorch_tuned() {
  [ -f "$openblas_openmp/libblas.so.3" ] || { echo "$1: error: $openblas_openmp missing: apt-get install libopenblas0-openmp" >&2; exit 1; }
  [ -f "$jemalloc" ] || { echo "$1: error: $jemalloc missing: apt-get install libjemalloc2" >&2; exit 1; }
}

# pytorch_tuned THREADS KERNEL COMMAND...: runs COMMAND so. KERNEL is the OpenBLAS kernel to use
# (OPENBLAS_CORETYPE, the one adjoint reports, so both multiply alike), or empty for OpenBLAS's own
# choice from cpuid.
pytorch_tuned() {
  local threads=$1 kernel=$2
  shift 2
  local coretype=(-u OPENBLAS_CORETYPE)
  [ -n "$kernel" ] && coretype=(OPENBLAS_CORETYPE="$kernel")
  env "${coretype[@]}" LD_LIBRARY_PATH="$openblas_openmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      LD_PRELOAD="$jemalloc" MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 OMP_NUM_THREADS="$threads" "$@"
}
