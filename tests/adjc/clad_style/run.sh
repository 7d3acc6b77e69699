#!/bin/bash
# Builds one Clad-style test with adjc and runs it: run.sh <adjc> <include dir> <test.cpp> <work dir>
# Exit status: 0 when adjc accepts it, it compiles and every gradient matches finite differences.
# adjc parses with -fopenmp, as adjoint_add_gradients runs it, and the program is built with it, so
# that parallel loops run on several threads.
set -u
adjc=$1 include=$2 source=$3 work=$4
name=$(basename "$source" .cpp)
mkdir -p "$work"
here=$(cd "$(dirname "$source")" && pwd)
"$adjc" "$source" -o "$work/$name.adjc.cpp" -- -std=c++20 -fopenmp -I"$include" -I"$here" || { echo "adjc rejected $name"; exit 1; }
"${CXX:-c++}" -std=c++20 -fopenmp -O1 -Wall -Wextra -Werror -I"$include" -I"$here" "$work/$name.adjc.cpp" -o "$work/$name" ||
  { echo "$name: adjc's output does not compile"; exit 1; }
"$work/$name"
