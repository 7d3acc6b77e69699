#!/bin/bash
# Builds one program written in Clad's API with adjc++ and runs it:
#   run.sh <adjc++> <test.cpp> <work dir> <compiler>
# adjc++ compiles with <compiler> (ADJC_CXX); exit status 0 when it builds warning-free and every
# gradient matches finite differences.
set -u
adjcxx=$1 source=$2 work=$3 compiler=$4
name=$(basename "${source%.*}")-$(basename "$compiler")
mkdir -p "$work"
ADJC_CXX=$compiler "$adjcxx" -std=c++20 -O1 -Wall -Wextra -Werror -I"$(dirname "$source")/.." "$source" \
  -o "$work/$name" || { echo "$name: adjc++ failed"; exit 1; }
"$work/$name"
