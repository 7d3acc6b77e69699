#!/usr/bin/env bash
# pinn's bad input: a bad flag value, an unknown flag and an output folder that cannot be made each
# give one "pinn: error:" line and a non-zero exit, before any training.
set -u
pinn=$1
expect() {  # expect STATUS TEXT ARGS...
  local status=$1 text=$2
  shift 2
  local out rc
  out=$("$pinn" "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne $status || $out != "$text" ]]; then
    echo "pinn $*: exit $rc, stderr '$out'; expected exit $status, '$text'"
    exit 1
  fi
}
expect 2 "pinn: error: bad value 'x' for --steps" --steps x
expect 2 "pinn: error: unknown flag or missing value '--bogus'" --bogus
expect 1 "pinn: error: cannot create '/proc/no/such': No such file or directory" --steps 1 --out /proc/no/such
echo "pinn CLI errors: 3 of 3 as expected"
