// Facts beyond ranges: relations the checks record, closed under transitivity, decide relations
// and fold Max/Min in simplify and static evaluation (0 <= u0 <= u1 <= n makes u0 <= n known
// and Max(0, u1 - u0) equal to u1 - u0); the fact graph alone; the simplify cache under facts.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <vector>

#include "engine/shape_env/fact_graph.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

struct Checked {
  ShapeEnv env;
  SymInt n, u0, u1;
  Checked() {
    n = env.create_symbol(10, "x.size()[0]", DimDynamic::kDynamic);
    u0 = env.create_unbacked_symint();
    u1 = env.create_unbacked_symint();
  }
};

TEST(Facts, ChainOfChecksProvesTheTransitiveRelation) {
  Checked c;
  EXPECT_FALSE(c.env.statically_known_true(sym_le(c.u0, c.n)));
  c.env.check(sym_ge(c.u0, 0), "start");
  c.env.check(sym_le(c.u0, c.u1), "ordered");
  EXPECT_FALSE(c.env.statically_known_true(sym_le(c.u0, c.n))) << "u1 <= n not known yet";
  c.env.check(sym_le(c.u1, c.n), "stop");
  EXPECT_TRUE(c.env.statically_known_true(sym_le(c.u0, c.n)));
  EXPECT_TRUE(c.env.statically_known_true(sym_le(c.u0 - c.n, 0)));
  EXPECT_TRUE(c.env.statically_known_false(sym_gt(c.u0, c.n)));
  EXPECT_FALSE(c.env.statically_known_true(sym_lt(c.u0, c.n))) << "u0 == n is possible";
  EXPECT_FALSE(c.env.statically_known_true(sym_le(c.u1, c.u0)));
}

TEST(Facts, MaxOfZeroFoldsWhenFactsProveNonnegative) {
  Checked c;
  ExprRef d = sym::sub(c.u1.expr(), c.u0.expr());
  ExprRef clamped = sym::max(I(0), d);
  EXPECT_EQ(c.env.simplify(clamped), clamped) << "ranges alone leave it open";
  c.env.check(sym_le(c.u0, c.u1), "ordered");
  EXPECT_EQ(c.env.simplify(clamped), d) << "the simplify cache must not answer the old form";
  EXPECT_EQ(c.env.simplify(sym::min(I(0), d)), I(0));
  // The slice-size form: Max(0, Min(n, u1) - Min(n, u0)) once 0 <= u0 <= u1 <= n.
  c.env.check(sym_ge(c.u0, 0), "start");
  c.env.check(sym_le(c.u1, c.n), "stop");
  ExprRef slice_size = sym::max(
      I(0), sym::sub(sym::min(c.n.expr(), c.u1.expr()), sym::min(c.n.expr(), c.u0.expr())));
  EXPECT_EQ(c.env.simplify(slice_size), d);
  // A guard on it is decided, not a data-dependent error.
  EXPECT_TRUE(c.env.guard_bool(SymBool(sym::eq(slice_size, d)), "test"));
}

TEST(Facts, GraphAlone) {
  ExprRef x = U(0), y = U(1), z = U(2);
  sym::MapRangeEnv ranges;
  // z <= 7 bounds one symbol: that is its range's business, not an edge of the graph.
  FactGraph g({{sym::le(x, y), true}, {sym::lt(y, z), true}, {sym::le(z, I(7)), true}});
  EXPECT_TRUE(g.proves_nonnegative(sym::sub(z, x), ranges));                   // x <= z
  EXPECT_TRUE(g.proves_nonnegative(sym::sub(sym::sub(z, x), I(1)), ranges));   // x < z
  EXPECT_FALSE(g.proves_nonnegative(sym::sub(sym::sub(z, x), I(2)), ranges));  // x + 2 <= z?
  EXPECT_FALSE(g.proves_nonnegative(sym::sub(I(6), y), ranges)) << "z's range is unknown here";
  ranges.ranges[z] = sym::ValueRange::ints(sym::ExtInt::neg_inf(), 7);
  EXPECT_TRUE(g.proves_nonnegative(sym::sub(I(6), y), ranges)) << "y < z <= 7";
  EXPECT_FALSE(g.proves_nonnegative(sym::sub(x, z), ranges));
  EXPECT_FALSE(g.proves_nonnegative(x, ranges)) << "nothing bounds x below";
  ranges.ranges[x] = sym::ValueRange::ints(3, 5);
  EXPECT_TRUE(g.proves_nonnegative(sym::sub(x, I(3)), ranges)) << "an endpoint's range counts";
  EXPECT_TRUE(g.proves_nonnegative(sym::add(x, y), ranges)) << "x >= 3 and y >= x";
  // A negated fact: not(z <= x) is x < z.
  FactGraph n({{sym::le(z, x), false}});
  EXPECT_TRUE(n.proves_nonnegative(sym::sub(sym::sub(z, x), I(1)), ranges));
  // Contradictory facts prove nothing (vacuous truth is no evidence).
  FactGraph bad({{sym::lt(x, y), true}, {sym::lt(y, x), true}});
  EXPECT_FALSE(bad.proves_nonnegative(sym::sub(y, x), ranges));
  // Non-difference facts are ignored, not misread.
  FactGraph scaled({{sym::le(sym::mul(I(2), x), y), true}});
  EXPECT_FALSE(scaled.proves_nonnegative(sym::sub(y, x), ranges));
}

