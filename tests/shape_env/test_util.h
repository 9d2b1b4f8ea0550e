// Helpers shared by ShapeEnv tests: symbol shorthands and a tensor stand-in.
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"

namespace sf::sym {
// Lets GoogleTest print expressions in failure messages instead of raw bytes.
inline void PrintTo(const ExprRef& e, std::ostream* os) { *os << (e ? e->str() : "null"); }
}  // namespace sf::sym

namespace sf::testing {

inline ExprRef I(int64_t v) { return sym::integer(v); }
inline ExprRef U(int64_t i) { return sym::symbol(sym::SymKind::kUnbackedInt, i); }

inline Value tensor(std::vector<SymInt> sizes) {
  return Value::tensor(TensorMeta::contiguous(sizes));
}
inline Value tensor(std::vector<SymInt> sizes, std::vector<SymInt> strides, SymInt offset = 0) {
  return Value::tensor(std::make_shared<TensorMeta>(sizes, strides, offset));
}

}  // namespace sf::testing
