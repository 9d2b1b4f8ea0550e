// The small containers behind polynomials and per-walk memos: SmallVector past its inline
// capacity, copies, moves and erase; NodeMemo past its inline slots. A counted value type shows
// any element constructed and never destroyed, or destroyed twice.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/sym/make.h"
#include "engine/sym/node_memo.h"
#include "engine/sym/small_vector.h"

namespace sf::sym {
namespace {

using Refs = SmallVector<ExprRef, 2>;

// Counts the live instances of itself.
struct Counted {
  static int live;
  int value = 0;
  explicit Counted(int v) : value(v) { ++live; }
  Counted(const Counted& o) : value(o.value) { ++live; }
  Counted(Counted&& o) noexcept : value(o.value) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) = default;
  ~Counted() { --live; }
};
int Counted::live = 0;

std::string names(const Refs& v) {
  std::string out;
  for (const ExprRef& e : v) out += e->str() + " ";
  return out;
}

TEST(SmallVector, GrowsPastItsInlineCapacityKeepingOrder) {
  Refs v;
  EXPECT_TRUE(v.empty());
  for (int i = 0; i < 5; ++i) v.push_back(integer(i));
  EXPECT_EQ(v.size(), 5u);
  EXPECT_EQ(names(v), "0 1 2 3 4 ");
  EXPECT_EQ(v.back(), integer(4));
  v.emplace_back(integer(9));
  EXPECT_EQ(v[5], integer(9));
  v.pop_back();
  EXPECT_EQ(names(v), "0 1 2 3 4 ");
}

TEST(SmallVector, PushesItsOwnElementWhileGrowing) {
  Refs v{integer(7), integer(8)};  // full: the push below moves every element
  v.push_back(v[0]);
  v.push_back(v[2]);
  EXPECT_EQ(names(v), "7 8 7 7 ");
}

TEST(SmallVector, CopiesAndMovesInlineAndHeapContents) {
  for (int n : {1, 2, 3, 7}) {
    Refs v;
    for (int i = 0; i < n; ++i) v.push_back(symbol(SymKind::kUnbackedInt, 900 + i));
    Refs copy(v);
    EXPECT_EQ(names(copy), names(v)) << n;
    Refs moved(std::move(copy));
    EXPECT_EQ(names(moved), names(v)) << n;
    EXPECT_TRUE(copy.empty()) << n;  // NOLINT(bugprone-use-after-move): moved-from is empty
    Refs assigned;
    assigned.push_back(integer(42));
    assigned = v;
    EXPECT_EQ(names(assigned), names(v)) << n;
    Refs move_assigned;
    move_assigned = std::move(assigned);
    EXPECT_EQ(names(move_assigned), names(v)) << n;
    copy = moved;  // a moved-from vector is usable again
    EXPECT_EQ(names(copy), names(v)) << n;
  }
}

TEST(SmallVector, EraseMovesTheTailDown) {
  Refs v;
  for (int i = 0; i < 6; ++i) v.push_back(integer(i));
  v.erase(v.begin() + 1, v.begin() + 3);
  EXPECT_EQ(names(v), "0 3 4 5 ");
  v.erase(v.begin(), v.end());
  EXPECT_TRUE(v.empty());
  v.push_back(integer(7));
  EXPECT_EQ(names(v), "7 ");
}

TEST(SmallVector, DestroysEveryElementOnce) {
  ASSERT_EQ(Counted::live, 0);
  {
    SmallVector<Counted, 2> inline_only{Counted(1), Counted(2)};
    SmallVector<Counted, 2> on_heap{Counted(1), Counted(2), Counted(3), Counted(4), Counted(5)};
    SmallVector<Counted, 2> copy = on_heap;
    on_heap.erase(on_heap.begin(), on_heap.begin() + 2);
    EXPECT_EQ(on_heap[0].value, 3);
    EXPECT_EQ(Counted::live, 2 + 3 + 5);
    SmallVector<Counted, 2> moved = std::move(copy);
    inline_only = std::move(moved);
    EXPECT_EQ(Counted::live, 3 + 5);
    inline_only.clear();
    EXPECT_EQ(Counted::live, 3);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(NodeMemo, FindsWhatWasStoredBeforeAndAfterSpilling) {
  ASSERT_EQ(Counted::live, 0);
  {
    NodeMemo<Counted> memo;
    std::vector<ExprRef> keys;
    for (int i = 0; i < 40; ++i) keys.push_back(integer(1000 + i));
    for (int i = 0; i < 40; ++i) {
      EXPECT_EQ(memo.find(keys[i].get()), nullptr) << i;
      memo.emplace(keys[i].get(), Counted(i));
      for (int j = 0; j <= i; ++j) {
        const Counted* hit = memo.find(keys[j].get());
        ASSERT_NE(hit, nullptr) << i << " " << j;
        EXPECT_EQ(hit->value, j);
      }
      EXPECT_EQ(Counted::live, i + 1);  // the inline slots' values moved, not copied, on spilling
    }
  }
  EXPECT_EQ(Counted::live, 0);
}

}  // namespace
}  // namespace sf::sym
