// Kernel body emission: each KExpr node becomes one `const` variable, arguments first (the CPU
// interpreter's column order), with element ops from the device prelude. Nodes that can fail
// (integer floordiv/remainder, loads) get an ordinal that ranks their errors.
#include "engine/backend/cuda/codegen_expr.h"

#include <bit>
#include <cstdio>

#include "engine/base/check.h"
#include "engine/base/errors.h"

namespace sf::backend::cuda::detail {

using lower::KExpr;
using program::BinaryOp;
using program::DType;
using program::UnaryOp;

const char* value_type(DType d) {
  switch (d) {
    case DType::kBool:
      return "bool";
    case DType::kInt64:
      return "sf_i64";
    case DType::kFloat32:
      return "float";
  }
  SF_UNREACHABLE();
}

const char* storage_type(DType d) {
  switch (d) {
    case DType::kBool:
      return "unsigned char";
    case DType::kInt64:
      return "sf_i64";
    case DType::kFloat32:
      return "float";
  }
  SF_UNREACHABLE();
}

std::string convert(const std::string& v, DType from, DType to) {
  if (from == to) return v;
  switch (to) {
    case DType::kFloat32:
      return from == DType::kBool ? "(" + v + " ? 1.0f : 0.0f)" : "(float)" + v;
    case DType::kBool:
      return from == DType::kFloat32 ? "(" + v + " != 0.0f)" : "(" + v + " != 0)";  // NaN: true
    case DType::kInt64:
      return from == DType::kFloat32 ? "sf_f2i(" + v + ")" : "(sf_i64)" + v;
  }
  SF_UNREACHABLE();
}

BodyEmitter::BodyEmitter(const lower::Kernel& k, KernelCode& code, std::string linear,
                         std::string indent)
    : k_(k), code_(code), linear_(std::move(linear)), indent_(std::move(indent)) {
  used_.assign(k.inputs.size(), false);
  preloaded_.assign(k.inputs.size(), false);
  plain_ordinal_.assign(k.inputs.size(), -1);
}

void BodyEmitter::preload(const std::vector<bool>& inputs, std::string index) {
  SF_CHECK(inputs.size() == preloaded_.size()) << "preload: input count";
  preloaded_ = inputs;
  preload_index_ = std::move(index);
}

void BodyEmitter::collect(const KExpr& e) {
  if (e.kind == KExpr::Kind::kLoad && e.gather) collect(*e.gather);
  for (const auto& a : e.args) collect(*a);
  if (e.kind == KExpr::Kind::kScalar) code_.scalars.push_back(&e);
  if (e.kind == KExpr::Kind::kLoad && e.gather) code_.gathers.push_back(&e);
}

std::string BodyEmitter::temp(DType d, const std::string& init) {
  std::string name = "t" + std::to_string(temps_++);
  line("const " + std::string(value_type(d)) + " " + name + " = " + init + ";");
  return name;
}

std::string BodyEmitter::fail(int ordinal, DeviceError code, int aux, const std::string& value) {
  return "sf_note(le, " + std::to_string(static_cast<int>(code)) + ", " + std::to_string(aux) +
         ", sf_key(" + std::to_string(ordinal) + ", " + linear_ + "), " + value + ");";
}

std::string BodyEmitter::emit(const KExpr& e) {
  switch (e.kind) {
    case KExpr::Kind::kConst: {
      char buf[64];
      if (e.dtype == DType::kFloat32) {
        uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(e.fvalue));
        std::snprintf(buf, sizeof buf, "__int_as_float(0x%08x)", bits);
      } else if (e.dtype == DType::kBool) {
        std::snprintf(buf, sizeof buf, "%s", e.ivalue ? "true" : "false");
      } else {
        std::snprintf(buf, sizeof buf, "(sf_i64)0x%016llxull",
                      static_cast<unsigned long long>(e.ivalue));
      }
      return temp(e.dtype, buf);
    }
    case KExpr::Kind::kScalar: {
      std::string slot = "a.v[" + std::to_string(code_.scalar_slot(next_scalar_++)) + "]";
      if (e.dtype == DType::kFloat32) return temp(e.dtype, "__int_as_float((int)" + slot + ")");
      if (e.dtype == DType::kBool) return temp(e.dtype, "(" + slot + " != 0)");
      return temp(e.dtype, slot);
    }
    case KExpr::Kind::kLoad:
      return emit_load(e);
    case KExpr::Kind::kIndex:
      SF_CHECK(e.dim >= 0 && e.dim < code_.rank) << "index of dim " << e.dim;
      return temp(DType::kInt64, "(sf_i64)j" + std::to_string(e.dim));
    case KExpr::Kind::kCast: {
      std::string a = emit(*e.args.at(0));
      return temp(e.dtype, convert(a, e.args[0]->dtype, e.dtype));
    }
    case KExpr::Kind::kUnary:
      return emit_unary(e);
    case KExpr::Kind::kBinary:
      return emit_binary(e);
    case KExpr::Kind::kWhere: {
      std::string c = emit(*e.args.at(0)), x = emit(*e.args.at(1)), y = emit(*e.args.at(2));
      return temp(e.dtype, convert(c, e.args[0]->dtype, DType::kBool) + " ? " + x + " : " + y);
    }
  }
  SF_UNREACHABLE();
}

