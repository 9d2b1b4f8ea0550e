#!/usr/bin/env bash
# Instruction counts (valgrind's callgrind: stable on a shared machine, unlike wall time) for
# the two cost curves: the generator + pipeline per statement by program length, and the
# ShapeEnv per operation by sequence length. Each figure is the difference of two runs of
# different sizes, so process start-up cancels out. Needs an opt build of the CLI and valgrind.
#   usage: tools/bench/callgrind_curves.sh [ORACLES]   (default: structural)
set -euo pipefail
oracles=${1:-structural}
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=$root/bazel-out/k8-opt/bin/tools/shapefuzz_cli
[[ -x $cli ]] || { echo "build it first: bazel build -c opt //tools:shapefuzz_cli" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

instructions() {  # the total instruction count of running the CLI with these arguments
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$cli" "$@" >"$work/out" 2>"$work/err"
  sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' "$work/err" | tr -d ,
}
stmts_per_program() { awk -v L="$1" '$1 == L { print $2 }' "$work/out"; }

echo "generator + pipeline ($oracles oracles), instructions per statement:"
for length in 4 8 16 32 64; do
  small=$(instructions bench-pipeline --lengths "$length" --programs 40 --oracles "$oracles")
  s_small=$(stmts_per_program "$length")
  large=$(instructions bench-pipeline --lengths "$length" --programs 120 --oracles "$oracles")
  s_large=$(stmts_per_program "$length")
  awk -v L="$length" -v a="$small" -v b="$large" -v sa="$s_small" -v sb="$s_large" 'BEGIN {
    st = sb * 120 - sa * 40
    printf "  length %3d: %6.1f statements/program, %8.0f instructions/program, %7.0f per statement\n",
           L, st / 80, (b - a) / 80, (b - a) / st }'
done

echo "ShapeEnv (bench-shape-env seed 1), instructions per operation:"
base=$(instructions bench-shape-env --seed 1 --steps 1 --runs 1)
for steps in 200 1000 2500 5000 10000; do
  total=$(instructions bench-shape-env --seed 1 --steps "$steps" --runs 1)
  # two sequences run: the one exported and the one timed
  awk -v K="$steps" -v t="$total" -v b="$base" 'BEGIN {
    printf "  %6d steps: %6.1f k instructions per operation\n", K, (t - b) / (2 * K) / 1000 }'
done
