// Schema table built once from ops.def; argument binding.
#include "engine/program/schema.h"

#include <map>

#include "engine/base/check.h"
#include "engine/base/errors.h"

namespace sf::program {

namespace {

ExprPtr parse_default(const std::string& text) {
  if (text == "None") return Expr::none();
  if (text == "True") return Expr::boolean(true);
  if (text == "False") return Expr::boolean(false);
  if (auto d = dtype_from_name(text)) return Expr::dtype_lit(*d);
  return Expr::integer(std::stoll(text));
}

ParamKind kind_from(const std::string& k) {
  static const std::map<std::string, ParamKind> kinds = {
      {"tensor", ParamKind::kTensor}, {"scalar", ParamKind::kScalar},
      {"any", ParamKind::kAny},       {"int", ParamKind::kInt},
      {"ints", ParamKind::kInts},     {"dim", ParamKind::kDim},
      {"dims", ParamKind::kDims},     {"tensors", ParamKind::kTensors},
      {"dtype", ParamKind::kDType},   {"flag", ParamKind::kFlag},
      {"str", ParamKind::kStr}};
  auto it = kinds.find(k);
  SF_CHECK(it != kinds.end()) << "unknown parameter kind '" << k << "' in ops.def";
  return it->second;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<Param> parse_signature(const std::string& sig) {
  std::vector<Param> out;
  size_t pos = 0;
  while (pos < sig.size()) {
    size_t comma = sig.find(',', pos);
    std::string part =
        trim(sig.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    pos = comma == std::string::npos ? sig.size() : comma + 1;
    if (part.empty()) continue;
    Param p;
    size_t colon = part.find(':');
    SF_CHECK(colon != std::string::npos) << "bad parameter '" << part << "'";
    p.name = part.substr(0, colon);
    std::string rest = part.substr(colon + 1);
    size_t eq = rest.find('=');
    if (eq != std::string::npos) {
      p.optional = true;
      p.default_value = parse_default(rest.substr(eq + 1));
      rest = rest.substr(0, eq);
    }
    if (!rest.empty() && rest.back() == '?') {
      p.optional = true;
      rest.pop_back();
    }
    p.kind = kind_from(rest);
    out.push_back(std::move(p));
  }
  return out;
}

// "alias,symbolic_args" -> bits; an unknown tag in ops.def is an internal error.
uint32_t parse_features(std::string_view text) {
  uint32_t bits = 0;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view tag = text.substr(0, comma);
    std::optional<OpFeature> f = op_feature_by_name(tag);
    SF_CHECK(f) << "unknown op feature '" << tag << "' in ops.def";
    bits |= 1u << static_cast<int>(*f);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return bits;
}

struct Table {
  std::vector<OpSchema> schemas;
  std::map<std::string, OpKind, std::less<>> by_name;
  // (precedence level, operator text) -> op: the parser asks for every punctuation token.
  std::map<std::pair<Precedence, std::string_view>, OpKind> by_operator;
  std::vector<OpKind> ops;
  Table() {
#define SF_ELEMENT_binary(op) \
  ElementOp { ElementOp::Kind::kBinary, BinaryOp::op, UnaryOp::kNeg }
#define SF_ELEMENT_unary(op) \
  ElementOp { ElementOp::Kind::kUnary, BinaryOp::kAdd, UnaryOp::op }
#define SF_ELEMENT_none(op) \
  ElementOp {}
#define SF_SYNTAX_call \
  OpSyntax {}
#define SF_SYNTAX_infix(level, text) \
  OpSyntax { Precedence::level, text }
#define SF_TORCH_torch_fn(n) \
  TorchSpelling { TorchSpelling::Kind::kFunction, n }
#define SF_TORCH_torch_method(n) \
  TorchSpelling { TorchSpelling::Kind::kMethod, n }
#define SF_TORCH_torch_operator \
  TorchSpelling { TorchSpelling::Kind::kOperator, "" }
#define SF_TORCH_torch_custom \
  TorchSpelling {}
#define SF_OP(Enum, name, family, signature, element_kind, element_op, rule, unbacked, weight, \
              features, syntax, torch)                                                         \
  schemas.push_back(OpSchema{OpKind::Enum, name, OpFamily::family, parse_signature(signature), \
                             SF_ELEMENT_##element_kind(element_op), DTypeRule::rule, unbacked, \
                             weight, parse_features(features), SF_SYNTAX_##syntax,             \
                             SF_TORCH_##torch});                                               \
  by_name.emplace(name, OpKind::Enum);                                                         \
  ops.push_back(OpKind::Enum);
#include "engine/program/ops.def"
    for (const OpSchema& s : schemas) {
      if (s.syntax.is_operator())
        by_operator.emplace(std::pair{s.syntax.precedence, s.syntax.text}, s.op);
    }
#undef SF_ELEMENT_binary
#undef SF_ELEMENT_unary
#undef SF_ELEMENT_none
#undef SF_SYNTAX_call
#undef SF_SYNTAX_infix
#undef SF_TORCH_torch_fn
#undef SF_TORCH_torch_method
#undef SF_TORCH_torch_operator
#undef SF_TORCH_torch_custom
  }
};

const Table& table() {
  static const Table* t = new Table();
  return *t;
}

[[noreturn]] void bind_error(const Expr& call, const std::string& what) {
  throw_user_error(UserErrorKind::kInvalidProgram, "line " + std::to_string(call.loc.line) + ":" +
                                                       std::to_string(call.loc.col) + ": " +
                                                       op_name(call.op) + "(...): " + what);
}

}  // namespace

const OpSchema& schema(OpKind op) { return table().schemas.at(static_cast<size_t>(op)); }

std::optional<OpKind> op_by_name(std::string_view name) {
  auto it = table().by_name.find(name);
  if (it == table().by_name.end()) return std::nullopt;
  return it->second;
}

const char* op_name(OpKind op) { return schema(op).name.c_str(); }

std::optional<OpKind> op_by_operator(Precedence level, std::string_view text) {
  auto it = table().by_operator.find({level, text});
  if (it == table().by_operator.end()) return std::nullopt;
  return it->second;
}
const std::vector<OpKind>& all_ops() { return table().ops; }

const char* op_feature_name(OpFeature f) {
  switch (f) {
#define SF_OP_FEATURE_NAME(e, name) \
  case OpFeature::e:                \
    return name;
    SF_OP_FEATURES(SF_OP_FEATURE_NAME)
#undef SF_OP_FEATURE_NAME
  }
  return "?";
}

std::optional<OpFeature> op_feature_by_name(std::string_view name) {
#define SF_OP_FEATURE_MATCH(e, n) \
  if (name == n) return OpFeature::e;
  SF_OP_FEATURES(SF_OP_FEATURE_MATCH)
#undef SF_OP_FEATURE_MATCH
  return std::nullopt;
}

const std::vector<OpFeature>& all_op_features() {
  static const std::vector<OpFeature> all = {
#define SF_OP_FEATURE_VALUE(e, name) OpFeature::e,
      SF_OP_FEATURES(SF_OP_FEATURE_VALUE)
#undef SF_OP_FEATURE_VALUE
  };
  return all;
}

BinaryOp binary_element(OpKind op) {
  const ElementOp& e = schema(op).element;
  SF_CHECK(e.kind == ElementOp::Kind::kBinary) << op_name(op) << " has no binary element op";
  return e.binary;
}

UnaryOp unary_element(OpKind op) {
  const ElementOp& e = schema(op).element;
  SF_CHECK(e.kind == ElementOp::Kind::kUnary) << op_name(op) << " has no unary element op";
  return e.unary;
}

std::vector<ExprPtr> bind_call(const Expr& call) {
  SF_CHECK(call.kind == Expr::Kind::kCall);
  const OpSchema& s = schema(call.op);
  if (call.args.size() > s.params.size()) {
    bind_error(call, "takes at most " + std::to_string(s.params.size()) + " arguments, got " +
                         std::to_string(call.args.size()));
  }
  std::vector<ExprPtr> bound(s.params.size());
  for (size_t i = 0; i < call.args.size(); ++i) bound[i] = call.args[i];
  for (const auto& [key, value] : call.kwargs) {
    size_t idx = s.params.size();
    for (size_t i = 0; i < s.params.size(); ++i) {
      if (s.params[i].name == key) idx = i;
    }
    if (idx == s.params.size()) bind_error(call, "unknown keyword argument '" + key + "'");
    if (bound[idx]) bind_error(call, "argument '" + key + "' given twice");
    bound[idx] = value;
  }
  for (size_t i = 0; i < s.params.size(); ++i) {
    if (bound[i] && bound[i]->kind == Expr::Kind::kNone) bound[i] = nullptr;
    if (bound[i]) continue;
    if (!s.params[i].optional) bind_error(call, "missing argument '" + s.params[i].name + "'");
    if (s.params[i].default_value && s.params[i].default_value->kind != Expr::Kind::kNone) {
      bound[i] = s.params[i].default_value;
    }
  }
  return bound;
}

std::optional<std::string> argument_form_error(const Param& p, ArgForm form) {
  auto error = [&](const char* takes, const char* got) {
    return "argument '" + p.name + "' must be " + takes + ", got " + got;
  };
  switch (p.kind) {
    case ParamKind::kDim:
      if (form == ArgForm::kList) return error("an int (one dim)", "a list");
      break;
    case ParamKind::kInt:
      if (form == ArgForm::kList) return error("an int", "a list");
      break;
    case ParamKind::kTensor:
      if (form == ArgForm::kList) return error("a tensor", "a list");
      break;
    case ParamKind::kScalar:
      if (form == ArgForm::kList) return error("a scalar (int, float or bool)", "a list");
      break;
    case ParamKind::kAny:
      if (form == ArgForm::kList) return error("a tensor or a scalar", "a list");
      break;
    case ParamKind::kInts:
      if (form == ArgForm::kOne) return error("a list of ints", "one value");
      break;
    case ParamKind::kTensors:
      if (form == ArgForm::kOne) return error("a list of tensors", "one value");
      break;
    case ParamKind::kDims:
    case ParamKind::kDType:
    case ParamKind::kFlag:
    case ParamKind::kStr:
      break;
  }
  return std::nullopt;
}

}  // namespace sf::program
