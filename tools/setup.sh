#!/usr/bin/env bash
# Installs every Debian package the build needs. Idempotent; silent when nothing is missing.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-cc bazel-rules-java
  g++ clang libclang-rt-14-dev clang-format
  libz3-dev cvc5 librapidcheck-dev libgtest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  libtcmalloc-minimal4 python3 valgrind
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq >/dev/null
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -d /usr/local/cuda/include ]]; then
  echo "setup: note: /usr/local/cuda not found; CUDA headers are needed to build the CUDA backend" >&2
fi
