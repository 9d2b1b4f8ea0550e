#!/usr/bin/env bash
# The fuzz targets' seeded driver end to end: with a bug-zoo fault on, the pipeline target finds a
# FAIL, writes crash-<hash> under -artifact_prefix and exits by abort; the crash file alone replays
# the same finding; with the fault off it runs clean. Flags are libFuzzer's.
set -uo pipefail
pipeline="$1"
parser="$2"
corpus="$3"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }

SHAPEFUZZ_FAULTS=refine_ranges_off_by_one "$pipeline" -runs=50000 -seed=3 \
  -artifact_prefix="$tmp/" "$corpus" >"$tmp/found.log" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "the faulty pipeline ran clean (rc 0)"
grep -q "==shapefuzz== FINDING in pipeline: FAIL" "$tmp/found.log" || fail "no FINDING line"
crash=$(ls "$tmp"/crash-* 2>/dev/null | head -1)
[ -n "$crash" ] || fail "no crash-<hash> file written"
[[ "$(basename "$crash")" =~ ^crash-[0-9a-f]{16}$ ]] || fail "crash file name $crash"

SHAPEFUZZ_FAULTS=refine_ranges_off_by_one "$pipeline" "$crash" >"$tmp/replay.log" 2>&1 &&
  fail "the crash file did not crash on replay"
first=$(grep -m1 "FINDING" "$tmp/found.log")
again=$(grep -m1 "FINDING" "$tmp/replay.log")
[ "$first" = "$again" ] || fail "replay differs: '$first' vs '$again'"

"$pipeline" "$crash" >"$tmp/clean.log" 2>&1 || fail "with the fault off the input still fails"
grep -q "Executed $crash" "$tmp/clean.log" || fail "replay did not report the file"

# A bad fault name is a usage error (exit 2), not a crash.
SHAPEFUZZ_FAULTS=no_such_fault "$parser" "$crash" >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown fault name was not exit 2"

# -runs and -seed make a run deterministic: the same exec count twice.
a=$("$parser" -runs=300 -seed=9 "$corpus" 2>&1 | grep DONE | cut -d' ' -f1)
b=$("$parser" -runs=300 -seed=9 "$corpus" 2>&1 | grep DONE | cut -d' ' -f1)
[ "$a" = "#332" ] && [ "$b" = "$a" ] || fail "runs: '$a' '$b' (want #332: 32 seeds + 300)"
echo "PASS"
