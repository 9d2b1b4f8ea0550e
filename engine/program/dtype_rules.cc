// Dtype promotion and the result/compute dtype of each rule.
#include "engine/program/dtype_rules.h"

#include "engine/base/check.h"
#include "engine/program/schema.h"

namespace sf::program {

namespace {
int category(DType d) {
  switch (d) {
    case DType::kBool:
      return 0;
    case DType::kInt64:
      return 1;
    case DType::kFloat32:
      return 2;
  }
  SF_UNREACHABLE();
}
}  // namespace

DType promote(DType a, DType b) { return category(a) >= category(b) ? a : b; }

DType result_type(const std::vector<DType>& tensor_dtypes,
                  const std::vector<DType>& scalar_dtypes) {
  SF_CHECK(!tensor_dtypes.empty() || !scalar_dtypes.empty()) << "result_type of no operands";
  auto fold = [](const std::vector<DType>& ds) {
    DType out = ds.front();
    for (DType d : ds) out = promote(out, d);
    return out;
  };
  if (tensor_dtypes.empty()) return fold(scalar_dtypes);
  DType t = fold(tensor_dtypes);
  if (scalar_dtypes.empty()) return t;
  DType s = fold(scalar_dtypes);
  // A weak scalar raises the category only; with these three dtypes that is the wider dtype.
  return category(s) > category(t) ? s : t;
}

DType compute_dtype(DTypeRule rule, DType promoted) {
  switch (rule) {
    case DTypeRule::kArithmetic:
      return promoted == DType::kBool ? DType::kInt64 : promoted;  // bool is i64 in arithmetic
    case DTypeRule::kTrueDivision:
      return DType::kFloat32;
    case DTypeRule::kPromote:
    case DTypeRule::kBool:
    case DTypeRule::kInt64:
      return promoted;
    case DTypeRule::kFromArgument:
    case DTypeRule::kScalar:
      break;
  }
  SF_UNREACHABLE() << "no compute dtype for this rule";
}

DType result_dtype(DTypeRule rule, DType promoted) {
  switch (rule) {
    case DTypeRule::kArithmetic:
    case DTypeRule::kTrueDivision:
    case DTypeRule::kPromote:
      return compute_dtype(rule, promoted);
    case DTypeRule::kBool:
      return DType::kBool;
    case DTypeRule::kInt64:
      return DType::kInt64;
    case DTypeRule::kFromArgument:
    case DTypeRule::kScalar:
      break;
  }
  SF_UNREACHABLE() << "no result dtype for this rule";
}

namespace {
bool keeps_bool(OpKind op) { return op == OpKind::kAdd || op == OpKind::kMul; }
}  // namespace

DType pointwise_result_dtype(OpKind op, DType promoted) {
  if (promoted == DType::kBool && keeps_bool(op)) return DType::kBool;
  return result_dtype(schema(op).dtype_rule, promoted);
}

std::string bool_arithmetic_refusal(OpKind op, DType promoted, bool bool_operand) {
  if (op == OpKind::kSub && bool_operand && promoted != DType::kBool) {
    return "sub with a bool operand is not supported (as in PyTorch): use logical_not / "
           "logical_xor, or to(x, i64) first";
  }
  if (promoted != DType::kBool || keeps_bool(op)) return "";
  const OpSchema& s = schema(op);
  if (s.family != OpFamily::kPointwise || s.dtype_rule != DTypeRule::kArithmetic) return "";
  return std::string(op_name(op)) +
         " of bool tensors is not supported (as in PyTorch): use logical_not / logical_xor, or "
         "to(x, i64) first";
}

}  // namespace sf::program
