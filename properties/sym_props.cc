// RapidCheck properties of engine/sym: the simplifier preserves values wherever the input is
// defined and is idempotent; bounds (interval arithmetic) contain every sampled value.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "engine/base/errors.h"
#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "engine/sym/numeric.h"
#include "engine/sym/simplify.h"
#include "engine/sym/walk.h"
#include "fuzz/gen/sym_gen.h"

namespace sf {
namespace {

using fuzz::ByteSource;
using fuzz::SeedSource;
using sym::ExprRef;

uint64_t seed_of(const std::vector<uint8_t>& bytes) {
  return fuzz::fnv1a(bytes.data(), bytes.size());
}

std::string show(const sym::Assignment& a) {
  std::string out;
  for (const auto& [s, v] : a) out += s->str() + "=" + v.str() + " ";
  return out;
}

// Builds a random expression from the bytes (int or bool), or nullptr if the factories rejected
// every attempt (the generator repairs, so this is rare).
ExprRef build(const std::vector<uint8_t>& bytes, fuzz::SymPool* pool, bool as_bool) {
  ByteSource src(bytes);
  *pool = fuzz::gen_symbol_pool(src);
  return as_bool ? fuzz::gen_bool_expr(src, *pool, 3) : fuzz::gen_int_expr(src, *pool, 4);
}

void check_preserves_value(const std::vector<uint8_t>& bytes, bool as_bool) {
  fuzz::SymPool pool;
  ExprRef e = build(bytes, &pool, as_bool);
  ExprRef s = sym::simplify(e, pool.ranges);
  RC_LOG() << "expr: " << e->str() << "\nsimplified: " << s->str() << "\n";
  RC_CLASSIFY(sym::contains_kind(e, sym::ExprKind::kFloorDiv), "FloorDiv");
  RC_CLASSIFY(sym::contains_kind(e, sym::ExprKind::kMod), "Mod");
  RC_CLASSIFY(sym::contains_kind(e, sym::ExprKind::kMax), "Max");
  RC_CLASSIFY(e != s, "changed by simplify");
  SeedSource samples(seed_of(bytes));
  for (int k = 0; k < 16; ++k) {
    sym::Assignment a = fuzz::gen_assignment(samples, pool);
    sym::EvalResult before = sym::evaluate(e, a);
    if (!before.defined) continue;
    sym::EvalResult after = sym::evaluate(s, a);
    RC_LOG() << "assignment: " << show(a) << "\nbefore: " << before.value.str()
             << "\nafter: " << (after.defined ? after.value.str() : "undefined: " + after.why)
             << "\n";
    RC_ASSERT(after.defined);
    RC_ASSERT(after.value == before.value);
  }
}

RC_GTEST_PROP(SymProps, SimplifyPreservesIntValue, (const std::vector<uint8_t>& bytes)) {
  check_preserves_value(bytes, false);
}

RC_GTEST_PROP(SymProps, SimplifyPreservesBoolValue, (const std::vector<uint8_t>& bytes)) {
  check_preserves_value(bytes, true);
}

RC_GTEST_PROP(SymProps, SimplifyIsIdempotent, (const std::vector<uint8_t>& bytes, bool as_bool)) {
  fuzz::SymPool pool;
  ExprRef e = build(bytes, &pool, as_bool);
  ExprRef once = sym::simplify(e, pool.ranges);
  ExprRef twice = sym::simplify(once, pool.ranges);
  RC_LOG() << "expr: " << e->str() << "\nonce: " << once->str() << "\ntwice: " << twice->str()
           << "\n";
  RC_ASSERT(once == twice);
}

RC_GTEST_PROP(SymProps, BoundContainsEveryValue,
              (const std::vector<uint8_t>& bytes, bool as_bool)) {
  fuzz::SymPool pool;
  ExprRef e = build(bytes, &pool, as_bool);
  sym::ValueRange r = sym::bound_expr(e, pool.ranges);
  RC_LOG() << "expr: " << e->str() << "\nbound: " << r.str() << "\n";
  SeedSource samples(seed_of(bytes) ^ 0x5bd1e995);
  for (int k = 0; k < 16; ++k) {
    sym::Assignment a = fuzz::gen_assignment(samples, pool);
    sym::EvalResult v = sym::evaluate(e, a);
    if (!v.defined) continue;
    RC_LOG() << "assignment: " << show(a) << " value: " << v.value.str() << "\n";
    if (v.value.type == sym::ExprType::kBool) {
      RC_ASSERT((v.value.b ? r.can_be_true() : r.can_be_false()));
    } else {
      RC_ASSERT(r.contains(v.value.i));
    }
  }
}

// Each interval operation directly: x in A, y in B implies op(x, y) in op(A, B).
RC_GTEST_PROP(SymProps, IntervalOperationsAreSound, (const std::vector<uint8_t>& bytes)) {
  SeedSource src(seed_of(bytes));
  fuzz::SymPool pa = fuzz::gen_symbol_pool(src), pb = fuzz::gen_symbol_pool(src);
  sym::ValueRange A = pa.ranges.symbol_range(pa.symbols[0]);
  sym::ValueRange B = pb.ranges.symbol_range(pb.symbols[0]);
  RC_LOG() << "A=" << A.str() << " B=" << B.str() << "\n";
  for (int k = 0; k < 32; ++k) {
    int64_t x = fuzz::gen_assignment(src, pa).at(pa.symbols[0]).i;
    int64_t y = fuzz::gen_assignment(src, pb).at(pb.symbols[0]).i;
    RC_LOG() << "x=" << x << " y=" << y << "\n";
    RC_ASSERT(sym::vr_add(A, B).contains(x + y));
    RC_ASSERT(sym::vr_mul(A, B).contains(x * y));
    RC_ASSERT(sym::vr_neg(A).contains(-x));
    RC_ASSERT(sym::vr_max(A, B).contains(std::max(x, y)));
    RC_ASSERT(sym::vr_min(A, B).contains(std::min(x, y)));
    RC_ASSERT(sym::vr_pow(A, 2).contains(x * x));
    RC_ASSERT(sym::vr_pow(A, 3).contains(x * x * x));
    int64_t q, r;
    if (sym::py_floordiv(x, y, &q)) RC_ASSERT(sym::vr_floordiv(A, B).contains(q));
    if (sym::py_mod(x, y, &r)) RC_ASSERT(sym::vr_mod(A, B).contains(r));
    bool lt = x < y, le = x <= y, eq = x == y;
    RC_ASSERT((lt ? sym::vr_lt(A, B).can_be_true() : sym::vr_lt(A, B).can_be_false()));
    RC_ASSERT((le ? sym::vr_le(A, B).can_be_true() : sym::vr_le(A, B).can_be_false()));
    RC_ASSERT((eq ? sym::vr_eq(A, B).can_be_true() : sym::vr_eq(A, B).can_be_false()));
  }
}

}  // namespace
}  // namespace sf
