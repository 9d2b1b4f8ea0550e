// Data-dependent ops on small tensors: nonzero, boolean index, masked_select, unique (NaN, counts),
// item on each dtype, tolist, repeat_interleave (both forms).
#include <cmath>
#include <limits>

#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"x", F32({3, 2}, {1, 0, 0, 2, 3, 0})},
      {"m", Bool({3}, {1, 0, 1})},
      {"m2", Bool({3, 2}, {1, 0, 0, 1, 1, 1})},
      {"col", Bool({2}, {0, 1})},
      {"none3", Bool({3}, {0, 0, 0})},
      {"e", F32({0, 3}, {})},
      {"e1", I64({0}, {})},
      {"f0", F32({}, {2.5})},
      {"t0", Bool({}, {1})},
      {"z0", I64({}, {0})},
      {"nz", F32({2}, {kNan, 0})},
      {"u", I64({7}, {3, 1, 3, 2, 1, 3, 0})},
      {"n", F32({5}, {3, kNan, 1, kNan, 1})},
      {"r", I64({3}, {2, 0, 1})},
      {"r2", I64({2}, {1, 2})},
      {"r6", I64({6}, {1, 0, 0, 0, 2, 1})},
      {"r0", I64({3}, {0, 0, 0})},
      {"i1", I64({1}, {5})},
      {"f11", F32({1, 1}, {0.1})},
  };
  return *in;
}

TEST(DataDependent, NonzeroIndexMaskedSelect) {
  run_cases(
      {
          {"nonzero 2-D", C(OpKind::kNonzero, {V("x")}), I64({3, 2}, {0, 0, 1, 1, 2, 0})},
          {"nonzero bool", C(OpKind::kNonzero, {V("m")}), I64({2, 1}, {0, 2})},
          {"nonzero empty", C(OpKind::kNonzero, {V("e")}), I64({0, 2}, {})},
          {"nonzero 0-dim", C(OpKind::kNonzero, {V("f0")}), I64({1, 0}, {})},
          {"nonzero 0-dim zero", C(OpKind::kNonzero, {V("z0")}), I64({0, 0}, {})},
          {"nonzero NaN counts", C(OpKind::kNonzero, {V("nz")}), I64({1, 1}, {0})},
          {"index rows", C(OpKind::kIndex, {V("x"), V("m")}), F32({2, 2}, {1, 0, 3, 0})},
          {"index full mask", C(OpKind::kIndex, {V("x"), V("m2")}), F32({4}, {1, 2, 3, 0})},
          {"index nothing", C(OpKind::kIndex, {V("x"), V("none3")}), F32({0, 2}, {})},
          {"index 0-dim", C(OpKind::kIndex, {V("f0"), V("t0")}), F32({1}, {2.5})},
          {"masked_select", C(OpKind::kMaskedSelect, {V("x"), V("m2")}), F32({4}, {1, 2, 3, 0})},
          {"masked_select broadcast", C(OpKind::kMaskedSelect, {V("x"), V("col")}),
           F32({3}, {0, 2, 0})},
          {"masked_select broadcast input", C(OpKind::kMaskedSelect, {V("r2"), V("m2")}),
           I64({4}, {1, 2, 1, 2})},
      },
      inputs());
}

TEST(DataDependent, Unique) {
  run_cases(
      {
          {"sorted", C(OpKind::kUnique, {V("u")}), I64({4}, {0, 1, 2, 3})},
          {"counts", C(OpKind::kUnique, {V("u"), B(true)}),
           Tup({I64({4}, {0, 1, 2, 3}), I64({4}, {1, 2, 1, 3})})},
          {"NaNs last, each its own", C(OpKind::kUnique, {V("n")}, {{"return_counts", B(true)}}),
           Tup({F32({4}, {1, 3, kNan, kNan}), I64({4}, {2, 1, 1, 1})})},
          {"bool", C(OpKind::kUnique, {V("m")}), Bool({2}, {0, 1})},
          {"flattens", C(OpKind::kUnique, {V("x"), B(true)}),
           Tup({F32({4}, {0, 1, 2, 3}), I64({4}, {3, 1, 1, 1})})},
          {"empty", C(OpKind::kUnique, {V("e"), B(true)}), Tup({F32({0}, {}), I64({0}, {})})},
      },
      inputs());
}

TEST(DataDependent, UniqueDim) {
  // Distinct rows (dim 0) or columns (dim 1), sorted lexicographically; a NaN equals nothing.
  Inputs in{{"r", I64({4, 2}, {1, 2, 0, 5, 1, 2, 0, 0})},
            {"n", F32({3, 2}, {1, kNan, 1, kNan, 0, 1})},
            {"e", I64({0, 2}, {})}};
  run_cases(
      {
          {"rows", C(OpKind::kUniqueDim, {V("r"), I(0), B(true)}),
           Tup({I64({3, 2}, {0, 0, 0, 5, 1, 2}), I64({3}, {1, 1, 2})})},
          {"columns", C(OpKind::kUniqueDim, {V("r"), I(-1)}),
           I64({4, 2}, {1, 2, 0, 5, 1, 2, 0, 0})},
          {"NaN rows stay apart", C(OpKind::kUniqueDim, {V("n"), I(0), B(true)}),
           Tup({F32({3, 2}, {0, 1, 1, kNan, 1, kNan}), I64({3}, {1, 1, 1})})},
          {"empty dim", C(OpKind::kUniqueDim, {V("e"), I(0), B(true)}),
           Tup({I64({0, 2}, {}), I64({0}, {})})},
      },
      in);
}

TEST(DataDependent, ItemTolist) {
  run_cases(
      {
          {"item i64", C(OpKind::kItem, {V("i1")}), Int(5)},
          {"item f32 is the float's value", C(OpKind::kItem, {V("f11")}),
           Flt(static_cast<double>(0.1f))},
          {"item bool", C(OpKind::kItem, {V("t0")}), Bl(true)},
          {"item 0-dim", C(OpKind::kItem, {V("z0")}), Int(0)},
          {"tolist i64", C(OpKind::kTolist, {V("r")}), Tup({Int(2), Int(0), Int(1)})},
          {"tolist bool", C(OpKind::kTolist, {V("m")}), Tup({Bl(true), Bl(false), Bl(true)})},
          {"tolist empty", C(OpKind::kTolist, {V("e1")}), Tup({})},
      },
      inputs());
}

TEST(DataDependent, RepeatInterleave) {
  run_cases(
      {
          {"repeats only", C(OpKind::kRepeatInterleave, {V("r")}), I64({3}, {0, 0, 2})},
          {"empty repeats", C(OpKind::kRepeatInterleave, {V("e1")}), I64({0}, {})},
          {"rows", C(OpKind::kRepeatInterleave, {V("x"), V("r"), I(0)}),
           F32({3, 2}, {1, 0, 1, 0, 3, 0})},
          {"columns", C(OpKind::kRepeatInterleave, {V("x"), V("r2"), I(-1)}),
           F32({3, 3}, {1, 0, 0, 0, 2, 2, 3, 0, 0})},
          {"no dim flattens", C(OpKind::kRepeatInterleave, {V("x"), V("r6")}),
           F32({4}, {1, 3, 3, 0})},
          {"all zero", C(OpKind::kRepeatInterleave, {V("x"), V("r0"), I(0)}), F32({0, 2}, {})},
      },
      inputs());
}

}  // namespace
}  // namespace sf::eager::testing
