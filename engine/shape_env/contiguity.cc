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

}  // namespace

bool is_non_overlapping_and_dense(const ShapeEnv& env, const std::vector<SymInt>& sizes,
                                  const std::vector<SymInt>& strides) {
  size_t n = sizes.size();
  if (n == 1) return known(env, sym_lt(sizes[0], 2)) || known(env, sym_eq(strides[0], 1));
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
  SymInt expected = 1;
  for (size_t d : order) {
    if (known(env, sym_eq(sizes[d], 1))) continue;
    if (!known(env, sym_eq(strides[d], expected))) return false;
    expected = expected * sizes[d];
  }
  return true;
}

bool is_contiguous(const ShapeEnv& env, const std::vector<SymInt>& sizes,
                   const std::vector<SymInt>& strides) {
  SymInt expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (known(env, sym_eq(sizes[i], 1))) continue;
    if (!known(env, sym_eq(strides[i], expected))) return false;
    expected = expected * sizes[i];
  }
  return true;
}

}  // namespace sf
