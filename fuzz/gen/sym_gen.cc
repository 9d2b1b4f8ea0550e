// Expression generator: weighted node choice with repair (a factory that rejects its operands,
// e.g. a constant zero divisor, falls back to a valid expression instead of discarding).
#include "fuzz/gen/sym_gen.h"

#include <functional>

#include "engine/base/errors.h"
#include "engine/sym/make.h"

namespace sf::fuzz {

using sym::ExprRef;
using sym::ExtInt;
using sym::ValueRange;

namespace {

ExprRef repaired(const std::function<ExprRef()>& build, const ExprRef& fallback) {
  try {
    return build();
  } catch (const UserError&) {
    return fallback;
  }
}

ExtInt gen_bound(FuzzSource& src, bool upper) {
  if (src.chance(1, 4)) return upper ? ExtInt::pos_inf() : ExtInt::neg_inf();
  return ExtInt(src.range(-8, 8));
}

}  // namespace

SymPool gen_symbol_pool(FuzzSource& src) {
  SymPool pool;
  int n = static_cast<int>(src.range(1, 4));
  for (int i = 0; i < n; ++i) {
    bool unbacked = src.chance(2, 3);
    ExprRef s = sym::symbol(unbacked ? sym::SymKind::kUnbackedInt : sym::SymKind::kSize, i);
    ExtInt lo = gen_bound(src, false), hi = gen_bound(src, true);
    if (hi < lo) std::swap(lo, hi);
    if (lo.is_pos_inf()) lo = ExtInt::neg_inf();
    if (hi.is_neg_inf()) hi = ExtInt::pos_inf();
    pool.symbols.push_back(s);
    pool.ranges.ranges.emplace(s, ValueRange::ints(lo, hi));
  }
  return pool;
}

ExprRef gen_int_expr(FuzzSource& src, const SymPool& pool, int depth) {
  if (depth <= 0 || src.chance(1, 6)) {
    if (src.chance(1, 3)) return sym::integer(src.range(-6, 6));
    return pool.symbols[src.pick(pool.symbols.size())];
  }
  // add sub mul floordiv mod max min neg where pow clean_div
  size_t op = src.weighted({4, 3, 3, 3, 3, 2, 2, 1, 1, 1, 1});
  ExprRef a = gen_int_expr(src, pool, depth - 1);
  if (op == 7) return sym::neg(a);
  if (op == 9) return repaired([&] { return sym::pow(a, src.range(2, 3)); }, a);
  ExprRef b = gen_int_expr(src, pool, depth - 1);
  switch (op) {
    case 0:
      return repaired([&] { return sym::add(a, b); }, a);
    case 1:
      return repaired([&] { return sym::sub(a, b); }, a);
    case 2:
      return repaired([&] { return sym::mul(a, b); }, a);
    case 3:
      return repaired([&] { return sym::floordiv(a, b); }, a);
    case 4:
      return repaired([&] { return sym::mod(a, b); }, a);
    case 5:
      return sym::max(a, b);
    case 6:
      return sym::min(a, b);
    case 8:
      return sym::where(gen_bool_expr(src, pool, depth - 1), a, b);
    default:
      return repaired([&] { return sym::clean_div(a, b); }, a);
  }
}

ExprRef gen_bool_expr(FuzzSource& src, const SymPool& pool, int depth) {
  size_t op = depth <= 0 ? 0 : src.weighted({6, 2, 2, 1});
  switch (op) {
    case 0: {
      ExprRef a = gen_int_expr(src, pool, depth - 1), b = gen_int_expr(src, pool, depth - 1);
      switch (src.pick(6)) {
        case 0:
          return sym::eq(a, b);
        case 1:
          return sym::ne(a, b);
        case 2:
          return sym::lt(a, b);
        case 3:
          return sym::le(a, b);
        case 4:
          return sym::gt(a, b);
        default:
          return sym::ge(a, b);
      }
    }
    case 1:
      return sym::and_(gen_bool_expr(src, pool, depth - 1), gen_bool_expr(src, pool, depth - 1));
    case 2:
      return sym::or_(gen_bool_expr(src, pool, depth - 1), gen_bool_expr(src, pool, depth - 1));
    default:
      return sym::not_(gen_bool_expr(src, pool, depth - 1));
  }
}

sym::Assignment gen_assignment(FuzzSource& src, const SymPool& pool) {
  sym::Assignment values;
  for (const ExprRef& s : pool.symbols) {
    ValueRange r = pool.ranges.symbol_range(s);
    int64_t lo = r.lo().is_finite() ? r.lo().value() : -kSampleBound;
    int64_t hi = r.hi().is_finite() ? r.hi().value() : kSampleBound;
    if (!r.lo().is_finite() && hi < lo) lo = hi - kSampleBound;
    if (!r.hi().is_finite() && hi < lo) hi = lo + kSampleBound;
    // Favour the edges, where off-by-one rules break.
    int64_t v = src.chance(1, 3) ? (src.chance(1, 2) ? lo : hi) : src.range(lo, hi);
    if (src.chance(1, 4)) v = std::max(lo, std::min(hi, src.range(-3, 3)));
    values.emplace(s, sym::Concrete::of_int(v));
  }
  return values;
}

}  // namespace sf::fuzz