// difference_bounds answers, for every shift at once, what proves_nonnegative answers for
// each shifted difference: the simplifier asks it once per relation instead.
TEST(Facts, DifferenceBoundsAgreeWithProvesNonnegative) {
  std::vector<ExprRef> atoms = {U(0), U(1), U(2), sym::floordiv(U(3), I(2))};
  FactGraph g({{sym::le(atoms[0], atoms[1]), true},
               {sym::lt(sym::add(atoms[1], I(2)), atoms[2]), true},
               {sym::le(atoms[3], atoms[0]), false},
               {sym::eq(atoms[2], sym::add(atoms[3], I(7))), true}});
  sym::MapRangeEnv ranges;
  ranges.ranges[U(0)] = sym::ValueRange::ints(0, 20);
  ranges.ranges[U(2)] = sym::ValueRange::ints(4, 9);
  int decided = 0;
  auto agree = [&](const ExprRef& b, const ExprRef& a) {
    sym::FactBounds d = g.difference_bounds(b, a, ranges);
    ExprRef diff = sym::sub(b, a);
    for (int64_t m = -12; m <= 12; ++m) {
      bool at_least = g.proves_nonnegative(sym::sub(diff, I(m)), ranges);  // b - a >= m
      bool at_most = g.proves_nonnegative(sym::sub(I(m), diff), ranges);   // b - a <= m
      EXPECT_EQ(d.lo && *d.lo >= m, at_least) << diff->str() << " >= " << m;
      EXPECT_EQ(d.hi && *d.hi <= m, at_most) << diff->str() << " <= " << m;
      decided += at_least + at_most;
    }
  };
  for (const ExprRef& b : atoms) {
    for (const ExprRef& a : atoms) agree(b, a);
  }
  EXPECT_GT(decided, 100) << "the graph should decide many of these";
  // A sum of two atoms is no difference: bounded through each atom's own bounds.
  agree(U(0), sym::neg(U(2)));
  agree(sym::neg(U(1)), U(2));
}

