"""sf_fuzz_target: one libFuzzer target, its seeded-loop binary and its corpus replay test.

`<name>_fuzzer` links libFuzzer's main under `--config=libfuzzer` (clang, ASan+UBSan) and the
seeded driver otherwise (gcc); both take the same flags. `<name>_fuzzer_test` replays the seed
corpora and then runs a fixed number of seeded inputs, in `bazel test`. The binary and the test
are visible to the packages that build or run them all (`//:fuzzers`, the batch tests)."""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("//bazel:copts.bzl", "SF_COPTS")

def sf_fuzz_target(name, srcs, deps, corpus, corpus_dirs, test_runs = 200):
    cc_library(
        name = name + "_target",
        srcs = srcs,
        copts = SF_COPTS,
        deps = deps + ["//fuzz/targets:finding"],
        alwayslink = 1,
    )
    cc_binary(
        name = name + "_fuzzer",
        copts = SF_COPTS,
        visibility = ["//:__pkg__", "//tests/fuzz:__pkg__"],
        deps = [name + "_target", "//fuzz/targets:seeded_driver"],
    )
    cc_test(
        name = name + "_fuzzer_test",
        size = "medium",
        copts = SF_COPTS,
        deps = [name + "_target", "//fuzz/targets:seeded_driver"],
        data = corpus,
        args = ["-runs=%d" % test_runs, "-seed=1"] + corpus_dirs,
        visibility = ["//:__pkg__"],
    )
