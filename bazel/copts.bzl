"""Compiler options shared by every target (a new node kind must be handled in every switch)."""

_WARNINGS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    "-Werror=switch",
    "-Werror=return-type",
    "-Wno-maybe-uninitialized",
    # Aggregates are initialized by naming the members that differ from their defaults.
    "-Wno-missing-field-initializers",
]

SF_COPTS = _WARNINGS + select({
    # .bazelrc's `build --copt=-O1` (quick tests) comes after Bazel's own -O2 for `-c opt` and
    # would win; a target's copts come last, so optimized builds of our code get -O2 back here.
    # Bazel's toolchain also keeps the frame pointer and adds stack canaries, which cost the
    # ShapeEnv benchmark 3.4% and 2.7% of its instructions (a register fewer in every function;
    # a canary in every function with a local std::string). gcc's defaults have neither; memory
    # errors are the sanitizer builds' job, which keep both (their stack traces walk frame
    # pointers). Profile an opt build with `perf record --call-graph dwarf`.
    "//bazel:opt_sanitized": ["-O2"],
    "//bazel:opt": ["-O2", "-fomit-frame-pointer", "-fno-stack-protector"],
    "//conditions:default": [],
})

# Test sources stay at .bazelrc's -O1 in every mode: `tools/test` builds the suite with -c opt,
# so the libraries it shares with the CLI are optimized once, and the tests themselves compile
# faster at -O1 (they spend their time in the libraries).
SF_TEST_COPTS = _WARNINGS
