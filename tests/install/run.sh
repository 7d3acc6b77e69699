#!/bin/bash
# Installs a build into a temporary prefix and builds and runs the examples against it, as a project
# outside this repository would: run.sh <build dir> <examples dir> <work dir> <generator> [clang++]
set -euo pipefail
build=$1 examples=$2 work=$3 generator=$4 clangxx=${5:-}
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/adjc bin/adjc++ include/adjoint/ad.hpp include/clad/Differentiator/Differentiator.h \
         lib/cmake/Adjoint/AdjointConfig.cmake; do
  [ -e "$prefix/$f" ] || { echo "install: $f missing under the prefix"; exit 1; }
done

# Configures, builds and runs one example in <work>/<tag>: example <tag> <name> <program> [VAR=value...]
example() {
  local tag=$1 name=$2 program=$3 dir="$work/$1"
  shift 3
  echo "== $name ${*:-}"
  env "$@" cmake -S "$examples/$name" -B "$dir" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
  env "$@" cmake --build "$dir"
  "$dir/$program"
}
example adjoint-api adjoint-api rosenbrock
example clad-api clad-api pendulum CXX="$prefix/bin/adjc++"
if [ -n "$clangxx" ]; then
  example clad-api-clang clad-api pendulum CXX="$prefix/bin/adjc++" ADJC_CXX="$clangxx"
fi
echo "examples built and passed"
