// Internal: the hash-consing arena behind the factories in make.h. Not for general use.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/sym/expr.h"

namespace sf::sym {

class Context {
 public:
  static Context& get();
  // Returns the unique node with this structure, creating it if needed.
  ExprRef intern(ExprKind kind, ExprType type, int64_t ival, double fval,
                 std::vector<ExprRef> args);
  void destroy(const Expr* e);
  size_t live_count() const;
  // How far the farthest node sits from its first slot (a diagnostic for the table's spread).
  size_t longest_probe() const;
  static bool same_shape(const Expr* a, const Expr* b);

  // The constants every expression uses, made once (interning them again on every use was a
  // hash lookup each): True, False and the integers in [kMinSmallInt, kMaxSmallInt].
  static constexpr int64_t kMinSmallInt = -16, kMaxSmallInt = 64;
  const ExprRef& boolean(bool v) const { return bools_[v ? 1 : 0]; }
  const ExprRef* small_integer(int64_t v) const {
    return v >= kMinSmallInt && v <= kMaxSmallInt ? &small_ints_[v - kMinSmallInt] : nullptr;
  }

 private:
  Context();
  struct Table;
  std::unique_ptr<Table> table_;
  ExprRef bools_[2];
  std::vector<ExprRef> small_ints_;
};

}  // namespace sf::sym