// Building from only the relations the graph reads gives the graph of all of them (the rebuild
// after a replacement reads only those), and past the atom limit a graph proves nothing.
TEST(Facts, RebuildReadsOnlyTheRelationsTheGraphReads) {
  ExprRef x = U(0), y = U(1), z = U(2);
  std::vector<std::pair<ExprRef, bool>> all = {
      {sym::le(x, I(5)), true},                    // one symbol by a number: the range's
      {sym::le(x, y), true},                       // read
      {sym::le(sym::mul(I(2), y), z), true},       // not a unit difference
      {sym::eq(sym::floordiv(z, I(2)), x), true},  // read (an atom that is no symbol)
      {sym::lt(sym::add(x, y), I(3)), false},      // a sum of two atoms: read (atom limit)
      {sym::le(sym::mul(x, y), I(4)), true}};      // one atom by a number: read
  FactGraph::Forms forms;
  std::vector<std::pair<ExprRef, bool>> read;
  for (const auto& [rel, value] : all) {
    if (FactGraph::read_by_graph(rel, value, forms)) read.emplace_back(rel, value);
  }
  EXPECT_EQ(read.size(), 4u);
  EXPECT_TRUE(FactGraph(all, forms).same_facts(FactGraph(read, forms)));
  EXPECT_TRUE(FactGraph(all).same_facts(FactGraph(read, forms))) << "a memo changes nothing";

  std::vector<std::pair<ExprRef, bool>> chain;
  for (int i = 0; i < 60; ++i)
    chain.emplace_back(sym::le(U(2 * i), sym::floordiv(U(2 * i + 1), I(3))), true);
  sym::MapRangeEnv ranges;
  ExprRef first = U(0), next = sym::floordiv(U(1), I(3));
  EXPECT_TRUE(FactGraph(std::vector(chain.begin(), chain.begin() + 40))
                  .proves_nonnegative(sym::sub(next, first), ranges));
  FactGraph past_limit(chain);  // 120 atoms
  EXPECT_TRUE(past_limit.empty());
  EXPECT_FALSE(past_limit.proves_nonnegative(sym::sub(next, first), ranges));
  EXPECT_FALSE(past_limit.difference_bounds(next, first, ranges).lo);
  // At the limit exactly (48 relations, 96 atoms) a build proves what extending to it does.
  FactGraph at_limit(std::vector(chain.begin(), chain.begin() + 48));
  FactGraph grown(std::vector(chain.begin(), chain.begin() + 1));
  grown.extend(std::vector(chain.begin() + 1, chain.begin() + 48), forms);
  EXPECT_TRUE(at_limit.proves_nonnegative(sym::sub(next, first), ranges));
  EXPECT_TRUE(at_limit.same_facts(grown));
  FactGraph extended(std::vector(chain.begin(), chain.begin() + 40));
  EXPECT_TRUE(extended.extend(std::vector(chain.begin() + 40, chain.end()), forms));
  EXPECT_TRUE(extended.empty()) << "extending past the limit proves nothing, as building does";
}

// A rebuild past the atom limit stops reading; replacements that merge atoms bring the graph
// back under it, and the next rebuild reads the entries after its old stopping point (never
// classified until then) in their current forms.
TEST(Facts, BackUnderTheAtomLimitARebuildReadsWhatItHadSkipped) {
  ShapeEnv env;
  std::vector<SymInt> u;
  for (int i = 0; i < 106; ++i) u.push_back(env.create_unbacked_symint());
  env.check(sym_le(u[103] + u[104], u[105]), "three atoms");  // no difference: not read
  for (int i = 0; i < 50; ++i) env.check(sym_le(u[2 * i], u[2 * i + 1]), "pair");  // 100 atoms
  env.check(sym_le(u[100], u[101]), "chain");
  env.check(sym_le(u[101], u[102]), "chain");
  EXPECT_FALSE(env.statically_known_true(sym_le(u[100], u[102]))) << "past the limit";
  EXPECT_TRUE(env.facts().empty());
  // u1 = 5, u3 = 5, ...: their pairs now bound one symbol each, which the graph does not read.
  for (int i = 0; i < 30; ++i) env.check(sym_eq(u[2 * i + 1], SymInt(5)), "merge");
  EXPECT_TRUE(env.statically_known_true(sym_le(u[100], u[102])))
      << "83 atoms now: the chain after the old stopping point is read";
  EXPECT_FALSE(env.facts().empty());
  // A rewrite makes an entry the graph had not read a difference it reads.
  EXPECT_FALSE(env.statically_known_true(sym_lt(u[104], u[105])));
  env.check(sym_eq(u[103], SymInt(5)), "now u104 + 5 <= u105");
  EXPECT_TRUE(env.statically_known_true(sym_lt(u[104], u[105])));
}

