#!/usr/bin/env bash
# The CUDA backend on a real GPU. `tools/gpu-check.sh bundle` (here, with Bazel) builds the
# binaries and copies them with the shared libraries they need into .gpu/; `tools/gpu-check.sh run`
# (on the GPU machine, which has no Bazel and no Z3) runs the whole check from that bundle.
#
#   tools/gpu-check.sh bundle
#   device run, carry [".gpu"]:  tools/gpu-check.sh run [SECONDS]   ($OUT/gpu-check.tgz)
# SECONDS: the CUDA campaign's length, with torch-diff (the device's PyTorch) beside it;
# CAMPAIGN_JOBS (default 7) its workers, DIFF_JOBS (default 9) torch-diff's; DIFF_BACKENDS
# (default eager,aot_eager) the backends of its first pass (corpus/program and 500 generated
# programs); with inductor among them the later inductor-only passes are skipped; TORCH_DIFF=0
# leaves the window to the campaign alone.
# A "before" bench (.gpu/before/cuda_bench, copied there by hand from an older build) makes the
# bench step alternate before, after, before, after in the same run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bundle=.gpu

case "${1:-}" in
bundle)
  # Tests link against per-library .so files by default: link everything in statically.
  bazel build -c opt --dynamic_mode=off //tools:shapefuzz_cli //tests/backend:cuda_exec_test \
    //benchmarks:cuda_bench
  rm -rf "$bundle" && mkdir -p "$bundle/bin" "$bundle/lib"
  for b in tools/shapefuzz_cli tests/backend/cuda_exec_test benchmarks/cuda_bench; do
    cp "bazel-out/k8-opt/bin/$b" "$bundle/bin/"
  done
  # Libraries the GPU machine lacks: everything that is not libc/libstdc++/libm/libgcc, which the
  # device image has (Z3, gtest, benchmark and whatever they pull in). CUDA is dlopen'd there.
  for b in "$bundle"/bin/*; do
    ldd "$b" | awk '$3 ~ /^\// {print $3}'
  done | sort -u | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' |
    while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
  chmod -R u+w "$bundle"
  du -sh "$bundle"
  ;;
run)
  # SECONDS_BUDGET: the campaign's length, and the window in which torch-diff runs beside it.
  seconds="${2:-60}"
  out="${OUT:-/tmp/gpu-check}"
  logs=/tmp/gpu-check-logs
  rm -rf "$logs" /tmp/gpu-campaign && mkdir -p "$out" "$logs"
  export LD_LIBRARY_PATH="$root/$bundle/lib:${LD_LIBRARY_PATH:-}"
  cli="$bundle/bin/shapefuzz_cli"
  # Each step writes its own log; a failing step does not stop the others. Everything comes back
  # as one archive ($OUT/gpu-check.tgz: the device run returns at most 8 files).
  status=0
  step() {
    local name="$1"
    shift
    echo "== $name: $*"
    local t0=$SECONDS
    if "$@" >"$logs/$name.log" 2>&1; then echo "   ok ($((SECONDS - t0)) s)"; else
      echo "   FAILED rc=$? ($((SECONDS - t0)) s)"
      status=1
    fi
    tail -n 25 "$logs/$name.log"
  }
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  for b in "$bundle"/bin/*; do
    if ldd "$b" | grep -q 'not found'; then
      echo "missing libraries for $b:" && ldd "$b" | grep 'not found'
      exit 1
    fi
  done
  # The device tests beside diff-backends (both only check results; timings come after).
  t_exec=$SECONDS
  # (Its status goes through a file: under `set -e` a failing test must not end the script.)
  (
    set +e
    "$bundle/bin/cuda_exec_test" >"$logs/exec_test.log" 2>&1
    echo $? >"$logs/exec_test.rc"
  ) &
  exec_pid=$!
  # Every corpus program but the bug zoo's (their `# faults:` headers plant engine bugs).
  for dir in corpus/program corpus/regressions corpus/pytorch corpus/open tests/backend/programs; do
    step "diff_${dir//\//_}" "$cli" diff-backends "$dir"
  done
  wait "$exec_pid" || true
  echo "== exec_test: $bundle/bin/cuda_exec_test (rc $(cat "$logs/exec_test.rc"), $((SECONDS - t_exec)) s)"
  [[ $(cat "$logs/exec_test.rc") == 0 ]] || status=1
  tail -n 25 "$logs/exec_test.log"
  # Timings while nothing else runs on the device.
  if [[ -x "$bundle/before/cuda_bench" ]]; then
    for round in 1 2; do
      step "bench_before_$round" "$bundle/before/cuda_bench"
      step "bench_after_$round" "$bundle/bin/cuda_bench"
    done
  else
    step bench "$bundle/bin/cuda_bench"
  fi
  have_torch=0
  if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then have_torch=1; fi
  torch_bench=$have_torch
  # TORCH_DIFF=0: the campaign alone in its window.
  [[ ${TORCH_DIFF:-1} == 0 ]] && have_torch=0
  [[ $torch_bench == 1 ]] && step torch_bench python3 tools/bench/torch_gpu_bench.py
  if [[ "$seconds" -gt 0 ]]; then
    # The campaign and torch-diff share the machine's 16 cores for the same window.
    deadline=$((SECONDS + seconds))
    # Each new finding is minimized for at most MINIMIZE_SECONDS (default 10) after the box.
    "$cli" campaign --backend cuda --jobs "${CAMPAIGN_JOBS:-7}" --seconds "$seconds" \
      --minimize-seconds "${MINIMIZE_SECONDS:-10}" --out /tmp/gpu-campaign \
      >"$logs/campaign.log" 2>&1 &
    campaign_pid=$!
    if [[ $have_torch == 1 ]]; then
      diff=("$cli" torch-diff --python python3 --device cuda --ours-backend cuda
        --jobs "${DIFF_JOBS:-9}" --timeout 90 --minimize 0
        --known corpus/pytorch/known-divergences.txt)
      first_backends="${DIFF_BACKENDS:-eager,aot_eager}"
      left() { local l=$((deadline - SECONDS)); echo $((l > 1 ? l : 1)); }
      # torch-diff's own time box ends each step with its report written (what the box cut off
      # is "not run"); the outer timeout only guards against a hang of the tool itself.
      boxed() { local l; l=$(left); timeout $((l + 60)) "${diff[@]}" --seconds "$l" "$@"; }
      # eager and aot_eager on the corpus programs and regressions and 500 generated programs;
      # then inductor on the corpus programs and on generated ones, 40 at a time, while the
      # window lasts.
      step torch_diff_fast boxed corpus/program --seeds 500 \
        --backends "$first_backends" --out "$logs/td_fast"
      step torch_diff_fast_regressions boxed corpus/regressions \
        --backends "$first_backends" --out "$logs/td_fast_regressions"
      if [[ $first_backends != *inductor* ]]; then
        step torch_diff_inductor_corpus boxed corpus/program \
          --backends inductor --out "$logs/td_inductor_corpus"
      fi
      first=0
      while [[ $first_backends != *inductor* && $(left) -gt 60 ]]; do
        step "torch_diff_inductor_$first" boxed --seeds 40 \
          --seed "$first" --backends inductor --out "$logs/td_inductor_$first"
        first=$((first + 40))
      done
    fi
    wait "$campaign_pid" || status=1
    tail -n 30 "$logs/campaign.log"
    tar -czf "$logs/campaign.tgz" -C /tmp gpu-campaign
  fi
  tar -czf "$out/gpu-check.tgz" -C /tmp gpu-check-logs
  exit $status
  ;;
*)
  sed -n 2,7p "$0" >&2
  exit 2
  ;;
esac
