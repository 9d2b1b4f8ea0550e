#!/usr/bin/env bash
# The CLI end to end: flag validation and exit codes, and a reproducer's life: a campaign with a
# planted fault writes it, `repro` says reproduced / different failure / no longer fails,
# `minimize` shrinks it, `run` replays it.
set -uo pipefail
cli="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

# expect_rc RC DESCRIPTION CMD...: runs CMD, checks its exit code, keeps its output in $out.
expect_rc() {
  local want="$1" what="$2"
  shift 2
  out="$("$@" 2>&1)"
  local rc=$?
  if [[ $rc -ne $want ]]; then
    echo "FAIL: $what: exit $rc, want $want"
    echo "$out" | head -20
    failures=$((failures + 1))
  fi
}
expect_output() {
  if ! grep -q -- "$1" <<<"$out"; then
    echo "FAIL: output lacks '$1':"
    echo "$out" | head -20
    failures=$((failures + 1))
  fi
}

expect_rc 0 "--help" "$cli" --help
expect_output "repro"
expect_rc 0 "campaign --help" "$cli" campaign --help
expect_output "--minimize-seconds"
expect_rc 2 "no command" "$cli"
expect_rc 2 "unknown command" "$cli" frobnicate
expect_rc 2 "non-number" "$cli" campaign --seconds abc
expect_output "expected a positive number"
expect_rc 2 "not positive" "$cli" campaign --seconds 0
expect_output "positive"
expect_rc 2 "out of range" "$cli" campaign --timeout 1e9
expect_output "timeout"
expect_rc 2 "unknown flag" "$cli" campaign --bogus 1
expect_output "bogus"
expect_rc 0 "bench-shape-env on the CPU clock" "$cli" bench-shape-env --steps 20 --runs 3 --clock cpu
expect_output "(cpu time, 3 runs"
expect_rc 2 "an unknown clock" "$cli" bench-shape-env --clock sundial
expect_output "sundial not in {wall,cpu}"
expect_rc 2 "missing file" "$cli" run "$tmp/does-not-exist.sfz"
expect_rc 2 "unwritable --out" "$cli" campaign --seconds 1 --out /proc/no/such/dir
printf '# sfz 1\nthis is not a program\n' >"$tmp/bad.sfz"
expect_rc 2 "unparsable program" "$cli" run "$tmp/bad.sfz"

"$cli" gen --seed 3 >"$tmp/gen3.sfz"
expect_rc 2 "bad oracle list" "$cli" run "$tmp/gen3.sfz" --oracles nonsense
expect_output "unknown oracle 'nonsense'"
expect_rc 2 "no oracle" "$cli" run "$tmp/gen3.sfz" --oracles ''
expect_output "no oracle named"
expect_rc 0 "gen is deterministic" cmp "$tmp/gen3.sfz" <("$cli" gen --seed 3)
expect_rc 2 "negative seed" "$cli" gen --seed -1
expect_output "expected a seed from 0 to 18446744073709551615"
expect_rc 0 "the last seeds wrap to 0" "$cli" gen --seed 18446744073709551615 --count 2
[[ $(grep -c '^# sfz 1' <<<"$out") -eq 2 ]] || { echo "FAIL: gen past 2^64 - 1 printed $(grep -c '^# sfz 1' <<<"$out") programs, want 2"; failures=$((failures + 1)); }

# A campaign with a planted fault finds, writes and minimizes.
SHAPEFUZZ_FAULTS=dce_drops_binding_site expect_rc 1 "campaign with a planted fault" \
  "$cli" campaign --seconds 2 --out "$tmp/camp" --minimize-seconds 5 --oracles structural
expect_output "fail:INV-6"
repro_file="$(ls "$tmp"/camp/failures/INV-6-*.sfz | grep -v '\.min\.sfz$' | head -1)"
min_file="${repro_file%.sfz}.min.sfz"
[[ -f "$repro_file" && -f "$min_file" && -f "${repro_file%.sfz}_test.cc" ]] ||
  { echo "FAIL: campaign files missing"; failures=$((failures + 1)); }
grep -q '^# faults: dce_drops_binding_site$' "$repro_file" ||
  { echo "FAIL: no faults header"; failures=$((failures + 1)); }