// A rebuild replays the relations a previous graph read and that are unchanged, and reads the
// rewritten ones: the same graph (atoms numbered alike, the same stopping point) as reading
// every relation, whether a rewrite drops an atom, brings one in before others, or joins two.
TEST(Facts, AReplayedRebuildIsTheGraphOfReadingEveryRelation) {
  auto link = [](int a, int b, int k) { return sym::le(U(a), sym::add(U(b), I(k))); };
  std::vector<std::pair<ExprRef, bool>> before = {{link(0, 1, 2), true},
                                                  {sym::le(U(9), I(4)), true},
                                                  {link(1, 2, 0), true},
                                                  {link(3, 2, -1), false},
                                                  {sym::eq(U(4), sym::add(U(0), I(3))), true},
                                                  {link(2, 5, 1), true}};
  auto rewritten = [&](std::vector<std::pair<size_t, std::pair<ExprRef, bool>>> changes) {
    std::vector<std::pair<ExprRef, bool>> after = before;
    for (const auto& [i, relation] : changes) after[i] = relation;
    return after;
  };
  const std::vector<std::vector<std::pair<ExprRef, bool>>> cases = {
      rewritten({{0, {sym::le(sym::mul(I(2), U(7)), sym::add(U(1), I(2))), true}}}),  // drops u0
      rewritten({{0, {link(6, 1, 2), true}}}),  // u6 numbered before u1
      rewritten({{2, {link(1, 3, 0), true}}, {4, {sym::eq(U(4), U(3)), true}}}),  // joins
      rewritten({{1, {link(8, 0, 1), true}}}),  // an entry that read nothing now reads
      rewritten({})};
  FactGraph::Forms forms;
  FactGraph first(before, forms);
  sym::MapRangeEnv ranges;
  for (const auto& after : cases) {
    size_t i = 0;
    FactGraph replayed(
        [&]() -> std::optional<FactGraph::Read> {
          if (i == after.size()) return std::nullopt;
          size_t at = i++;
          if (after[at] == before[at]) return FactGraph::Read{ExprRef(), false, at};
          return FactGraph::Read{after[at].first, after[at].second, std::nullopt};
        },
        forms, &first);
    FactGraph read(after, forms);
    EXPECT_TRUE(replayed.same_facts(read));
    EXPECT_EQ(replayed.num_read(), after.size());
    for (int a = 0; a < 10; ++a) {  // (same_facts compares the blocks; so do the answers)
      for (int b = 0; b < 10; ++b) {
        sym::FactBounds r = replayed.difference_bounds(U(a), U(b), ranges);
        sym::FactBounds d = read.difference_bounds(U(a), U(b), ranges);
        EXPECT_EQ(r.lo, d.lo) << a << " " << b;
        EXPECT_EQ(r.hi, d.hi) << a << " " << b;
      }
    }
  }
  // At the atom limit a replay stops where reading does.
  std::vector<std::pair<ExprRef, bool>> chain;
  for (int i = 0; i < 48; ++i) chain.emplace_back(link(2 * i, 2 * i + 1, 0), true);  // 96 atoms
  FactGraph full(chain, forms);
  ASSERT_FALSE(full.empty());
  chain[0] = {link(200, 201, 0), true};
  chain.insert(chain.begin() + 1, {link(202, 203, 0), true});  // 98 atoms: one too many
  size_t i = 0;
  FactGraph replayed(
      [&]() -> std::optional<FactGraph::Read> {
        if (i == chain.size()) return std::nullopt;
        size_t at = i++;
        if (at >= 2) return FactGraph::Read{ExprRef(), false, at - 1};
        return FactGraph::Read{chain[at].first, chain[at].second, std::nullopt};
      },
      forms, &full);
  FactGraph read(chain, forms);
  EXPECT_TRUE(replayed.empty());
  EXPECT_EQ(replayed.stopped_at(), read.stopped_at());
  ASSERT_TRUE(read.stopped_at());
  EXPECT_EQ(*read.stopped_at(), 48u);  // the 49th relation would make 98 atoms
}

