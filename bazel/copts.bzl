"""Compiler options shared by every target (a new node kind must be handled in every switch)."""

SF_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    "-Werror=switch",
    "-Werror=return-type",
    "-Wno-maybe-uninitialized",
]
