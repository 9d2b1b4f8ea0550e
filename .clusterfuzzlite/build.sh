#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script: compiles the engine and the four fuzz targets with the
# engine's variables ($CC, $CXX, $CFLAGS, $CXXFLAGS, $LIB_FUZZING_ENGINE) into $OUT, with their
# seed corpora as <target>_seed_corpus.zip. No Bazel: the fuzzing images do not carry ours.
#
# Locally (what CI's build-only step and README's "Scale-out" run):
#   CC=clang CXX=clang++ CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only \
#     -fsanitize=address,undefined -fsanitize=fuzzer-no-link" CXXFLAGS="$CFLAGS" \
#     LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/oss-out .clusterfuzzlite/build.sh

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
: "${OUT:?set OUT to the output directory}"
: "${CXX:=clang++}"
: "${CXXFLAGS:=}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
WORK_DIR="${WORK:-/tmp}/shapefuzz-fuzz-build"
JOBS="$(nproc)"
mkdir -p "$OUT" "$WORK_DIR"

# What the targets link: the engine without the CUDA backend, the oracles, the generators. Found
# by directory, so a new source file needs no edit here. SF_LIBFUZZER empties the seeded driver.
FLAGS="$CXXFLAGS -std=c++20 -I$ROOT -DSF_LIBFUZZER=1 -Wno-unknown-warning-option"
# The pipeline target's oracles (a build setting: the Dockerfile sets it to "all", so batch and
# code-change fuzzing reach the Z3 oracles; SHAPEFUZZ_ORACLES at run time still overrides it).
PIPELINE_FLAGS=""
[ -n "${SHAPEFUZZ_PIPELINE_ORACLES:-}" ] &&
  PIPELINE_FLAGS="-DSF_PIPELINE_ORACLES=\"$SHAPEFUZZ_PIPELINE_ORACLES\""
mapfile -t SOURCES < <(
  { find engine oracles fuzz/gen -name '*.cc' -not -path 'engine/backend/cuda/*'
    echo fuzz/fuzz_source.cc
    echo fuzz/targets/finding.cc; } | sort)

compile() {  # compile SRC -> $WORK_DIR/obj/SRC.o when SRC is newer than the object
  local obj="$WORK_DIR/obj/$1.o"
  mkdir -p "$(dirname "$obj")"
  if [ ! -f "$obj" ] || [ "$1" -nt "$obj" ]; then
    $CXX $FLAGS -c "$1" -o "$obj"
  fi
}
export -f compile
export CXX FLAGS WORK_DIR
# Objects are reused across runs only when the flags are the same and no header changed since
# the last build (a header change rebuilds everything: no per-object dependency tracking here).
if [ ! -f "$WORK_DIR/flags" ] || [ "$(cat "$WORK_DIR/flags")" != "$CXX $FLAGS" ] ||
  [ -n "$(find engine oracles fuzz -name '*.h' -newer "$WORK_DIR/flags" -print -quit)" ]; then
  rm -rf "$WORK_DIR/obj"
  echo "$CXX $FLAGS" > "$WORK_DIR/flags"
fi
printf '%s\n' "${SOURCES[@]}" | xargs -P "$JOBS" -I{} bash -c 'compile {}'

rm -f "$WORK_DIR/libshapefuzz.a"
ar rcs "$WORK_DIR/libshapefuzz.a" $(printf "$WORK_DIR/obj/%s.o " "${SOURCES[@]}")

for target in pipeline shape_env simplify parser; do
  extra=""
  [ "$target" = pipeline ] && extra="$PIPELINE_FLAGS"
  $CXX $FLAGS $extra "fuzz/targets/${target}_fuzzer.cc" "$WORK_DIR/libshapefuzz.a" \
    $LIB_FUZZING_ENGINE -lz3 -lpthread -o "$OUT/${target}_fuzzer"
  seeds=("corpus/$target")
  # The parser's seeds are every program the project keeps, too.
  [ "$target" = parser ] && seeds+=(corpus/program corpus/regressions corpus/zoo)
  rm -f "$OUT/${target}_fuzzer_seed_corpus.zip"
  find "${seeds[@]}" -type f -print0 | xargs -0 zip -q -j "$OUT/${target}_fuzzer_seed_corpus.zip"
  cp ".clusterfuzzlite/${target}_fuzzer.options" "$OUT/" 2>/dev/null || true
done
# The parser's dictionary: the format's keywords and every op name, read from ops.def.
{
  for token in '# sfz 1' '# expect: ok' '# expect: error ' '# faults: ' 'input ' 'return ' \
    'check(' 'check_is_size(' 'if ' 'else:' 'dynamic(' 'unbacked(' 'randn(seed=' 'arange()' \
    'f32' 'i64' 'bool' 'True' 'False' ' = ' '[' ']' '//' '**'; do
    printf '"%s"\n' "$token"
  done
  sed -n 's/^SF_OP(k[A-Za-z0-9]*, "\([a-z_0-9]*\)".*/"\1("/p' engine/program/ops.def
} > "$OUT/parser_fuzzer.dict"
echo "built into $OUT: $(cd "$OUT" && ls -- *_fuzzer | tr '\n' ' ')"
