#!/usr/bin/env bash
# A Python venv with the pinned PyTorch for torch-diff and export-torch's programs (the test
# suite does not need it). Idempotent: prints the venv's python and does nothing else when the
# pinned version is already there. Usage: tools/setup-torch.sh [VENV_DIR]
#   then: shapefuzz torch-diff corpus/program --python "$(tools/setup-torch.sh)"
set -euo pipefail
version=2.15.0
venv="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/shapefuzz/torch-$version}"
python="$venv/bin/python"
if [[ -x $python ]] && "$python" -c "import torch, sys; sys.exit(not torch.__version__.startswith('$version'))" 2>/dev/null; then
  echo "$python"
  exit 0
fi
command -v python3 >/dev/null || { echo "setup-torch: python3 is needed (apt-get install python3-venv)" >&2; exit 1; }
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --upgrade pip >&2
"$venv/bin/pip" install --quiet "torch==$version" numpy >&2
"$python" -c "import torch; print('setup-torch: torch', torch.__version__, file=__import__('sys').stderr)"
echo "$python"
