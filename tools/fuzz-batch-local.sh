#!/usr/bin/env bash
# The steps a ClusterFuzzLite batch job runs (.github/workflows/cflite_batch.yml), on this
# machine's libFuzzer build of the pipeline target (`bazel build --config=libfuzzer //:fuzzers`):
# fuzz with a corpus and every oracle, merge the corpus (-merge=1), find a crash with a bug-zoo
# fault on, minimize it (-minimize_crash=1) and replay the minimized input. tools/test runs it
# with a few seconds per step; exit 1 when a step does not do what a batch job relies on.
#   usage: tools/fuzz-batch-local.sh [FUZZ_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
fuzzer=bazel-out/k8-fastbuildlibfuzzer/bin/fuzz/targets/pipeline_fuzzer
[[ -x $fuzzer ]] || { echo "build it first: bazel build --config=libfuzzer //:fuzzers" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "== $*"; }
fail() { echo "fuzz-batch-local: $*" >&2; exit 1; }

step "1. fuzz for ${seconds}s with the seed corpus and every oracle (Z3's included)"
mkdir -p "$work/corpus" "$work/merged"
cp corpus/pipeline/* "$work/corpus/"
before=$(ls "$work/corpus" | wc -l)
SHAPEFUZZ_ORACLES=all "$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
  -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1 ||
  fail "fuzzing with every oracle found something: $(tail -n 20 "$work/fuzz.log")"
grep -q '^pipeline_fuzzer: oracles .*binding.*tv' "$work/fuzz.log" || fail "the Z3 oracles were not on: $(grep '^pipeline_fuzzer' "$work/fuzz.log")"
grep '^pipeline_fuzzer: oracles' "$work/fuzz.log"
grep -E '^#[0-9]+ *DONE' "$work/fuzz.log" || tail -n 2 "$work/fuzz.log"
after=$(ls "$work/corpus" | wc -l)
echo "corpus: $before seed inputs, $after after fuzzing"

step "2. merge the corpus into a minimal one with the same coverage (-merge=1)"
"$fuzzer" -merge=1 "$work/merged" "$work/corpus" >"$work/merge.log" 2>&1 ||
  fail "merge failed: $(tail -n 5 "$work/merge.log")"
merged=$(ls "$work/merged" | wc -l)
grep -E 'MERGE-OUTER: [0-9]+ new files' "$work/merge.log" || true
echo "merged corpus: $merged of $after inputs"
((merged >= 1 && merged <= after)) || fail "the merged corpus has $merged inputs"

step "3. a crash: the pipeline with a bug-zoo fault on"
SHAPEFUZZ_FAULTS=refine_ranges_off_by_one "$fuzzer" -runs=50000 -seed=3 -artifact_prefix="$work/" \
  "$work/merged" >"$work/crash.log" 2>&1 && fail "the faulty pipeline ran clean"
crash=$(ls "$work"/crash-* 2>/dev/null | head -n 1 || true)
[[ -n $crash ]] || fail "no crash file: $(tail -n 5 "$work/crash.log")"
echo "crash: $(basename "$crash") ($(wc -c <"$crash") bytes)"

step "4. minimize it (-minimize_crash=1)"
SHAPEFUZZ_FAULTS=refine_ranges_off_by_one "$fuzzer" -minimize_crash=1 -runs=2000 \
  -exact_artifact_path="$work/minimized" "$crash" >"$work/minimize.log" 2>&1 || true
[[ -s $work/minimized ]] || fail "no minimized crash: $(tail -n 5 "$work/minimize.log")"
echo "minimized: $(wc -c <"$crash") -> $(wc -c <"$work/minimized") bytes"

step "5. replay the minimized crash: the same kind of finding"
SHAPEFUZZ_FAULTS=refine_ranges_off_by_one "$fuzzer" "$work/minimized" >"$work/replay.log" 2>&1 &&
  fail "the minimized input does not crash"
grep -m1 '==shapefuzz== FINDING in pipeline' "$work/replay.log" ||
  fail "the replay shows no finding: $(tail -n 5 "$work/replay.log")"
"$fuzzer" "$work/minimized" >/dev/null 2>&1 || fail "with the fault off the minimized input fails"
echo "fuzz-batch-local: every step as a batch job runs it"
