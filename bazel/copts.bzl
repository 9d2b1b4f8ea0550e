"""Compiler options shared by every target (a new node kind must be handled in every switch)."""

SF_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    "-Werror=switch",
    "-Werror=return-type",
    "-Wno-maybe-uninitialized",
] + select({
    # .bazelrc's `build --copt=-O1` (quick tests) comes after Bazel's own -O2 for `-c opt` and
    # would win; a target's copts come last, so optimized builds of our code get -O2 back here.
    "//bazel:opt": ["-O2"],
    "//conditions:default": [],
})