// A rebuild may start as the previous graph was after its unchanged leading relations, and may
// replay what a graph past the atom limit read before the relation it stopped in: the graph is
// the one reading every relation builds.
TEST(Facts, ARebuildFromAPrefixOrAStoppedGraphIsTheGraphOfReadingEveryRelation) {
  auto link = [](int a, int b, int k) { return sym::le(U(a), sym::add(U(b), I(k))); };
  using Relations = std::vector<std::pair<ExprRef, bool>>;
  FactGraph::Forms forms;
  // Takes before's unchanged leading relations as they were, replays the other unchanged ones
  // it can and reads the rest.
  auto rebuild = [&](const Relations& was, const FactGraph& before, const Relations& now) {
    size_t prefix = 0;
    while (prefix < now.size() && now[prefix] == was[prefix] && before.can_replay(prefix)) {
      ++prefix;
    }
    size_t i = prefix;
    return FactGraph(
        [&]() -> std::optional<FactGraph::Read> {
          if (i == now.size()) return std::nullopt;
          size_t at = i++;
          if (at < was.size() && now[at] == was[at] && before.can_replay(at)) {
            return FactGraph::Read{ExprRef(), false, at};
          }
          return FactGraph::Read{now[at].first, now[at].second, std::nullopt};
        },
        forms, &before, prefix);
  };
  sym::MapRangeEnv ranges;
  auto expect_same = [&](const FactGraph& rebuilt, const FactGraph& read) {
    EXPECT_TRUE(rebuilt.same_facts(read));
    EXPECT_EQ(rebuilt.stopped_at(), read.stopped_at());
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        EXPECT_EQ(rebuilt.difference_bounds(U(a), U(b), ranges).hi,
                  read.difference_bounds(U(a), U(b), ranges).hi)
            << a << " " << b;
      }
    }
  };
  Relations was = {{link(0, 1, 2), true},   {sym::le(U(9), I(4)), true}, {link(1, 2, 0), true},
                   {link(3, 2, -1), false}, {link(4, 0, -3), true},      {link(2, 5, 1), true}};
  FactGraph first(was, forms);
  for (size_t at = 0; at <= was.size(); ++at) {  // each relation in turn rewritten (or none)
    Relations now = was;
    if (at < now.size()) now[at] = {link(6, 1, at % 2 ? -1 : 3), true};
    FactGraph rebuilt = rebuild(was, first, now);
    expect_same(rebuilt, FactGraph(now, forms));
    EXPECT_EQ(rebuilt.num_read(), now.size());
  }
  // 49 links of two new atoms each: 98 atoms, so the graph stops in the last one.
  Relations chain;
  for (int i = 0; i < 49; ++i) chain.emplace_back(link(2 * i, 2 * i + 1, 0), true);
  FactGraph stopped(chain, forms);
  ASSERT_EQ(stopped.stopped_at(), std::optional<size_t>(48));
  EXPECT_TRUE(stopped.can_replay(47));
  EXPECT_FALSE(stopped.can_replay(48));  // read in part
  Relations fits = chain;
  fits[40] = {link(0, 1, -1), true};  // two atoms fewer: 96, under the limit again
  FactGraph rebuilt = rebuild(chain, stopped, fits);
  ASSERT_FALSE(rebuilt.empty());
  expect_same(rebuilt, FactGraph(fits, forms));
  Relations still_over = chain;
  still_over[10] = {link(300, 301, 0), true};
  expect_same(rebuild(chain, stopped, still_over), FactGraph(still_over, forms));
}

TEST(Facts, RelaxingThroughEveryNodeGivesTheShortestPaths) {
  // A sparse graph over more than one word of nodes, with negative edges but no negative
  // cycle (each weight is a potential difference plus a nonnegative slack), against
  // Floyd-Warshall over a dense matrix.
  constexpr size_t kNodes = 100;
  uint64_t state = 12345;
  auto next = [&](uint64_t bound) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (state >> 33) % bound;
  };
  std::vector<int64_t> potential(kNodes);
  for (int64_t& p : potential) p = static_cast<int64_t>(next(1000));
  std::vector<std::vector<std::optional<int64_t>>> dense(
      kNodes, std::vector<std::optional<int64_t>>(kNodes));
  DifferenceBounds d;
  for (size_t n = 0; n < kNodes; ++n) {
    d.add_node();
    dense[n][n] = 0;
  }
  for (int e = 0; e < 300; ++e) {
    size_t from = next(kNodes), to = next(kNodes);
    int64_t w = potential[to] - potential[from] + static_cast<int64_t>(next(50));
    if (dense[from][to] && *dense[from][to] <= w) continue;
    dense[from][to] = w;
    d.set(from, to, w);
  }
  for (size_t k = 0; k < kNodes; ++k) {
    d.relax_through(k);
    for (size_t i = 0; i < kNodes; ++i) {
      for (size_t j = 0; j < kNodes; ++j) {
        if (dense[i][k] && dense[k][j] &&
            (!dense[i][j] || *dense[i][k] + *dense[k][j] < *dense[i][j])) {
          dense[i][j] = *dense[i][k] + *dense[k][j];
        }
      }
    }
  }
  size_t bounded = 0;
  for (size_t i = 0; i < kNodes; ++i) {
    for (size_t j = 0; j < kNodes; ++j) {
      ASSERT_EQ(d.bound(i, j), dense[i][j]) << i << " -> " << j;
      ASSERT_EQ(d.bounded(i, j), ((d.bounded_to(j)[i / 64] >> (i % 64)) & 1) != 0)
          << i << " -> " << j;
      bounded += dense[i][j].has_value();
    }
  }
  EXPECT_GT(bounded, 2 * kNodes) << "the paths should join more than the edges' ends";
}

