// Whole .sfz programs through the parser, make_input_values and the eager interpreter: results of
// `expect: ok` programs, and errors (kind and substring from the `expect:` header) of the others.
#include "engine/program/parser.h"
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

struct TextCase {
  std::string name;
  std::string text;
  std::vector<HostValue> outputs;  // for "# expect: ok"
};

// "error KIND" or "error KIND \"substring\"" (no escapes in these tests).
void expect_header_error(const Program& p) {
  std::string e = p.header.expect;
  ASSERT_EQ(e.rfind("error ", 0), 0u) << e;
  std::string rest = e.substr(6);
  size_t quote = rest.find('"');
  std::string kind = rest.substr(0, quote == std::string::npos ? rest.size() : quote - 1);
  std::string substring = quote == std::string::npos ? "" : rest.substr(quote + 1);
  if (!substring.empty()) substring.pop_back();
  try {
    run_eager(p);
    ADD_FAILURE() << "expected " << e << ", got no error";
  } catch (const UserError& err) {
    EXPECT_EQ(user_error_kind_name(err.kind()), kind) << err.what();
    EXPECT_NE(std::string(err.what()).find(substring), std::string::npos) << err.what();
  }
}

void run_text(const TextCase& c) {
  SCOPED_TRACE(c.name);
  Program p = program::parse_program(c.text);
  if (p.header.expect != "ok") return expect_header_error(p);
  std::vector<HostValue> got = run_eager(p).outputs;
  ASSERT_EQ(got.size(), c.outputs.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_TRUE(same(got[k], c.outputs[k]))
        << "output " << k << "\nOutput: " << show(got[k]) << "\nExpected: " << show(c.outputs[k]);
  }
}

TEST(ParsedProgram, Ok) {
  std::vector<TextCase> cases = {
      {"design example",
       R"sfz(# sfz 1
# expect: ok
input x: f32[4, 2] dynamic(0) = arange()
input m: bool[4] = [True, False, True, True]
input t: i64[1] = [2]
a = index(x, m)
k = item(t)
check(k <= size(a, 0), "k fits")
s = slice(a, 0, 0, k)
return sum(s, [1])
)sfz",
       {F32({2}, {1, 9})}},
      {"infix and scalars",
       R"sfz(# sfz 1
# expect: ok
input x: i64[3] = [-7, 0, 7]
input n: i64 dynamic = 3
a = x * -2 + 1
b = -(3) - -n // 2 % 5
ok = n > 0 & ~n == 5 | n <= -1
f = x / 2
return a, b, ok, f, x // 2, x % -3
)sfz",
       {I64({3}, {15, 1, -13}), Int(-6), Bl(true), F32({3}, {-3.5, 0, 3.5}), I64({3}, {-4, 0, 3}),
        I64({3}, {-1, 0, -2})}},
      {"if, unpacking, add_",
       R"sfz(# sfz 1
# expect: ok
input x: i64[6] = [1, 0, 2, 0, 3, 0]
input n: i64 = 3
u = size(nonzero(x), 0)
check_is_size(u, max=6)
if u > 1:
  values, counts = unique(x, return_counts=True)
  y = sum(counts)
else:
  y = zeros([], dtype=i64)
alias = y
r = add_(y, n)
p, q = tolist(arange(2))
return alias, u, unique(x, return_counts=True), p + q
)sfz",
       {I64({}, {9}), Int(3), Tup({I64({4}, {0, 1, 2, 3}), I64({4}, {3, 1, 1, 1})}), Int(1)}},
  };
  for (const TextCase& c : cases) run_text(c);
}

TEST(ParsedProgram, Errors) {
  std::vector<TextCase> cases = {
      {"check fails with its line", R"sfz(# sfz 1
# expect: error check_failed "line 5: check failed: too big"
input x: i64[6] = [1, 0, 2, 0, 3, 0]
u = size(nonzero(x), 0)
check(u <= 2, "too big")
return u
)sfz"},
      {"zero division", R"sfz(# sfz 1
# expect: error zero_division "floordiv: integer division by zero"
input x: i64[2] = [1, 2]
input d: i64[2] = [1, 0]
return x // d
)sfz"},
      {"broadcast", R"sfz(# sfz 1
# expect: error shape "add: cannot broadcast dim 1: 3 vs 4 (shapes [2, 3] and [2, 4])"
input a: f32[2, 3] = randn(seed=1)
input b: f32[2, 4] = randn(seed=2)
return a + b
)sfz"},
      {"check_is_size", R"sfz(# sfz 1
# expect: error check_failed "check_is_size failed: 3 > max 2"
input t: i64[1] = [3]
k = item(t)
check_is_size(k, max=2)
return k
)sfz"},
  };
  for (const TextCase& c : cases) run_text(c);
}

}  // namespace
}  // namespace sf::eager::testing
