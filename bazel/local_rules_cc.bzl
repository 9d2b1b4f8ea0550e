"""Makes Debian's rules_cc usable with Bazel 4.2.3 without network access.

Debian ships rules_cc 0.0.4, whose two flag rules load `use_cpp_toolchain` from @bazel_tools;
Bazel 4.2.3 lacks that symbol, so we copy the tree and replace the call by its value.
"""

def _debian_rules_cc_impl(ctx):
    src = ctx.path(ctx.attr.path)
    result = ctx.execute(["cp", "-r", str(src) + "/.", "."])
    if result.return_code != 0:
        fail("copying %s failed: %s" % (src, result.stderr))
    for rel in [
        "cc/private/rules_impl/cc_flags_supplier.bzl",
        "cc/private/rules_impl/compiler_flag.bzl",
    ]:
        text = ctx.read(rel)
        text = text.replace(', "use_cpp_toolchain")', ")")
        text = text.replace("use_cpp_toolchain()", '["@bazel_tools//tools/cpp:toolchain_type"]')
        ctx.file(rel, text, executable = False)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    attrs = {"path": attr.string(mandatory = True)},
    local = True,
)
