// Value comparison for the differential oracles.
#include "oracles/differential.h"

#include <cmath>

namespace sf::oracles {

namespace {

bool close(double a, double b, const Tolerance& tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b);
}

std::optional<std::string> compare(const program::HostValue& e, const program::HostValue& a,
                                   const Tolerance& tol, const std::string& where) {
  using K = program::HostValue::Kind;
  if (e.kind != a.kind) return where + ": expected " + e.str() + ", got " + a.str();
  switch (e.kind) {
    case K::kNone:
      return std::nullopt;
    case K::kInt:
      if (e.i != a.i) return where + ": " + std::to_string(e.i) + " vs " + std::to_string(a.i);
      return std::nullopt;
    case K::kBool:
      if (e.b != a.b) return where + ": " + e.str() + " vs " + a.str();
      return std::nullopt;
    case K::kFloat:
      if (!close(e.f, a.f, tol)) return where + ": " + e.str() + " vs " + a.str();
      return std::nullopt;
    case K::kTuple:
      if (e.elems.size() != a.elems.size()) return where + ": tuple sizes differ";
      for (size_t i = 0; i < e.elems.size(); ++i) {
        if (auto d = compare(e.elems[i], a.elems[i], tol, where + "[" + std::to_string(i) + "]"))
          return d;
      }
      return std::nullopt;
    case K::kTensor: {
      const program::HostTensor& x = e.tensor;
      const program::HostTensor& y = a.tensor;
      if (x.dtype != y.dtype || x.sizes != y.sizes) {
        return where + ": expected " + x.str(4) + ", got " + y.str(4);
      }
      for (int64_t k = 0; k < x.numel(); ++k) {
        bool same = x.is_float() ? close(x.floats[k], y.floats[k], tol) : x.ints[k] == y.ints[k];
        if (!same) {
          return where + ": element " + std::to_string(k) + " " + std::to_string(x.at_double(k)) +
                 " vs " + std::to_string(y.at_double(k)) + " (expected " + x.str(8) + ", got " +
                 y.str(8) + ")";
        }
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> compare_values(const std::vector<program::HostValue>& expected,
                                          const std::vector<program::HostValue>& actual,
                                          const Tolerance& tol) {
  if (expected.size() != actual.size()) {
    return "expected " + std::to_string(expected.size()) + " outputs, got " +
           std::to_string(actual.size());
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (auto d = compare(expected[i], actual[i], tol, "output " + std::to_string(i))) return d;
  }
  return std::nullopt;
}

}  // namespace sf::oracles
