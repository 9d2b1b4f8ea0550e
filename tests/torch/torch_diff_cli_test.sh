#!/usr/bin/env bash
# torch-diff end to end against misbehaving workers (fake_torch_worker.py behind --python): PyTorch
# is looked for before any program runs, a worker that is silent, exits or is not a worker is
# "unavailable" (exit 4) in seconds, a hung or endless answer is that program's torch-crashes
# (exit 1) and the next program gets a fresh worker, and --seeds is range-checked and counts
# modulo 2^64 like gen's; --seconds boxes the PyTorch side; --known files that do not parse are
# usage errors, and only new disagreements make the exit code 1. Every run is under `timeout`, so a hang fails the test instead of
# stalling it.
set -uo pipefail
cli="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fake="$PWD/tests/torch/fake_torch_worker.py"
failures=0

# A --python that runs the fake in MODE whatever script it is given.
fake_python() {
  local file="$tmp/python-$1"
  printf '#!/bin/sh\nFAKE_TORCH_MODE=%s exec python3 %s\n' "$1" "$fake" >"$file"
  chmod +x "$file"
  echo "$file"
}

# expect RC MAX_SECONDS DESCRIPTION CMD...: CMD exits RC within MAX_SECONDS; its output in $out.
expect() {
  local want="$1" limit="$2" what="$3"
  shift 3
  local start=$SECONDS
  out="$(timeout 120 "$@" 2>&1)"
  local rc=$? took=$((SECONDS - start))
  if [[ $rc -ne $want ]]; then
    echo "FAIL: $what: exit $rc, want $want"; echo "$out" | tail -20
    failures=$((failures + 1))
  elif ((took > limit)); then
    echo "FAIL: $what: took $took s, want at most $limit"
    failures=$((failures + 1))
  fi
}
expect_output() {
  if ! grep -q -- "$1" <<<"$out"; then
    echo "FAIL: output lacks '$1':"; echo "$out" | tail -20
    failures=$((failures + 1))
  fi
}

# Without PyTorch: found out first, before a million programs of ours would run.
if ! python3 -c "import torch" 2>/dev/null; then
  expect 4 5 "no torch" "$cli" torch-diff --seeds 1048576 --python python3
  expect_output "PyTorch is unavailable: .*No module named 'torch'"
fi
expect 4 5 "no such python" "$cli" torch-diff --seeds 1048576 --python /nonexistent/python3
expect_output "cannot run /nonexistent/python3"
expect 4 5 "a worker that exits at once" \
  "$cli" torch-diff --seeds 1048576 --python "$(fake_python exit)"
expect_output "the worker did not start (.*): it ended (crash:exit0)"
expect 4 8 "a silent worker" \
  "$cli" torch-diff --seeds 1048576 --python "$(fake_python silent)" --start-timeout 2
expect_output "no handshake within 2 s"
printf '#!/bin/sh\nyes | tr -d "\\n"\n' >"$tmp/python-endless-line"
chmod +x "$tmp/python-endless-line"
expect 4 5 "an endless first line" "$cli" torch-diff --seeds 2 --python "$tmp/python-endless-line"
expect_output "a line of its start passed the 1 MiB cap"

# After the handshake: each program has --timeout and the cap; a fresh worker takes the next one.
expect 1 30 "a hung worker" "$cli" torch-diff --seeds 3 --python "$(fake_python hang)" \
  --timeout 1 --backends eager
expect_output "eager:"
expect_output "torch-crashes .* 3  (100.0%)"
expect_output "torch-crashes torch:crash/timeout"
expect_output "no answer within 1 s"
expect 1 30 "an endless answer" "$cli" torch-diff --seeds 3 --python "$(fake_python endless)" \
  --backends eager
expect_output "torch-crashes .* 3  (100.0%)"
expect_output "torch-crashes torch:crash/answer too long"
expect_output "its answer passed the 1 MiB cap"

# --seconds: a time box that ends the PyTorch side (hung workers here) within it; what it cut
# off is not run, not a hang of PyTorch's, and the report is written all the same.
expect 0 10 "a time box" "$cli" torch-diff --seeds 3 --python "$(fake_python hang)" --timeout 60 \
  --seconds 2 --backends eager --out "$tmp/box" --minimize 0 --jobs 2
expect_output "3 programs not run: the --seconds 2 time box ended first"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert sorted(r["not_run"]) == ["seed-1", "seed-2", "seed-3"], r["not_run"]; assert r["programs"] == [], r["programs"]' \
  "$tmp/box/report.json" || { echo "FAIL: the time box's report.json"; failures=$((failures + 1)); }

# --seeds: bounded, never negative, and counted modulo 2^64.
expect 2 5 "--seeds past the bound" "$cli" torch-diff --seeds 1048577 --python python3
expect_output "not in range"
expect 2 5 "negative --seeds" "$cli" torch-diff --seeds -1 --python python3
expect 1 30 "seeds wrapping past 2^64-1" "$cli" torch-diff --seed 18446744073709551615 --seeds 2 \
  --python "$(fake_python '')" --backends eager --out "$tmp/wrap" --minimize 0
expect_output "^2 programs"
for name in seed-18446744073709551615 seed-0; do
  grep -q "\"$name\"" "$tmp/wrap/report.json" || {
    echo "FAIL: report.json lacks $name"; failures=$((failures + 1))
  }
done

# --known: a disagreement a rule matches is known, and only new ones make the exit code 1.
expect 2 5 "an unreadable known file" "$cli" torch-diff --seeds 1 --python "$(fake_python '')" \
  --known /nonexistent/known.txt
expect_output "cannot read the known-divergence file /nonexistent/known.txt"
printf '[a]\nfrobs = 1\n' >"$tmp/bad-known.txt"
expect 2 5 "a malformed known file" "$cli" torch-diff --seeds 1 --python "$(fake_python '')" \
  --known "$tmp/bad-known.txt"
expect_output "bad-known.txt:2: unknown key 'frobs'"
printf '[fake]\ndetail = something else|data-dependent expression\nwhy = the fake worker\n' \
  >"$tmp/known.txt"
expect 0 30 "every disagreement known" "$cli" torch-diff --seeds 2 --python "$(fake_python '')" \
  --backends eager --known "$tmp/known.txt"
expect_output "\\[known: fake\\]"
expect_output "2 disagreements: 2 known (.*known.txt, 1 rules), 0 new"
printf '[fake]\ndetail = no such message\nwhy = the fake worker\n' >"$tmp/known.txt"
expect 1 30 "a new disagreement" "$cli" torch-diff --seeds 2 --python "$(fake_python '')" \
  --backends eager --known "$tmp/known.txt"
expect_output "2 disagreements: 0 known (.*), 2 new"

if ((failures > 0)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
