// Input declarations: `input NAME: DTYPE[SIZES] MODES = DATA` and `input NAME: DTYPE [MODE] =
// VALUE`. Sizes, ranks and element counts are capped here so later stages never allocate wildly.
#include <cfloat>
#include <cmath>

#include "engine/program/number_text.h"
#include "engine/program/parser.h"
#include "engine/program/parser_internal.h"

namespace sf::program::internal {

namespace {
constexpr int64_t kMaxExactInt = int64_t{1} << 53;  // data values are stored as exact doubles
}  // namespace

int64_t Parser::int_literal(std::string_view context) {
  SourceLoc loc = peek().loc;
  bool negative = accept_punct("-");
  if (peek().kind != TokKind::kInt) fail_expected("an integer " + std::string(context));
  auto v = int_from_digits(take().text, negative);
  if (!v) fail(loc, "integer literal out of the int64 range");
  return *v;
}

int64_t Parser::seed_argument() {
  expect_keyword("seed", "(the generator's seed=S argument)");
  expect_punct("=", "after 'seed'");
  return int_literal("as the seed");
}

double Parser::data_value(DType dtype, std::string_view context) {
  SourceLoc loc = peek().loc;
  bool negative = accept_punct("-");
  const Token& t = peek();
  switch (dtype) {
    case DType::kBool:
      if (!negative && (t.text == "True" || t.text == "1") && t.kind != TokKind::kString) {
        take();
        return 1;
      }
      if (!negative && (t.text == "False" || t.text == "0") && t.kind != TokKind::kString) {
        take();
        return 0;
      }
      fail(loc, "expected a bool value (True, False, 1 or 0) " + std::string(context) + ", found " +
                    (negative ? std::string("'-'") : describe(t)));
    case DType::kInt64: {
      if (t.kind != TokKind::kInt) fail_expected("an integer " + std::string(context));
      auto v = int_from_digits(take().text, negative);
      if (!v || *v > kMaxExactInt || *v < -kMaxExactInt) {
        fail(loc, "i64 data value beyond 2^53 in magnitude (data values are exact doubles)");
      }
      return static_cast<double>(*v);
    }
    case DType::kFloat32: {
      if (t.kind != TokKind::kInt && t.kind != TokKind::kFloat) {
        fail_expected("a number " + std::string(context));
      }
      auto v = double_from_text(take().text);
      if (!v || std::abs(*v) > FLT_MAX) fail(loc, "value out of the f32 range");
      return negative ? -*v : *v;
    }
  }
  fail(loc, "bad dtype");
}

int64_t Parser::input_type(InputDecl* decl) {
  const Token& t = peek();
  auto dtype = t.kind == TokKind::kName ? dtype_from_name(t.text) : std::nullopt;
  if (!dtype) fail_expected("a dtype (f32, i64 or bool)");
  take();
  decl->dtype = *dtype;
  if (!at_punct("[")) {
    decl->is_tensor = false;
    for (auto [word, mode] :
         {std::pair{"static", DimMode::kStatic}, std::pair{"dynamic", DimMode::kDynamic},
          std::pair{"unbacked", DimMode::kUnbacked}}) {
      if (!at_name(word)) continue;
      if (decl->dtype != DType::kInt64) {
        fail(peek().loc, "only i64 scalar inputs take a mode (static, dynamic or unbacked)");
      }
      take();
      decl->scalar_mode = mode;
      break;
    }
    return 1;
  }
  take();
  // The product of the nonzero sizes is capped too, so size arithmetic later cannot overflow.
  int64_t product = 1;
  bool empty = false;
  if (!at_punct("]")) {
    do {
      if (static_cast<int>(decl->sizes.size()) >= kMaxRank) {
        fail(peek().loc, "rank above the limit of " + std::to_string(kMaxRank));
      }
      SourceLoc loc = peek().loc;
      if (peek().kind != TokKind::kInt) fail_expected("a size (a non-negative integer)");
      auto s = int_from_digits(take().text, false);
      if (!s || *s > kMaxNumel || (*s > 0 && product > kMaxNumel / *s)) {
        fail(loc, "tensor has more than 2^24 elements (the limit for an input)");
      }
      if (*s == 0) empty = true;
      if (*s > 0) product *= *s;
      decl->sizes.push_back(*s);
    } while (accept_punct(","));
  }
  expect_punct("]", "after the sizes");
  decl->dims.assign(decl->sizes.size(), DimMode::kStatic);
  while (at_name("dynamic") || at_name("unbacked")) {
    Token word = take();
    expect_punct("(", "after '" + word.text + "'");
    SourceLoc loc = peek().loc;
    if (peek().kind != TokKind::kInt) fail_expected("a dim index");
    auto d = int_from_digits(take().text, false);
    if (!d || *d >= static_cast<int64_t>(decl->sizes.size())) {
      fail(loc, "dim out of range for a tensor of rank " + std::to_string(decl->sizes.size()));
    }
    if (decl->dims[*d] != DimMode::kStatic)
      fail(loc, "dim " + std::to_string(*d) + " marked twice");
    decl->dims[*d] = word.text == "dynamic" ? DimMode::kDynamic : DimMode::kUnbacked;
    expect_punct(")", "after the dim index");
  }
  int64_t numel = empty ? 0 : product;
  total_numel_ += numel;
  if (total_numel_ > kMaxNumel) fail(decl->loc, "inputs have more than 2^24 elements in total");
  return numel;
}

DataSpec Parser::tensor_data(const std::string& input, DType dtype, int64_t numel) {
  DataSpec spec;
  if (at_punct("[")) {
    take();
    spec.kind = DataSpec::Kind::kLiteral;
    if (!at_punct("]")) {
      do {
        if (static_cast<int64_t>(spec.literal.size()) == numel) {
          fail(peek().loc, "input '" + input + "': more data values than the " +
                               std::to_string(numel) + " elements of its shape");
        }
        spec.literal.push_back(data_value(dtype, "in the data list"));
      } while (accept_punct(","));
    }
    Token close = expect_punct("]", "to close the data list");
    if (static_cast<int64_t>(spec.literal.size()) != numel) {
      fail(close.loc, "input '" + input + "': data has " + std::to_string(spec.literal.size()) +
                          " values but its shape has " + std::to_string(numel) +
                          " elements (give one value per element, row-major)");
    }
    return spec;
  }
  const Token& t = peek();
  SourceLoc loc = t.loc;
  std::string word = t.kind == TokKind::kName ? t.text : "";
  if (word == "randn" || word == "randint" || word == "randbool" || word == "arange" ||
      word == "full") {
    take();
    expect_punct("(", "after '" + word + "'");
  } else {
    fail_expected(
        "input data: [values], randn(seed=S), randint(LOW, HIGH, seed=S), randbool(P, seed=S), "
        "arange() or full(V)");
  }
  if (word == "randn") {
    spec.kind = DataSpec::Kind::kRandn;
    spec.seed = seed_argument();
  } else if (word == "randint") {
    spec.kind = DataSpec::Kind::kRandint;
    spec.low = int_literal("as randint's LOW");
    expect_punct(",", "after randint's LOW");
    spec.high = int_literal("as randint's HIGH");
    if (spec.high <= spec.low) fail(loc, "randint(LOW, HIGH, ...) needs LOW < HIGH");
    expect_punct(",", "after randint's HIGH");
    spec.seed = seed_argument();
  } else if (word == "randbool") {
    spec.kind = DataSpec::Kind::kRandbool;
    SourceLoc ploc = peek().loc;
    spec.p = data_value(DType::kFloat32, "as randbool's probability");
    if (!(spec.p >= 0 && spec.p <= 1)) fail(ploc, "randbool's probability must be in [0, 1]");
    expect_punct(",", "after randbool's probability");
    spec.seed = seed_argument();
  } else if (word == "arange") {
    spec.kind = DataSpec::Kind::kArange;
  } else {
    spec.kind = DataSpec::Kind::kFull;
    spec.value = data_value(dtype, "as full's value");
  }
  expect_punct(")", "to close '" + word + "(...)'");
  return spec;
}

InputDecl Parser::input_decl() {
  Token kw = take();
  count_statement(kw.loc);
  InputDecl decl;
  decl.loc = kw.loc;
  decl.name = expect_name("as the input name").text;
  expect_punct(":", "after the input name");
  int64_t numel = input_type(&decl);
  expect_punct("=", "before the input's data");
  if (decl.is_tensor) {
    decl.data = tensor_data(decl.name, decl.dtype, numel);
  } else {
    decl.data.kind = DataSpec::Kind::kLiteral;
    decl.data.literal.push_back(data_value(decl.dtype, "as the scalar input's value"));
  }
  expect_end("after the input declaration");
  return decl;
}

}  // namespace sf::program::internal
