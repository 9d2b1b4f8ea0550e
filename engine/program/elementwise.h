// Element-level semantics shared by the eager interpreter, the CPU backend's kernels and (as
// generated source) the CUDA backend: integer ops wrap, floor division and modulo follow Python,
// f32 ops compute in float, and float -> int conversion follows x86 (INT64_MIN when out of range).
#pragma once

#include <cstdint>

namespace sf::program {

enum class BinaryOp {
#define SF_BINARY_ELEMENT(e, name, python, cls) e,
#include "engine/program/element_ops.def"
};
enum class UnaryOp {
#define SF_UNARY_ELEMENT(e, name) e,
#include "engine/program/element_ops.def"
};

const char* binary_op_name(BinaryOp op);
const char* unary_op_name(UnaryOp op);
const char* binary_op_python(BinaryOp op);  // "+", "//", "max", "and": for scalar messages
bool is_comparison(BinaryOp op);            // eq ne lt le gt ge
bool is_logical(BinaryOp op);               // logical_and logical_or

// i64 (and bool as 0/1) element op; sets *zero instead of dividing by zero. kDiv is not integer.
int64_t int_binary(BinaryOp op, int64_t x, int64_t y, bool* zero);
// f32 element op, evaluated in float; comparisons and logical ops give 0/1. NaN is truthy.
float float_binary(BinaryOp op, float x, float y);
int64_t int_unary(UnaryOp op, int64_t x);
float float_unary(UnaryOp op, float x);
// f32/f64 -> i64 as PyTorch CPU on x86: NaN, +-inf and out-of-range values give INT64_MIN.
int64_t float_to_int(double v);

}  // namespace sf::program
