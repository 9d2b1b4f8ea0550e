#!/usr/bin/env bash
# SIGTERM or SIGINT ends a campaign early, with its final report and summary: it exits within
# seconds, by that signal; report.json is complete, says "interrupted" and has the counts the
# summary prints; the stop invents no crash, not even when the workers get the SIGINT too (a
# terminal's Ctrl-C reaches the whole process group); no child outlives it; and every reproducer
# it wrote is named in the report and replays.
set -uo pipefail
set -m  # background jobs keep SIGINT (not ignored) and get a process group of their own
cli="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# interrupted NAME SIGNAL TARGET FLAGS...: a campaign with a planted fault (it finds, writes and
# minimizes) and a long time box, sent SIGNAL after 2 s: to the process, or (TARGET group) to its
# whole process group.
interrupted() {
  local name="$1" sig="$2" target="$3"
  shift 3
  local out="$tmp/$name" want_rc
  [[ $sig == INT ]] && want_rc=130 || want_rc=143
  SHAPEFUZZ_FAULTS=dce_drops_binding_site "$cli" campaign --seconds 600 --out "$out" \
    --oracles structural "$@" >"$out.stdout" 2>"$out.stderr" &
  local pid=$!
  sleep 2
  if [[ $target == group ]]; then kill -s "$sig" -- "-$pid"; else kill -s "$sig" "$pid"; fi
  local waited=0
  while kill -0 "$pid" 2>/dev/null && ((waited < 100)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$name: still running 10 s after SIG$sig"
    kill -s KILL -- "-$pid"
  fi
  wait "$pid"
  local rc=$?
  [[ $rc -eq $want_rc ]] || fail "$name: exit $rc, want $want_rc (died of SIG$sig)"
  sleep 0.5
  # (Live ones: a zombie waits for whoever reaps orphans here.)
  local left
  left="$(ps -e -o pgid=,stat=,pid=,args= | awk -v g="$pid" '$1 == g && $2 !~ /^Z/')"
  if [[ -n $left ]]; then
    fail "$name: processes outlived the campaign: $left"
    kill -s KILL -- "-$pid"
  fi
  grep -q '^campaign: [0-9]* programs in ' "$out.stdout" || {
    fail "$name: no summary line on stdout"
    head -20 "$out.stdout" "$out.stderr"
  }
  grep -q "^campaign: interrupted by SIG$sig" "$out.stderr" ||
    fail "$name: stderr does not say it was interrupted"
  # The report: valid JSON, final, the summary's counts, no crash, every reproducer named.
  python3 - "$out" <<'PY' || fail "$name: report.json (above)"
import json, os, re, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "report.json")))
summary = open(out + ".stdout").read()
problems = []
if r["status"] != "interrupted":
    problems.append("status %r" % r["status"])
if r["programs"] <= 0:
    problems.append("no program counted")
if sum(r["buckets"].values()) != r["programs"]:
    problems.append("buckets %s do not add up to %d programs" % (r["buckets"], r["programs"]))
m = re.search(r"^campaign: (\d+) programs in ", summary, re.M)
if not m or int(m.group(1)) != r["programs"]:
    problems.append("the summary's count is not the report's %d" % r["programs"])
# The stop must not show as a crash (a worker killed by the signal, or a hang it caused); the
# planted fault's own finds may be aborts (crash:signal6, an internal invariant), which is fine.
problems += ["a crash bucket from the stop: %s" % b for b in r["buckets"]
             if b in ("crash:signal2", "crash:signal9", "crash:signal15", "crash:timeout")
             or b.startswith("crash:exit")]
if not r["findings"]:
    problems.append("no finding (the planted fault finds one within a second)")
named = set()
for f in r["findings"]:
    for key in ("original", "minimized", "test"):
        if f[key]:
            named.add(f[key])
            if not os.path.isfile(os.path.join(out, f[key])):
                problems.append("names a missing file " + f[key])
for d in ("failures", "crashes", "triage"):
    for name in os.listdir(os.path.join(out, d)) if os.path.isdir(os.path.join(out, d)) else []:
        if d + "/" + name not in named:
            problems.append("writes a file the report does not name: " + d + "/" + name)
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
PY
  # Every reproducer replays as-is (its header carries the fault).
  local f
  for f in "$out"/failures/*.sfz "$out"/crashes/*.sfz "$out"/triage/*.sfz; do
    [[ -e $f ]] || continue
    "$cli" repro "$f" --oracles structural >"$tmp/repro.out" 2>&1 ||
      fail "$name: $f does not replay: $(head -3 "$tmp/repro.out")"
  done
}

interrupted term-process TERM process --jobs 2
# A script started with SIGINT ignored passes that on, and the campaign keeps it ignored (as
# nohup expects): the SIGINT cases need it not ignored.
if (($(printf '%d' "0x$(awk '/^SigIgn/ {print $2}' /proc/$$/status)") & 2)); then
  echo "SKIP: SIGINT is ignored in this test's environment"
else
  interrupted int-group INT group --jobs 2
  # Fork+exec'd workers would start with SIGINT's default action unless the campaign makes them
  # ignore it: a Ctrl-C must not become crash:signal2.
  interrupted int-group-exec INT group --jobs 2 --exec-workers
fi

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
