#!/usr/bin/env bash
# A campaign split into shards gives exactly what one campaign gives: 4 shards of one job and 2 of
# two jobs, merged, have the verdict counts, finding signatures (with their counts) and features
# of one --jobs 4 campaign over the same seeds; a shard killed with SIGKILL mid-run merges without
# losing what it wrote; the known-signature list decides the exit code; JUnit is written.
set -uo pipefail
cli="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# A fault found often (a failure) and one that aborts the engine (a crash).
export SHAPEFUZZ_FAULTS=dce_drops_binding_site,extern_binds_unresolved_name
mkdir -p "$tmp/four" "$tmp/two"
common=(--seed 7 --seeds 240 --seconds 60 --oracles structural,differential --minimize-seconds 0)

# What a report says, for comparing: bucket counts, signatures with counts, features.
summary() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/report.json"))
print("programs", r["programs"], "features", r["features"], "status", r["status"])
for k, v in sorted(r["buckets"].items()): print("bucket", k, v)
for f in sorted(r["findings"], key=lambda f: f["signature"]): print("finding", f["count"], f["signature"])
PY
}

"$cli" campaign --jobs 4 --out "$tmp/one" "${common[@]}" >"$tmp/one.log" 2>&1
[[ $? -eq 1 ]] || fail "the planted faults were not found by the one campaign"
grep -q '^shapefuzz FAIL: finished, 240 programs' "$tmp/one.log" || fail "no summary line: $(tail -n 2 "$tmp/one.log")"
for i in 0 1 2 3; do
  "$cli" campaign --shard $i/4 --out "$tmp/four/s$i" --junit "$tmp/four/s$i.xml" "${common[@]}" \
    >"$tmp/four/s$i.log" 2>&1 &
done
wait
for i in 0 1; do
  "$cli" campaign --shard $i/2 --jobs 2 --out "$tmp/two/s$i" "${common[@]}" >/dev/null 2>&1 &
done
wait
"$cli" merge "$tmp/four/merged" "$tmp"/four/s{0,1,2,3} --junit "$tmp/four/merged.xml" \
  >"$tmp/merge4.log" 2>&1
[[ $? -eq 1 ]] || fail "merge of the findings did not exit 1: $(cat "$tmp/merge4.log")"
"$cli" merge "$tmp/two/merged" "$tmp"/two/s{0,1} >/dev/null 2>&1
summary "$tmp/one" >"$tmp/one.txt"
summary "$tmp/four/merged" >"$tmp/four.txt"
summary "$tmp/two/merged" >"$tmp/two.txt"
grep -q '^finding .* fail:INV-6' "$tmp/one.txt" || fail "no INV-6 finding: $(cat "$tmp/one.txt")"
grep -q '^finding .* crash:signal6' "$tmp/one.txt" || fail "no crash finding: $(cat "$tmp/one.txt")"
diff "$tmp/one.txt" "$tmp/four.txt" || fail "4 shards merged differ from one --jobs 4 campaign"
diff "$tmp/one.txt" "$tmp/two.txt" || fail "2 shards of 2 jobs merged differ from one campaign"
# Every file the merged report names exists, and a reproducer replays with its signature.
python3 - "$tmp/four/merged" <<'PY' || fail "the merged report names a missing file"
import json, os, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
assert len(r["shards"]) == 4 and r["campaign"]["merged_shards"] == 4
for f in r["findings"]:
    for k in ("original", "minimized", "test"):
        assert not f[k] or os.path.exists(os.path.join(d, f[k])), f[k]
PY
first=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['findings'][0]['original'])" \
  "$tmp/four/merged/report.json")
env -u SHAPEFUZZ_FAULTS "$cli" repro "$tmp/four/merged/$first" --oracles structural,differential \
  >"$tmp/repro.log" 2>&1 || fail "the merged reproducer does not replay: $(tail -n 3 "$tmp/repro.log")"
for x in "$tmp"/four/s0.xml "$tmp/four/merged.xml"; do
  python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$x" || fail "$x is not XML"
  grep -q '<failure' "$x" || fail "$x has no failing case"
done

# The known list: every signature known passes (exit 0); a signature not in it fails (exit 1).
python3 -c "import json,sys; [print(f['signature']) for f in json.load(open(sys.argv[1]))['findings']]" \
  "$tmp/four/merged/report.json" >"$tmp/known.txt"
"$cli" merge "$tmp/k1" "$tmp"/four/s{0,1,2,3} --known "$tmp/known.txt" >"$tmp/k1.log" 2>&1 ||
  fail "merge with every signature known did not pass: $(cat "$tmp/k1.log")"
