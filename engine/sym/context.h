// Internal: the hash-consing arena behind the factories in make.h. Not for general use.
#pragma once

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
  static bool same_shape(const Expr* a, const Expr* b);

 private:
  Context();
  struct Table;
  std::unique_ptr<Table> table_;
};

}  // namespace sf::sym