# Replays as-is (no SHAPEFUZZ_FAULTS: the header carries the fault).
expect_rc 0 "repro" "$cli" repro "$repro_file" --times 3 --oracles structural
expect_output "reproduced (3 identical runs)"
expect_rc 0 "repro minimized" "$cli" repro "$min_file" --oracles structural
expect_rc 1 "run a failure" "$cli" run "$min_file" --oracles structural
expect_output "reproduces: fail:INV-6"
sed 's/^# reproduces: .*/# reproduces: fail:tv: some other bug/' "$min_file" >"$tmp/other.sfz"
expect_rc 1 "different failure" "$cli" repro "$tmp/other.sfz" --oracles structural
expect_output "different failure"
grep -v '^# faults:' "$min_file" >"$tmp/fixed.sfz"
expect_rc 3 "no longer fails" "$cli" repro "$tmp/fixed.sfz" --oracles structural
expect_output "no longer fails"

# minimize: an output it cannot write is refused before any shrinking, with no file left behind.
mkdir -p "$tmp/outdir"
expect_rc 2 "minimize into a directory" "$cli" minimize "$repro_file" -o "$tmp/outdir" --oracles structural
expect_output "is a directory"
if ls "$tmp" | grep -q '\.tmp\.'; then
  echo "FAIL: a temporary file was left behind: $(ls "$tmp" | grep '\.tmp\.')"
  failures=$((failures + 1))
fi
# minimize: the original shrinks.
expect_rc 0 "minimize" "$cli" minimize "$repro_file" -o "$tmp/m.sfz" --oracles structural --seconds 20
expect_output " -> "
expect_rc 0 "repro of minimize's output" "$cli" repro "$tmp/m.sfz" --oracles structural
count() { grep -cv '^#' "$1"; }
if (($(count "$tmp/m.sfz") >= $(count "$repro_file"))); then
  echo "FAIL: minimize did not shrink ($(count "$repro_file") -> $(count "$tmp/m.sfz"))"
  failures=$((failures + 1))
fi

# A crash (an SF_CHECK abort) reproduces with its check line.
SHAPEFUZZ_FAULTS=extern_binds_unresolved_name expect_rc 1 "campaign with a crashing fault" \
  "$cli" campaign --seconds 2 --out "$tmp/crash" --minimize-seconds 5 --oracles structural
crash_file="$(ls "$tmp"/crash/crashes/*.min.sfz | head -1)"
grep -q '^# reproduces: crash:signal6: .*internal invariant failed' "$crash_file" ||
  { echo "FAIL: crash reproducer header"; failures=$((failures + 1)); }
expect_rc 0 "repro of a crash" "$cli" repro "$crash_file" --oracles structural
expect_output "reproduced"

# report.json is complete and names the files.
grep -q '"status": "finished"' "$tmp/camp/report.json" ||
  { echo "FAIL: report not finished"; failures=$((failures + 1)); }
grep -q "\"original\": \"failures/$(basename "$repro_file")\"" "$tmp/camp/report.json" ||
  { echo "FAIL: report does not name $repro_file"; failures=$((failures + 1)); }

# check: a corpus file whose expectation is wrong and a campaign with a planted fault both fail it
# (exit 1) and appear in the JUnit XML; a sound corpus with no campaign passes (exit 0).
mkdir -p "$tmp/checkc"
cat >"$tmp/checkc/wrong.sfz" <<'SFZ'
# sfz 1
# expect: error check_failed
input t: i64[4] = [1, 0, 2, 0]
a = nonzero(t)
return a
SFZ
expect_rc 1 "check with a wrong expectation" "$cli" check --corpus "$tmp/checkc" --seconds 0 \
  --property-cases 20 --junit "$tmp/check1.xml"
expect_output "expected 'error check_failed', got pass"
grep -q '<testcase classname="corpus.checkc" name="wrong.sfz"' "$tmp/check1.xml" &&
  grep -q '<failure message="expected &apos;error check_failed&apos;, got pass">' "$tmp/check1.xml" ||
  { echo "FAIL: check JUnit lacks the failed corpus case"; failures=$((failures + 1)); }