grep -q '^shapefuzz PASS: .* (0 new)' "$tmp/k1.log" || fail "no PASS summary: $(cat "$tmp/k1.log")"
head -n 1 "$tmp/known.txt" >"$tmp/known1.txt"
"$cli" merge "$tmp/k2" "$tmp"/four/s{0,1,2,3} --known "$tmp/known1.txt" >"$tmp/k2.log" 2>&1
[[ $? -eq 1 ]] || fail "a signature not in the known list did not fail the merge"
grep -q '^new: ' "$tmp/k2.log" || fail "the new signature is not named: $(cat "$tmp/k2.log")"

# Missing and mismatched shards are told, and an incomplete merge exits 5 (0 when allowed); a bad
# --shard is a usage error.
"$cli" merge "$tmp/m" "$tmp"/four/s{0,1} "$tmp/two/s0" --known "$tmp/known.txt" >"$tmp/m.log" 2>&1
[[ $? -eq 5 ]] || fail "an incomplete merge did not exit 5: $(cat "$tmp/m.log")"
grep -q 'shard 2/4 is missing' "$tmp/m.log" || fail "a missing shard is not told: $(cat "$tmp/m.log")"
grep -q 'a shard of another campaign' "$tmp/m.log" || fail "a mismatched shard is not told"
"$cli" merge "$tmp/m2" "$tmp"/four/s{0,1} --known "$tmp/known.txt" --allow-incomplete \
  >"$tmp/m2.log" 2>&1 || fail "--allow-incomplete did not accept a missing shard"
"$cli" campaign --shard 4/4 --seconds 1 --out "$tmp/bad" >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "--shard 4/4 is not a usage error"
"$cli" merge "$tmp/none" "$tmp/no/such/dir" >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "merge of nothing readable is not a usage error"

# A shard killed with SIGKILL mid-run: what its report had named is merged, files and all.
"$cli" campaign --shard 0/2 --seconds 120 --seed 7 --oracles structural --minimize-seconds 0 \
  --out "$tmp/killed/s0" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  python3 -c "import json,sys; sys.exit(len(json.load(open(sys.argv[1]))['findings']) < 2)" \
    "$tmp/killed/s0/report.json" 2>/dev/null && break
  sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
"$cli" campaign --shard 1/2 --seconds 1 --seed 7 --oracles structural --minimize-seconds 0 \
  --out "$tmp/killed/s1" >/dev/null 2>&1
"$cli" merge "$tmp/killed/merged" "$tmp"/killed/s{0,1} >"$tmp/killed.log" 2>&1
python3 - "$tmp/killed" <<'PY' || fail "the killed shard's findings were lost in the merge"
import json, os, sys
d = sys.argv[1]
s0 = json.load(open(d + "/s0/report.json"))
m = json.load(open(d + "/merged/report.json"))
assert s0["status"] == "running" and m["status"] == "interrupted", (s0["status"], m["status"])
merged = {f["signature"]: f for f in m["findings"]}
assert len(s0["findings"]) >= 2
for f in s0["findings"]:
    g = merged[f["signature"]]
    assert g["count"] >= f["count"]
    assert os.path.exists(os.path.join(d, "merged", g["original"])), g["original"]
assert m["programs"] >= s0["programs"]
PY

# Guided shards: their corpora are unioned and distilled to a set with every feature.
for i in 0 1; do
  "$cli" campaign --guided --shard $i/2 --seeds 120 --seconds 60 --seed 3 --oracles structural \
    --out "$tmp/guided/s$i" >/dev/null 2>&1 &
done
wait
# Their seeds done, they end long before the time box: a worker replaced after a crash in a
# mutant does not draw that mutant again (it did, until the time box, before WorkerPlan::restart).
python3 - "$tmp/guided" <<'PY' || fail "a guided shard ran to its time box"
import json, sys
for i in (0, 1):
    r = json.load(open(f"{sys.argv[1]}/s{i}/report.json"))
    assert r["status"] == "finished" and r["seconds"] < 40, (i, r["seconds"], r["programs"])
PY
env -u SHAPEFUZZ_FAULTS "$cli" merge "$tmp/guided/merged" "$tmp"/guided/s{0,1} \
  --oracles structural >"$tmp/guided.log" 2>&1
grep -q '^corpus: [0-9]* entries read, [0-9]* kept' "$tmp/guided.log" ||
  fail "no distilled corpus: $(cat "$tmp/guided.log")"
read_n=$(sed -n 's/^corpus: \([0-9]*\) entries read, \([0-9]*\) kept.*/\1/p' "$tmp/guided.log")
kept_n=$(sed -n 's/^corpus: \([0-9]*\) entries read, \([0-9]*\) kept.*/\2/p' "$tmp/guided.log")
files_n=$(find "$tmp/guided/merged/corpus" -name '*.sfz' | wc -l)
[[ $kept_n -ge 1 && $kept_n -lt $read_n && $files_n -eq $kept_n ]] ||
  fail "distilled corpus: read $read_n, kept $kept_n, files $files_n"

echo "shard_merge_test: $failures failures"
[[ $failures -eq 0 ]]
