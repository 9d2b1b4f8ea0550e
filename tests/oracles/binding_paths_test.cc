// The independent INV-4 walk: the ShapeEnv driver's exposed values reach every binding-path
// kind and all pass, and each kind of broken path is caught.
#include "oracles/invariants/binding_paths.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/sym/make.h"
#include "fuzz/fuzz_source.h"
#include "fuzz/gen/shape_env_gen.h"

namespace sf {
namespace {

std::set<std::string> kinds_of(const KeyPath& path) {
  std::set<std::string> out;
  for (const KeyEntry& k : path) {
    switch (k.kind) {
      case KeyEntry::Kind::kSequence:
        out.insert("sequence");
        break;
      case KeyEntry::Kind::kCallMethod:
        out.insert(k.method == TensorMethod::kSize     ? "size"
                   : k.method == TensorMethod::kStride ? "stride"
                                                       : "storage_offset");
        break;
      case KeyEntry::Kind::kInnerTensor:
        out.insert("inner");
        break;
      case KeyEntry::Kind::kDivideBy:
        out.insert("divide_by");
        break;
      case KeyEntry::Kind::kConvertInt:
        out.insert("convert_int");
        break;
    }
  }
  if (path.empty()) out.insert("empty");
  return out;
}

TEST(BindingPaths, DriverReachesEveryPathKindAndEveryPathHolds) {
  std::set<std::string> reached;
  int64_t checked = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    fuzz::SeedSource src(seed);
    ShapeEnv env;
    fuzz::DriveStats stats = fuzz::drive_shape_env(src, env, 60);
    for (const auto& [value, bindings] : stats.exposed) {
      EXPECT_EQ(oracles::violations_str(oracles::check_binding_paths(value, bindings)), "")
          << "seed " << seed;
      for (const auto& [s, path] : bindings) {
        for (const std::string& k : kinds_of(path)) reached.insert(k);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
  // convert_int needs a SymBool: the program generator reaches it (item of any/all).
  for (const char* k :
       {"sequence", "size", "stride", "storage_offset", "inner", "divide_by", "empty"}) {
    EXPECT_TRUE(reached.count(k)) << k << " never reached";
  }
}

class BrokenPaths : public ::testing::Test {
 protected:
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  Value tensor = Value::tensor(std::make_shared<TensorMeta>(
      std::vector<SymInt>{u, SymInt(3)}, std::vector<SymInt>{SymInt(3), SymInt(1)}, SymInt(0)));

  std::string check(KeyPath path, const Value& v) {
    Bindings b;
    b.emplace(u.expr(), std::move(path));
    return oracles::violations_str(oracles::check_binding_paths(v, b));
  }
  std::string check(KeyPath path) { return check(std::move(path), tensor); }
  static KeyEntry size() { return KeyEntry::call_method(TensorMethod::kSize); }
  static KeyEntry stride() { return KeyEntry::call_method(TensorMethod::kStride); }
  static KeyEntry at(int64_t i) { return KeyEntry::sequence(i); }
};

TEST_F(BrokenPaths, TheRightPathPasses) { EXPECT_EQ(check({size(), at(0)}), ""); }

TEST_F(BrokenPaths, EachWrongPathFires) {
  EXPECT_NE(check({size(), at(1)}), "") << "the other dim";
  EXPECT_NE(check({stride(), at(0)}), "") << "stride instead of size";
  EXPECT_NE(check({size(), at(2)}), "") << "out of range";
  EXPECT_NE(check({size()}), "") << "size without an index";
  EXPECT_NE(check({KeyEntry::call_method(TensorMethod::kStorageOffset)}), "");
  EXPECT_NE(check({at(0)}), "") << "an index into a tensor";
  EXPECT_NE(check({}), "") << "the tensor itself";
  EXPECT_NE(check({KeyEntry::inner_tensor("data"), size(), at(0)}), "") << "no inner tensors";
  EXPECT_NE(check({KeyEntry::divide_by(sym::integer(2)), size(), at(0)}), "")
      << "a conversion first";
  EXPECT_NE(check({size(), at(0), KeyEntry::divide_by(sym::integer(2))}), "") << "u is not 2*u";
  EXPECT_NE(check({size(), at(0), KeyEntry::convert_int()}), "") << "an int is no Eq(u, 1)";
}

TEST_F(BrokenPaths, ConvertIntNeedsEqOne) {
  Value b = Value(SymBool(sym::eq(u.expr(), sym::integer(1))));
  EXPECT_EQ(check({KeyEntry::convert_int()}, b), "");
  EXPECT_NE(check({KeyEntry::convert_int()}, Value(u)), "") << "an int is no Eq(u, 1)";
  EXPECT_NE(check({KeyEntry::convert_int()}, Value(SymBool(sym::eq(u.expr(), sym::integer(0))))),
            "")
      << "Eq(u, 0)";
  EXPECT_NE(check({}, b), "") << "the SymBool itself is not u";
}

TEST_F(BrokenPaths, DivideByChecksTheFactor) {
  Value v = Value::tensor(TensorMeta::contiguous({SymInt(4) * u}));
  EXPECT_EQ(check({size(), at(0), KeyEntry::divide_by(sym::integer(4))}, v), "");
  EXPECT_NE(check({size(), at(0), KeyEntry::divide_by(sym::integer(2))}, v), "");
  EXPECT_NE(check({size(), at(0)}, v), "") << "4*u is not u";
}

}  // namespace
}  // namespace sf
