#!/usr/bin/env bash
# Lints the CI and cluster files teams copy: the GitHub workflows with actionlint, the Kubernetes
# manifests with kubernetes-validate (schemas of the pinned Kubernetes version, strict: no
# unknown fields). Both come from the Python registry into tools/setup.sh's lint venv. Exit 1 on
# any finding. tools/test runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${XDG_CACHE_HOME:-$HOME/.cache}/shapefuzz/lint-venv"
[[ -x $venv/bin/actionlint ]] || { echo "lint-ci: run tools/setup.sh first" >&2; exit 2; }
"$venv/bin/actionlint" -no-color .github/workflows/*.yml
"$venv/bin/kubernetes-validate" --strict --kubernetes-version 1.31 deploy/k8s/*.yaml
bash -n deploy/k8s/run-nightly.sh tools/fuzz-batch-local.sh
echo "lint-ci: $(ls .github/workflows/*.yml deploy/k8s/*.yaml | wc -l) files clean"