TEST(Facts, ARelationContributesWhenItMakesADifferenceBetweenAtoms) {
  struct Case {
    ExprRef rel;
    bool value, contributes;
  };
  const Case cases[] = {
      {sym::le(U(0), I(5)), true, false},                      // a symbol by a number
      {sym::le(sym::add(U(0), I(1)), I(7)), true, false},      // ... in any form
      {sym::le(U(0), U(1)), true, true},                       // u1 - u0 >= 0
      {sym::le(U(0), U(1)), false, true},                      // u0 - u1 - 1 >= 0
      {sym::lt(U(0), U(1)), true, true},                       // u1 - u0 - 1 >= 0
      {sym::le(sym::add(U(0), U(1)), I(5)), true, false},      // a sum, not a difference
      {sym::le(sym::mul(I(2), U(0)), U(1)), true, false},      // not unit coefficients
      {sym::le(sym::floordiv(U(0), I(2)), I(3)), true, true},  // an atom that is no symbol
      {sym::eq(U(0), U(1)), true, true},                       // two differences
      {sym::eq(U(0), U(1)), false, false},                     // a != says nothing here
  };
  for (const Case& c : cases) {
    FactGraph::Forms forms;
    EXPECT_EQ(FactGraph::contributes(c.rel, c.value, forms), c.contributes)
        << c.rel->str() << " = " << c.value;
  }
}

// The cells of a difference block survive its growth and copies; only bounded cells are kept.
TEST(Facts, DifferenceBoundsKeepTheirBoundsAcrossGrowthAndCopies) {
  DifferenceBounds d;
  std::map<std::pair<size_t, size_t>, int64_t> expected;
  for (size_t n = 0; n < 100; ++n) {
    d.add_node();
    expected[{n, n}] = 0;
    if (n % 3 == 1) {
      d.set(n, n / 2, -static_cast<int64_t>(n));
      expected[{n, n / 2}] = -static_cast<int64_t>(n);
    }
  }
  DifferenceBounds copy = d;
  DifferenceBounds source = d;
  DifferenceBounds moved(std::move(source));
  EXPECT_TRUE(copy == d);
  EXPECT_TRUE(moved == d);
  EXPECT_EQ(source.size(), 0u)
      << "a moved-from block has no nodes";  // NOLINT(bugprone-use-after-move)
  source.add_node();                         // and can be used again
  EXPECT_EQ(source.at(0, 0), 0);
  for (size_t a = 0; a < d.size(); ++a) {
    size_t seen = 0;
    for_each_node(d.bounded_from(a), [&](size_t b) {
      ++seen;
      EXPECT_EQ(copy.at(a, b), expected.at({a, b}));
    });
    for (size_t b = 0; b < d.size(); ++b) {
      EXPECT_EQ(copy.bound(a, b).has_value(), expected.count({a, b}) > 0);
      EXPECT_EQ(copy.bounded(b, a), d.bounded(b, a));
    }
    EXPECT_EQ(seen, a % 3 == 1 ? 2u : 1u);
  }
  copy.set(5, 90, 7);
  EXPECT_FALSE(copy == d);
  EXPECT_EQ(d.at(5, 90), DifferenceBounds::kNone);
  // A bound of INT64_MAX is a bound, not the absence of one: paths through it count.
  FactGraph g({{sym::le(sym::sub(U(1), U(0)), I(INT64_MAX)), true},
               {sym::le(sym::sub(U(2), U(1)), I(-5)), true}});
  sym::MapRangeEnv ranges;
  EXPECT_EQ(g.difference_bounds(U(2), U(0), ranges).hi, INT64_MAX - 5);
}

}  // namespace
}  // namespace sf
