#!/usr/bin/env bash
# The CUDA backend on a real GPU. `tools/gpu-check.sh bundle` (here, with Bazel) builds the
# binaries and copies them with the shared libraries they need into .gpu/; `tools/gpu-check.sh run`
# (on the GPU machine, which has no Bazel and no Z3) runs the whole check from that bundle.
#
#   tools/gpu-check.sh bundle
#   device run, carry [".gpu"]:  tools/gpu-check.sh run [CAMPAIGN_SECONDS]   (logs under $OUT)
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
  seconds="${2:-60}"
  out="${OUT:-/tmp/gpu-check}"
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$root/$bundle/lib:${LD_LIBRARY_PATH:-}"
  # Each step writes its own log; a failing step does not stop the others.
  status=0
  step() {
    local name="$1"
    shift
    echo "== $name: $*"
    local t0=$SECONDS
    if "$@" >"$out/$name.log" 2>&1; then echo "   ok ($((SECONDS - t0)) s)"; else
      echo "   FAILED rc=$? ($((SECONDS - t0)) s)"
      status=1
    fi
    tail -n 25 "$out/$name.log"
  }
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  for b in "$bundle"/bin/*; do
    if ldd "$b" | grep -q 'not found'; then
      echo "missing libraries for $b:" && ldd "$b" | grep 'not found'
      exit 1
    fi
  done
  step exec_test "$bundle/bin/cuda_exec_test"
  step diff_program "$bundle/bin/shapefuzz_cli" diff-backends corpus/program
  step diff_regressions "$bundle/bin/shapefuzz_cli" diff-backends corpus/regressions
  step bench "$bundle/bin/cuda_bench"
  if [[ -f tools/bench/torch_gpu_bench.py ]]; then
    step torch_bench python3 tools/bench/torch_gpu_bench.py
  fi
  if [[ "$seconds" -gt 0 ]]; then
    step campaign "$bundle/bin/shapefuzz_cli" campaign --backend cuda --jobs 14 \
      --seconds "$seconds" --out /tmp/gpu-campaign
    tar -czf "$out/campaign.tgz" -C /tmp gpu-campaign
  fi
  exit $status
  ;;
*)
  sed -n 2,7p "$0" >&2
  exit 2
  ;;
esac