std::string BodyEmitter::emit_load(const KExpr& e) {
  SF_CHECK(e.input >= 0 && e.input < static_cast<int>(k_.inputs.size()))
      << "load of input " << e.input;
  used_[e.input] = true;
  std::string gathered;
  if (e.gather) gathered = emit(*e.gather);
  // Named after the next temporary, so names stay unique when the gather itself loads.
  std::string in = std::to_string(e.input), n = std::to_string(temps_);
  int ord = ordinal_++;
  if (!e.gather && preloaded_[e.input]) {
    int& first = plain_ordinal_[e.input];
    if (first < 0) first = ord;
    std::string value = "pre" + in + preload_index_;
    return temp(e.dtype, e.dtype == DType::kBool ? "(" + value + " != 0)" : value);
  }
  std::string p = "p" + n, ok = "ok" + n, inb = "inb" + n;
  line("sf_i64 " + p + " = (sf_i64)off" + in + ";");
  line("bool " + ok + " = true;");
  if (e.gather) {
    int g = next_gather_++;
    std::string idx = "gi" + n, size = "gs" + n;
    line("const sf_i64 " + idx + " = " + convert(gathered, e.gather->dtype, DType::kInt64) + ";");
    line("const sf_i64 " + size + " = a.v[" + std::to_string(code_.gather_size_slot(g)) + "];");
    line("if (" + idx + " < 0 || " + idx + " >= " + size + ") {");
    line("  " + fail(ord, DeviceError::kIndex, g, idx));
    line("  " + ok + " = false;");
    line("} else {");
    line("  " + p + " += " + idx + " * a.v[" + std::to_string(code_.gather_stride_slot(g)) + "];");
    line("}");
  }
  line("const bool " + inb + " = " + p + " >= 0 && " + p + " < a.v[" +
       std::to_string(code_.numel_slot(e.input)) + "];");
  line("if (" + ok + " && !" + inb + ") " + fail(ord, DeviceError::kBadRead, e.input, p));
  // The load itself is unconditional (element 0 of a failed access: every device allocation has
  // one), so it can be scheduled early; its value only matters when no error was noted. An input
  // the kernel does not write goes through the read-only cache.
  std::string at = inb + " ? " + p + " : 0";
  std::string load = k_.inputs[e.input].buffer != k_.output.buffer
                         ? "__ldg(&a.in" + in + "[" + at + "])"
                         : "a.in" + in + "[" + at + "]";
  return temp(e.dtype, e.dtype == DType::kBool ? "(" + load + " != 0)" : load);
}

std::string BodyEmitter::emit_unary(const KExpr& e) {
  const KExpr& arg = *e.args.at(0);
  std::string x = emit(arg);
  if (arg.dtype == DType::kFloat32) {
    std::string r;
    switch (e.unary) {
      case UnaryOp::kLogicalNot:
        r = "(" + x + " == 0.0f ? 1.0f : 0.0f)";
        break;
      case UnaryOp::kNeg:
        r = "(-" + x + ")";
        break;
      case UnaryOp::kAbs:
        r = "fabsf(" + x + ")";
        break;
    }
    // As the CPU interpreter: an f32 result, or a non-f32 column holding (r != 0).
    if (e.dtype == DType::kFloat32) return temp(e.dtype, r);
    return temp(e.dtype, convert("(" + r + " != 0.0f)", DType::kBool, e.dtype));
  }
  std::string xi = convert(x, arg.dtype, DType::kInt64), r;
  switch (e.unary) {
    case UnaryOp::kLogicalNot:
      r = "(sf_i64)(" + xi + " == 0)";
      break;
    case UnaryOp::kNeg:
      r = "sf_ineg(" + xi + ")";
      break;
    case UnaryOp::kAbs:
      r = "sf_iabs(" + xi + ")";
      break;
  }
  SF_CHECK(e.dtype != DType::kFloat32) << k_.name << ": integer unary op with an f32 result";
  return temp(e.dtype, convert(r, DType::kInt64, e.dtype));
}

