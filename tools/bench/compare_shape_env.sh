#!/usr/bin/env bash
# Our ShapeEnv against PyTorch's on the same recorded operation sequences, measured in one run:
# for each seed, bench-shape-env exports the sequence and times it (median of RUNS), then
# tools/bench/pytorch_shape_env.py replays it on PyTorch's ShapeEnv (median of TORCH_RUNS), and
# the ratio of the medians is printed. Needs an opt build of the CLI and a Python with torch.
# CLOCK is wall (elapsed, the default) or cpu (each side's own thread CPU time: steadier when
# other tenants share the machine).
#   usage: compare_shape_env.sh PYTHON STEPS "SEEDS" [RUNS] [TORCH_RUNS] [CLOCK]
#   e.g.   tools/bench/compare_shape_env.sh /tmp/torchvenv/bin/python 200 "1 2 3 4 5"
set -euo pipefail
python=$1 steps=$2 seeds=$3 runs=${4:-50} torch_runs=${5:-5} clock=${6:-wall}
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=$root/bazel-out/k8-opt/bin/tools/shapefuzz_cli
[[ -x $cli ]] || { echo "build it first: bazel build -c opt //tools:shapefuzz_cli" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-6s %6s %12s %14s %8s  (%s time)\n' seed steps "ours ms" "pytorch ms" ratio "$clock"
for seed in $seeds; do
  ours=$("$cli" bench-shape-env --seed "$seed" --steps "$steps" --runs "$runs" \
    --clock "$clock" --export "$work/script.txt" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
  theirs=$("$python" "$root/tools/bench/pytorch_shape_env.py" "$work/script.txt" "$torch_runs" "$clock" \
    2>/dev/null | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
  printf '%-6s %6s %12s %14s %8.1f\n' "$seed" "$steps" "$ours" "$theirs" \
    "$(awk -v a="$theirs" -v b="$ours" 'BEGIN { print a / b }')"
done
