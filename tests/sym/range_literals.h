// Short names for int64 limits and common ranges, shared by the interval tests.
#pragma once

#include <cstdint>
#include <limits>

#include "engine/sym/interval.h"

namespace sf::sym::test {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr double kInf = std::numeric_limits<double>::infinity();
inline const ExtInt kOo = ExtInt::pos_inf(), kNegOo = ExtInt::neg_inf();
inline const ValueRange kTrue = ValueRange::exact_bool(true),
                        kFalse = ValueRange::exact_bool(false);
inline const ValueRange kEither = ValueRange::unknown_bool();

inline ValueRange R(ExtInt lo, ExtInt hi) { return ValueRange::ints(lo, hi); }
inline ValueRange F(double lo, double hi) { return ValueRange::floats(lo, hi); }

}  // namespace sf::sym::test