std::string BodyEmitter::emit_binary(const KExpr& e) {
  const KExpr& lhs = *e.args.at(0);
  std::string x = emit(lhs), y = emit(*e.args.at(1));
  bool is_bool_op = program::is_comparison(e.binary) || program::is_logical(e.binary);
  const char* cmp = nullptr;
  switch (e.binary) {
    case BinaryOp::kEq:
      cmp = "==";
      break;
    case BinaryOp::kNe:
      cmp = "!=";
      break;
    case BinaryOp::kLt:
      cmp = "<";
      break;
    case BinaryOp::kLe:
      cmp = "<=";
      break;
    case BinaryOp::kGt:
      cmp = ">";
      break;
    case BinaryOp::kGe:
      cmp = ">=";
      break;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kRemainder:
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum:
    case BinaryOp::kLogicalAnd:
    case BinaryOp::kLogicalOr:
      break;
  }
  if (lhs.dtype == DType::kFloat32) {
    std::string r;
    switch (e.binary) {
      case BinaryOp::kAdd:
        r = "__fadd_rn(" + x + ", " + y + ")";
        break;
      case BinaryOp::kSub:
        r = "__fsub_rn(" + x + ", " + y + ")";
        break;
      case BinaryOp::kMul:
        r = "__fmul_rn(" + x + ", " + y + ")";
        break;
      case BinaryOp::kDiv:
        r = "__fdiv_rn(" + x + ", " + y + ")";
        break;
      case BinaryOp::kFloorDiv:
        r = "sf_ffloordiv(" + x + ", " + y + ")";
        break;
      case BinaryOp::kRemainder:
        r = "sf_fremainder(" + x + ", " + y + ")";
        break;
      case BinaryOp::kMaximum:
        r = "sf_fmax(" + x + ", " + y + ")";
        break;
      case BinaryOp::kMinimum:
        r = "sf_fmin(" + x + ", " + y + ")";
        break;
      case BinaryOp::kLogicalAnd:
        r = "(" + x + " != 0.0f && " + y + " != 0.0f)";
        break;
      case BinaryOp::kLogicalOr:
        r = "(" + x + " != 0.0f || " + y + " != 0.0f)";
        break;
      case BinaryOp::kEq:
      case BinaryOp::kNe:
      case BinaryOp::kLt:
      case BinaryOp::kLe:
      case BinaryOp::kGt:
      case BinaryOp::kGe:
        r = "(" + x + " " + cmp + " " + y + ")";
        break;
    }
    if (is_bool_op) return temp(e.dtype, convert(r, DType::kBool, e.dtype));
    if (e.dtype == DType::kFloat32) return temp(e.dtype, r);
    return temp(e.dtype, convert("(" + r + " != 0.0f)", DType::kBool, e.dtype));
  }
  // Integer (and bool as 0/1) operands compute in i64.
  std::string xi = convert(x, lhs.dtype, DType::kInt64);
  std::string yi = convert(y, e.args[1]->dtype, DType::kInt64), r;
  switch (e.binary) {
    case BinaryOp::kAdd:
      r = "sf_add(" + xi + ", " + yi + ")";
      break;
    case BinaryOp::kSub:
      r = "sf_sub(" + xi + ", " + yi + ")";
      break;
    case BinaryOp::kMul:
      r = "sf_mul(" + xi + ", " + yi + ")";
      break;
    case BinaryOp::kFloorDiv:
    case BinaryOp::kRemainder: {
      int ord = ordinal_++;
      std::string q = "t" + std::to_string(temps_++);
      const char* fn = e.binary == BinaryOp::kFloorDiv ? "sf_floordiv" : "sf_remainder";
      line("sf_i64 " + q + " = 0;");
      line("if (" + yi + " == 0) {");
      line("  " + fail(ord, DeviceError::kZeroDivision, 0, "0"));
      line("} else {");
      line("  " + q + " = " + fn + "(" + xi + ", " + yi + ");");
      line("}");
      r = q;
      break;
    }
    case BinaryOp::kMaximum:
      r = "sf_imax(" + xi + ", " + yi + ")";
      break;
    case BinaryOp::kMinimum:
      r = "sf_imin(" + xi + ", " + yi + ")";
      break;
    case BinaryOp::kLogicalAnd:
      r = "(" + xi + " != 0 && " + yi + " != 0)";
      break;
    case BinaryOp::kLogicalOr:
      r = "(" + xi + " != 0 || " + yi + " != 0)";
      break;
    case BinaryOp::kDiv:
      SF_CHECK(false) << k_.name << ": integer div (div computes in f32)";
      break;
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      r = "(" + xi + " " + cmp + " " + yi + ")";
      break;
  }
  SF_CHECK(e.dtype != DType::kFloat32) << k_.name << ": integer binary op with an f32 result";
  if (is_bool_op) return temp(e.dtype, convert(r, DType::kBool, e.dtype));
  return temp(e.dtype, convert(r, DType::kInt64, e.dtype));
}

}  // namespace sf::backend::cuda::detail
