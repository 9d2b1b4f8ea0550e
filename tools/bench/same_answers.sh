#!/usr/bin/env bash
# Checks that a speed change left the ShapeEnv's answers alone: two builds of the CLI drive the
# same bench-shape-env sequences (seeds 1-5 at 200 and 2,500 steps) and must write identical
# operation scripts, user-error counts and final ShapeEnv states (the states when both builds
# have --state), and `gen --count 3000` must print the same programs.
#   usage: same_answers.sh BEFORE_CLI AFTER_CLI
set -euo pipefail
before=$1 after=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
states=1
for cli in "$before" "$after"; do
  "$cli" bench-shape-env --help | grep -q -- --state || states=0
done
run() {  # run CLI OUT: every answer of one build under OUT
  local cli=$1 out=$2
  mkdir -p "$out"
  for steps in 200 2500; do
    for seed in 1 2 3 4 5; do
      local name="$out/seed${seed}_${steps}" state=()
      ((states)) && state=(--state "$name.state")
      "$cli" bench-shape-env --seed "$seed" --steps "$steps" --runs 1 --export "$name.script" \
        "${state[@]}" | sed -n 's/.*runs, \([0-9]*\) user errors.*/\1/p' >"$name.errors"
    done
  done
  "$cli" gen --count 3000 --seed 1 >"$out/gen.txt"
}
run "$before" "$work/before"
run "$after" "$work/after"
if diff -r -q "$work/before" "$work/after"; then
  echo "same answers: 10 sequences (scripts, user errors$( ((states)) && echo ", states")) and" \
    "3,000 generated programs"
else
  echo "the answers differ (above)" >&2
  exit 1
fi
