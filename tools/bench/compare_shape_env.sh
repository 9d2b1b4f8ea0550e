#!/usr/bin/env bash
# Our ShapeEnv against PyTorch's on the same recorded operation sequences: for each seed,
# bench-shape-env exports the sequence and times it (median of RUNS), then
# tools/bench/pytorch_shape_env.py replays it on PyTorch's ShapeEnv (median of TORCH_RUNS).
# The two alternate ROUNDS times per seed, because a shared machine has slow spells lasting
# seconds to minutes: one process's median can be 1.5x another's minutes later. Noise only adds
# time, so the fastest round of each side is the estimate of a quiet machine ("min" ratio); the
# median round is printed beside it. CLOCK is wall (elapsed, the default) or cpu (each side's own
# thread CPU time). Needs an opt build of the CLI (or another build in SHAPEFUZZ_CLI, to compare
# before and after) and a Python with torch.
#   usage: compare_shape_env.sh PYTHON STEPS "SEEDS" [RUNS] [TORCH_RUNS] [CLOCK] [ROUNDS]
#   e.g.   tools/bench/compare_shape_env.sh /tmp/torchvenv/bin/python 200 "1 2 3 4 5"
set -euo pipefail
python=$1 steps=$2 seeds=$3 runs=${4:-50} torch_runs=${5:-5} clock=${6:-wall} rounds=${7:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${SHAPEFUZZ_CLI:-$root/bazel-out/k8-opt/bin/tools/shapefuzz_cli}
[[ -x $cli ]] || { echo "build it first: bazel build -c opt //tools:shapefuzz_cli" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

min_of() { tr ' ' '\n' | grep . | sort -g | head -1; }
median_of() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END {
  print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

printf '%-5s %6s %21s %21s %9s %9s  (%s time, %s rounds)\n' seed steps "ours ms (min/median)" \
  "pytorch ms (min/med)" "min ratio" "med ratio" "$clock" "$rounds"
min_ratios="" med_ratios=""
for seed in $seeds; do
  ours="" theirs=""
  for ((r = 0; r < rounds; ++r)); do
    ours+=" $("$cli" bench-shape-env --seed "$seed" --steps "$steps" --runs "$runs" \
      --clock "$clock" --export "$work/script.txt" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')"
    theirs+=" $("$python" "$root/tools/bench/pytorch_shape_env.py" "$work/script.txt" \
      "$torch_runs" "$clock" 2>/dev/null | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')"
  done
  o_min=$(min_of <<<"$ours") o_med=$(median_of <<<"$ours")
  t_min=$(min_of <<<"$theirs") t_med=$(median_of <<<"$theirs")
  [[ -n $o_min && -n $t_min ]] || { echo "seed $seed: a side printed no median" >&2; exit 1; }
  min_ratio=$(ratio "$t_min" "$o_min") med_ratio=$(ratio "$t_med" "$o_med")
  min_ratios+=" $min_ratio" med_ratios+=" $med_ratio"
  printf '%-5s %6s %10s/%-10s %10s/%-10s %9s %9s\n' "$seed" "$steps" "$o_min" "$o_med" \
    "$t_min" "$t_med" "$min_ratio" "$med_ratio"
done
printf 'median over the seeds: %s (min ratio), %s (median ratio)\n' \
  "$(median_of <<<"$min_ratios")" "$(median_of <<<"$med_ratios")"
