#!/usr/bin/env bash
# Runs a loader fuzzer on its seed corpus for SECONDS: inputs up to 64 KB, and any allocation over
# 64 MB (far more than such an input justifies) or 2 GB resident counts as a failure. New inputs
# go to a temporary folder; a crash leaves its input in the current folder (crash-*).
# An input running over 10 s is a failure too (60 s for llama3_vocabulary, whose inputs that load
# build Llama 3's whole 128000-token vocabulary, several seconds under the sanitizers).
# Usage: tests/fuzz/run.sh FUZZER CORPUS_DIR SECONDS   e.g. for an hour each:
#   for f in model_file state_file token_file tokenizer_files llama_model_file llama_state_file llama3_vocabulary; do
#     tests/fuzz/run.sh build/tests/fuzz/fuzz_$f tests/fuzz/corpus/$f 3600; done
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3
timeout=10
[[ $fuzzer == *llama3_vocabulary ]] && timeout=60
new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
"$fuzzer" "$new" "$corpus" -max_total_time="$seconds" -max_len=65536 -malloc_limit_mb=64 -rss_limit_mb=2048 \
  -timeout="$timeout" -print_final_stats=1
