// Size-oblivious, static layout predicates (no guards, no data-dependent errors).
#include "engine/shape_env/contiguity.h"

#include <algorithm>
#include <numeric>

namespace sf {

namespace {

// Statically decides a boolean with size-oblivious ranges; nullopt when undecidable.
std::optional<bool> decide(const ShapeEnv& env, const SymBool& b) {
  if (auto c = b.maybe_as_bool()) return *c;
  StaticOptions opts;
  opts.size_oblivious = true;
  std::optional<ExprRef> st = env.maybe_evaluate_static(b.expr(), opts);
  if (!st) return std::nullopt;
  return (*st)->bool_value();
}

bool known(const ShapeEnv& env, const SymBool& b) { return decide(env, b).value_or(false); }

// Strides are the running product of sizes along `order` (innermost first). Like upstream, the
// product may be taken plainly or with Max(size, 1) (how contiguous strides are made for sizes
// that may be 0); either matches. Size-1 dims take any stride, but still enter the products: a
// size learned to be 1 after the strides were made (u0, from a later check(u0 == 1)) is a factor
// Max(1, u0) of the outer strides, which only the product with that factor matches (a size-like
// u0 is never replaced by 1, so nothing folds it away).
bool dense_in_order(const ShapeEnv& env, const std::vector<SymInt>& sizes,
                    const std::vector<SymInt>& strides, const std::vector<size_t>& order) {
  SymInt plain = 1, clamped = 1;
  for (size_t d : order) {
    bool any_stride = known(env, sym_eq(sizes[d], 1));
    if (!any_stride && !known(env, sym_eq(strides[d], plain)) &&
        !known(env, sym_eq(strides[d], clamped))) {
      return false;
    }
    plain = plain * sizes[d];
    clamped = clamped * sym_max(sizes[d], 1);
  }
  return true;
}

}  // namespace

bool is_non_overlapping_and_dense(const ShapeEnv& env, const std::vector<SymInt>& sizes,
                                  const std::vector<SymInt>& strides) {
  size_t n = sizes.size();
  if (n == 1) return known(env, sym_lt(sizes[0], 2)) || known(env, sym_eq(strides[0], 1));
  if (is_contiguous(env, sizes, strides)) return true;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Insertion sort by stride; an undecidable comparison means we cannot prove density.
  for (size_t i = 1; i < n; ++i) {
    for (size_t j = i; j > 0; --j) {
      const SymInt& a = strides[order[j - 1]];
      const SymInt& b = strides[order[j]];
      std::optional<bool> gt = decide(env, sym_gt(a, b));
      if (!gt) {
        // Size-1 dims do not constrain the layout, so their strides need not be ordered.
        if (known(env, sym_eq(sizes[order[j - 1]], 1)) || known(env, sym_eq(sizes[order[j]], 1))) {
          break;
        }
        return false;
      }
      if (!*gt) break;
      std::swap(order[j - 1], order[j]);
    }
  }
  return dense_in_order(env, sizes, strides, order);
}

bool is_contiguous(const ShapeEnv& env, const std::vector<SymInt>& sizes,
                   const std::vector<SymInt>& strides) {
  std::vector<size_t> order;
  for (size_t i = sizes.size(); i-- > 0;) order.push_back(i);
  return dense_in_order(env, sizes, strides, order);
}

}  // namespace sf
