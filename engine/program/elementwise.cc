// The element-level op semantics (one definition for eager and the CPU kernels).
#include "engine/program/elementwise.h"

#include <cmath>

#include "engine/base/check.h"

namespace sf::program {

namespace {
int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }
}  // namespace

const char* binary_op_name(BinaryOp op) {
  switch (op) {
#define SF_BINARY_ELEMENT(e, name, python, cls) \
  case BinaryOp::e:                             \
    return name;
#include "engine/program/element_ops.def"
  }
  return "?";
}

const char* binary_op_python(BinaryOp op) {
  switch (op) {
#define SF_BINARY_ELEMENT(e, name, python, cls) \
  case BinaryOp::e:                             \
    return python;
#include "engine/program/element_ops.def"
  }
  return "?";
}

const char* unary_op_name(UnaryOp op) {
  switch (op) {
#define SF_UNARY_ELEMENT(e, name) \
  case UnaryOp::e:                \
    return name;
#include "engine/program/element_ops.def"
  }
  return "?";
}

namespace {
#define SF_ELEMENT_CLASS_arithmetic 0
#define SF_ELEMENT_CLASS_comparison 1
#define SF_ELEMENT_CLASS_logical 2
int element_class(BinaryOp op) {
  switch (op) {
#define SF_BINARY_ELEMENT(e, name, python, cls) \
  case BinaryOp::e:                             \
    return SF_ELEMENT_CLASS_##cls;
#include "engine/program/element_ops.def"
  }
  return -1;
}
}  // namespace

bool is_comparison(BinaryOp op) { return element_class(op) == SF_ELEMENT_CLASS_comparison; }
bool is_logical(BinaryOp op) { return element_class(op) == SF_ELEMENT_CLASS_logical; }

int64_t int_binary(BinaryOp op, int64_t x, int64_t y, bool* zero) {
  switch (op) {
    case BinaryOp::kAdd:
      return wrap(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
    case BinaryOp::kSub:
      return wrap(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
    case BinaryOp::kMul:
      return wrap(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
    case BinaryOp::kFloorDiv: {
      if (y == 0) return *zero = true, 0;
      if (y == -1) return wrap(0 - static_cast<uint64_t>(x));  // INT64_MIN // -1 wraps
      int64_t q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    }
    case BinaryOp::kRemainder: {
      if (y == 0) return *zero = true, 0;
      if (y == -1) return 0;
      int64_t r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
    case BinaryOp::kMaximum:
      return x < y ? y : x;
    case BinaryOp::kMinimum:
      return y < x ? y : x;
    case BinaryOp::kEq:
      return x == y;
    case BinaryOp::kNe:
      return x != y;
    case BinaryOp::kLt:
      return x < y;
    case BinaryOp::kLe:
      return x <= y;
    case BinaryOp::kGt:
      return x > y;
    case BinaryOp::kGe:
      return x >= y;
    case BinaryOp::kLogicalAnd:
      return x != 0 && y != 0;
    case BinaryOp::kLogicalOr:
      return x != 0 || y != 0;
    case BinaryOp::kDiv:
      SF_UNREACHABLE() << "div computes in f32";
  }
  SF_UNREACHABLE();
}

float float_binary(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      return x / y;
    case BinaryOp::kFloorDiv: {  // PyTorch's div_floor_floating: from the exact fmod, not x / y
      if (y == 0) return x / y;
      float mod = std::fmod(x, y);
      float div = (x - mod) / y;
      if (mod != 0 && (y < 0) != (mod < 0)) div -= 1;
      if (div == 0) return std::copysign(0.0f, x / y);
      float floordiv = std::floor(div);
      if (div - floordiv > 0.5f) floordiv += 1;
      return floordiv;
    }
    case BinaryOp::kRemainder: {  // PyTorch's: the exact fmod, moved to the divisor's sign
      float mod = std::fmod(x, y);
      if (mod != 0 && (y < 0) != (mod < 0)) mod += y;
      return mod;
    }
    case BinaryOp::kMaximum:
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;
      return x < y ? y : x;
    case BinaryOp::kMinimum:
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;
      return y < x ? y : x;
    case BinaryOp::kEq:
      return x == y;
    case BinaryOp::kNe:
      return x != y;
    case BinaryOp::kLt:
      return x < y;
    case BinaryOp::kLe:
      return x <= y;
    case BinaryOp::kGt:
      return x > y;
    case BinaryOp::kGe:
      return x >= y;
    case BinaryOp::kLogicalAnd:
      return x != 0.0f && y != 0.0f;
    case BinaryOp::kLogicalOr:
      return x != 0.0f || y != 0.0f;
  }
  SF_UNREACHABLE();
}

int64_t int_unary(UnaryOp op, int64_t x) {
  switch (op) {
    case UnaryOp::kLogicalNot:
      return x == 0;
    case UnaryOp::kNeg:
      return wrap(0 - static_cast<uint64_t>(x));
    case UnaryOp::kAbs:
      return x < 0 ? wrap(0 - static_cast<uint64_t>(x)) : x;
  }
  SF_UNREACHABLE();
}

float float_unary(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::kLogicalNot:
      return x == 0.0f;
    case UnaryOp::kNeg:
      return -x;
    case UnaryOp::kAbs:
      return std::fabs(x);
  }
  SF_UNREACHABLE();
}

int64_t float_to_int(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(v);
}

}  // namespace sf::program