sed -i 's/# expect: error check_failed/# expect: ok/' "$tmp/checkc/wrong.sfz"
expect_rc 0 "check of a sound corpus" "$cli" check --corpus "$tmp/checkc" --seconds 0 \
  --property-cases 20
# The file and the five oracle properties, in the one-line summary a CI log shows.
expect_output "shapefuzz check PASS: corpus 1 cases, 0 failed; properties 5 cases, 0 failed (6 cases, 0 failed, 0 skipped)"
SHAPEFUZZ_FAULTS=refine_ranges_off_by_one expect_rc 1 "check finds a planted fault" "$cli" check \
  --corpus "$tmp/checkc" --seconds 10 --property-cases 20 --oracles structural,differential --junit "$tmp/check2.xml"
grep -q '<testcase classname="campaign" name="fail:' "$tmp/check2.xml" ||
  { echo "FAIL: check JUnit lacks the campaign finding"; failures=$((failures + 1)); }
expect_rc 2 "check --junit into a file path" "$cli" check --seconds 0 --corpus "$tmp/checkc" \
  --junit "$tmp/checkc/wrong.sfz/x.xml"
expect_rc 1 "check of a missing corpus directory" "$cli" check --seconds 0 --property-cases 0 \
  --corpus "$tmp/no-such-dir"
expect_output "no such directory"
expect_rc 2 "check --junit into a directory" "$cli" check --seconds 0 --corpus "$tmp/checkc" \
  --junit "$tmp/checkc"
expect_output "is a directory"
# JUnit XML stays well-formed UTF-8 when a corpus file name is UTF-8 only in appearance
# (overlong '/', a surrogate, past U+10FFFF): each byte is replaced.
mkdir -p "$tmp/checku"
cp "$tmp/checkc/wrong.sfz" "$tmp/checku/$(printf 'a\xc0\xafb\xed\xa0\x80c\xf4\x90\x80\x80.sfz')"
expect_rc 0 "check of an oddly named corpus file" "$cli" check --seconds 0 --property-cases 0 \
  --corpus "$tmp/checku" --junit "$tmp/checku.xml"
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/checku.xml" ||
  { echo "FAIL: check --junit wrote XML that does not parse"; failures=$((failures + 1)); }
grep -q 'name="a??b???c????.sfz"' "$tmp/checku.xml" ||
  { echo "FAIL: JUnit kept malformed UTF-8: $(grep -a testcase "$tmp/checku.xml")"; failures=$((failures + 1)); }
expect_rc 2 "export-torch -o into a directory" "$cli" export-torch "$tmp/checkc/wrong.sfz" -o "$tmp/checkc"
expect_output "is a directory"

# fork+exec'd workers (what --backend cuda uses): programs run, a planted abort is recorded as a
# crash against its program and its reproducer replays; --backend cuda without a GPU is exit 4.
SHAPEFUZZ_FAULTS=extern_binds_unresolved_name expect_rc 1 "exec'd workers record crashes" \
  "$cli" campaign --seconds 3 --exec-workers --jobs 2 --oracles structural --minimize-seconds 1 \
  --out "$tmp/exec"
expect_output "crash:signal6"
exec_crash=$(ls "$tmp"/exec/crashes/*.sfz 2>/dev/null | grep -v min | head -1)
if [[ -n "$exec_crash" ]]; then
  expect_rc 0 "repro of an exec'd worker's crash" "$cli" repro "$exec_crash" --oracles structural
  expect_output "reproduced"
else
  echo "FAIL: exec'd workers wrote no crash reproducer"; failures=$((failures + 1))
fi
out="$("$cli" campaign --seconds 1 --backend cuda --out "$tmp/cuda" 2>&1)"
rc=$?
if [[ $rc -eq 4 ]]; then
  grep -q "cuda backend is unavailable in a worker" <<<"$out" ||
    { echo "FAIL: cuda campaign exit 4 without the reason"; failures=$((failures + 1)); }
elif [[ $rc -ne 0 && $rc -ne 1 ]]; then
  echo "FAIL: cuda campaign exit $rc"; failures=$((failures + 1))
fi

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
