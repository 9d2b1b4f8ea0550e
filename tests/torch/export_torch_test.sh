#!/usr/bin/env bash
# export-torch: each golden program exports to exactly its golden .py after the fixed prelude
# (regenerate with `UPDATE_GOLDEN=1 tests/torch/export_torch_test.sh CLI` after an intended
# change), and every corpus program exports to text Python's parser accepts; a truncated export
# must be refused.
set -uo pipefail
cli="$1"
failures=0
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for sfz in tests/torch/golden/*.sfz; do
  golden="${sfz%.sfz}.py"
  if ! "$cli" export-torch "$sfz" -o "$tmp/full.py"; then
    echo "FAIL: export-torch $sfz"; failures=$((failures + 1)); continue
  fi
  sed -n '/^SF_INFERENCE_MODE = /,$p' "$tmp/full.py" >"$tmp/out.py"
  if [[ -n "${UPDATE_GOLDEN:-}" ]]; then cp "$tmp/out.py" "$golden"; fi
  if ! diff -u "$golden" "$tmp/out.py"; then
    echo "FAIL: $sfz exports differently from $golden"; failures=$((failures + 1))
  fi
done

n=0
for sfz in corpus/program/*.sfz tests/torch/golden/*.sfz; do
  out="$tmp/p$n.py"
  n=$((n + 1))
  if ! "$cli" export-torch "$sfz" -o "$out" 2>"$tmp/err"; then
    # Inputs whose data cannot be made are the program's error (run reports it too).
    grep -q "invalid_program" "$tmp/err" && continue
    echo "FAIL: export-torch $sfz: $(cat "$tmp/err")"; failures=$((failures + 1)); continue
  fi
  if ! python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])" "$out"; then
    echo "FAIL: the export of $sfz is not valid Python"; failures=$((failures + 1))
  fi
done
((n > 50)) || { echo "FAIL: only $n programs exported"; failures=$((failures + 1)); }

# The checker bites: an export cut inside its input table (an open brace) is not a program.
sed '/^    return {$/q' "$tmp/p0.py" >"$tmp/half.py"
if python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" "$tmp/half.py" 2>/dev/null; then
  echo "FAIL: a truncated export parsed"; failures=$((failures + 1))
fi

# The exported program carries the input modes and the checks.
"$cli" export-torch tests/torch/golden/marks_and_hops.sfz >"$tmp/g.py"
for want in "maybe_mark_dynamic(inputs[\"v_x\"], 0)" "mark_unbacked(inputs[\"v_m\"], 0)" \
  "v_k = v_k.clone().item()" "torch._check(sf_cond((v_r.size(0) >= 1)), lambda: \"sfz check failed: some rows\")" "torch.cond(" \
  "sf_while_loop(" "capture_scalar_outputs = True" "capture_dynamic_output_shape_ops = True"; do
  grep -qF "$want" "$tmp/g.py" || { echo "FAIL: the export lacks: $want"; failures=$((failures + 1)); }
done

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "export_torch_test: all passed ($n programs exported)"
