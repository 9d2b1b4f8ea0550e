// Input data: golden first values pin the generator algorithms of corpus/README.md (they must
// never change silently), determinism, dtype conversions and literal validation.
#include "engine/program/input_data.h"

#include <gtest/gtest.h>

#include <bit>

#include "engine/base/errors.h"
#include "engine/program/parser.h"

namespace sf::program {
namespace {

HostValue value_of(const std::string& decl) {
  Program p = parse_program("# sfz 1\n" + decl + "\nreturn\n");
  return make_input_value(p.inputs.at(0));
}

std::vector<int64_t> ints_of(const std::string& decl) { return value_of(decl).tensor.ints; }

TEST(InputDataTest, RandnGoldenValues) {
  // Independently computed with the README's algorithm (splitmix64 + Box-Muller) in Python.
  HostTensor t = value_of("input x: f32[2, 2] = randn(seed=7)").tensor;
  ASSERT_EQ(t.floats.size(), 4u);
  uint32_t bits[] = {0x3faeb811, 0xbecb0531, 0x3b93685f, 0xbf14a30f};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(t.floats[i]), bits[i]) << i << ": " << t.floats[i];
  }
}

TEST(InputDataTest, RandintGoldenValues) {
  EXPECT_EQ(ints_of("input x: i64[8] = randint(-5, 5, seed=1)"),
            (std::vector<int64_t>{0, 4, -5, 0, -4, 3, 0, -2}));
  // The full int64 range: HIGH - LOW does not fit in int64, the modulus is taken mod 2^64.
  EXPECT_EQ(ints_of("input x: i64[3] = randint(-9223372036854775808, 9223372036854775807, "
                    "seed=-1)"),
            (std::vector<int64_t>{7266964230113668128, 7611075020235113161, -5174644438530358807}));
  EXPECT_EQ(ints_of("input x: bool[4] = randint(-5, 5, seed=1)"),
            (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(value_of("input x: f32[2] = randint(-5, 5, seed=1)").tensor.floats,
            (std::vector<float>{0.0f, 4.0f}));
}

TEST(InputDataTest, RandboolGoldenValues) {
  EXPECT_EQ(ints_of("input x: bool[12] = randbool(0.25, seed=9)"),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(ints_of("input x: i64[3] = randbool(1.0, seed=9)"), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ints_of("input x: i64[3] = randbool(0, seed=9)"), (std::vector<int64_t>{0, 0, 0}));
}

TEST(InputDataTest, SameSeedSameValuesOtherSeedOtherValues) {
  std::string a = value_of("input x: f32[64] = randn(seed=3)").tensor.str(64);
  EXPECT_EQ(value_of("input x: f32[64] = randn(seed=3)").tensor.str(64), a);
  EXPECT_NE(value_of("input x: f32[64] = randn(seed=4)").tensor.str(64), a);
}

TEST(InputDataTest, ArangeFullAndLiterals) {
  EXPECT_EQ(ints_of("input x: i64[2, 2] = arange()"), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(ints_of("input x: bool[3] = arange()"), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(value_of("input x: f32[2] = arange()").tensor.floats, (std::vector<float>{0, 1}));
  EXPECT_EQ(ints_of("input x: i64[2] = full(-3)"), (std::vector<int64_t>{-3, -3}));
  EXPECT_EQ(ints_of("input x: bool[2] = full(True)"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(value_of("input x: f32[1] = [0.1]").tensor.floats, std::vector<float>{0.1f});
  EXPECT_EQ(ints_of("input x: bool[3] = [True, 0, 1]"), (std::vector<int64_t>{1, 0, 1}));
  HostTensor empty = value_of("input x: f32[0, 5] = randn(seed=1)").tensor;
  EXPECT_EQ(empty.sizes, (std::vector<int64_t>{0, 5}));
  EXPECT_TRUE(empty.floats.empty());
}

TEST(InputDataTest, ScalarInputs) {
  HostValue n = value_of("input n: i64 dynamic = -4");
  EXPECT_EQ(n.kind, HostValue::Kind::kInt);
  EXPECT_EQ(n.i, -4);
  HostValue f = value_of("input f: f32 = 0.1");
  EXPECT_EQ(f.kind, HostValue::Kind::kFloat);
  EXPECT_EQ(f.f, 0.1);  // a double, not rounded to f32
  EXPECT_TRUE(value_of("input b: bool = True").b);
}

TEST(InputDataTest, InvalidSpecsAreInvalidProgramErrors) {
  auto decl = [](DType dtype, std::vector<int64_t> sizes, DataSpec data) {
    InputDecl d;
    d.name = "x";
    d.dtype = dtype;
    d.dims.assign(sizes.size(), DimMode::kStatic);
    d.sizes = std::move(sizes);
    d.data = std::move(data);
    return d;
  };
  auto literal = [](std::vector<double> values) {
    DataSpec s;
    s.literal = std::move(values);
    return s;
  };
  auto spec = [](DataSpec::Kind kind) {
    DataSpec s;
    s.kind = kind;
    return s;
  };
  DataSpec bad_randint = spec(DataSpec::Kind::kRandint);
  bad_randint.low = bad_randint.high = 3;
  DataSpec bad_p = spec(DataSpec::Kind::kRandbool);
  bad_p.p = 1.5;
  struct Case {
    InputDecl decl;
    const char* message;
  } cases[] = {
      {decl(DType::kInt64, {2}, literal({1.5, 2})), "is not an integer"},
      {decl(DType::kInt64, {1}, literal({1e17})), "is not an integer within 2^53"},
      {decl(DType::kBool, {1}, literal({2})), "is not a bool"},
      {decl(DType::kFloat32, {1}, literal({1e39})), "overflows f32"},
      {decl(DType::kFloat32, {3}, literal({1, 2})), "data has 2 values but the shape has 3"},
      {decl(DType::kInt64, {2}, spec(DataSpec::Kind::kRandn)), "randn() is only for f32"},
      {decl(DType::kInt64, {2}, bad_randint), "needs LOW < HIGH"},
      {decl(DType::kBool, {2}, bad_p), "probability must be in [0, 1]"},
      {decl(DType::kFloat32, {-1}, spec(DataSpec::Kind::kArange)), "negative size -1"},
      {decl(DType::kFloat32, {1 << 13, 1 << 12}, spec(DataSpec::Kind::kArange)),
       "more than 2^24 elements"},
  };
  for (const Case& c : cases) {
    try {
      make_input_value(c.decl);
      ADD_FAILURE() << "no error, expected: " << c.message;
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), UserErrorKind::kInvalidProgram) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("input 'x'"), std::string::npos) << e.what();
    }
  }
  InputDecl scalar = decl(DType::kInt64, {}, spec(DataSpec::Kind::kArange));
  scalar.is_tensor = false;
  EXPECT_THROW(make_input_value(scalar), UserError);
}

TEST(InputDataTest, ValuesForAWholeProgram) {
  Program p = parse_program("# sfz 1\ninput x: i64[2] = [4, 5]\ninput n: i64 = 7\nreturn x, n\n");
  auto values = make_input_values(p);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values.at("x").tensor.ints, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(values.at("n").i, 7);
}

}  // namespace
}  // namespace sf::program
