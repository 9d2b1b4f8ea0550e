// Input data generators. The algorithms are part of the file format (corpus/README.md, "Input
// data"): changing one silently changes every stored reproducer, so tests pin golden values.
#include "engine/program/input_data.h"

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "engine/base/errors.h"
#include "engine/program/parser.h"

namespace sf::program {

namespace {

constexpr double kTwoPow53 = 9007199254740992.0;
constexpr double kTwoPi = 6.283185307179586476925286766559;

// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and its output is fixed by five constants.
class SplitMix64 {
 public:
  explicit SplitMix64(int64_t seed) : state_(static_cast<uint64_t>(seed)) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // A double in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) / kTwoPow53; }

 private:
  uint64_t state_;
};

[[noreturn]] void invalid(const InputDecl& d, const std::string& message) {
  std::string where =
      d.loc.line > 0 ? "line " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": "
                     : "";
  throw UserError(UserErrorKind::kInvalidProgram, where + "input '" + d.name + "': " + message);
}

std::string show(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

int64_t exact_int(const InputDecl& d, double v) {
  if (!(v == std::trunc(v)) || std::abs(v) > kTwoPow53) {
    invalid(d, "value " + show(v) + " is not an integer within 2^53 (i64 data)");
  }
  return static_cast<int64_t>(v);
}

int64_t exact_bool(const InputDecl& d, double v) {
  if (v != 0 && v != 1) invalid(d, "value " + show(v) + " is not a bool (use 0/1 or True/False)");
  return static_cast<int64_t>(v);
}

float exact_f32(const InputDecl& d, double v) {
  if (std::isfinite(v) && std::abs(v) > FLT_MAX) invalid(d, "value " + show(v) + " overflows f32");
  return static_cast<float>(v);
}

// Stores element i of `t` from a value given as a double (literals, full).
void store_value(const InputDecl& d, HostTensor& t, int64_t i, double v) {
  switch (t.dtype) {
    case DType::kBool:
      t.ints[i] = exact_bool(d, v);
      return;
    case DType::kInt64:
      t.ints[i] = exact_int(d, v);
      return;
    case DType::kFloat32:
      t.floats[i] = exact_f32(d, v);
      return;
  }
}

// Stores element i of `t` from an integer (randint, randbool, arange).
void store_int(HostTensor& t, int64_t i, int64_t v) {
  switch (t.dtype) {
    case DType::kBool:
      t.ints[i] = v != 0;
      return;
    case DType::kInt64:
      t.ints[i] = v;
      return;
    case DType::kFloat32:
      t.floats[i] = static_cast<float>(v);
      return;
  }
}

HostValue scalar_value(const InputDecl& d) {
  if (d.data.kind != DataSpec::Kind::kLiteral || d.data.literal.size() != 1) {
    invalid(d, "a scalar input needs exactly one literal value");
  }
  double v = d.data.literal[0];
  switch (d.dtype) {
    case DType::kBool:
      return HostValue::of_bool(exact_bool(d, v) != 0);
    case DType::kInt64:
      return HostValue::of_int(exact_int(d, v));
    case DType::kFloat32:
      return HostValue::of_float(v);  // Python floats are doubles; kept unrounded
  }
  invalid(d, "bad dtype");
}

int64_t checked_numel(const InputDecl& d) {
  if (d.sizes.size() > static_cast<size_t>(kMaxRank)) invalid(d, "rank above the limit of 8");
  int64_t product = 1;
  bool empty = false;
  for (int64_t s : d.sizes) {
    if (s < 0) invalid(d, "negative size " + std::to_string(s));
    if (s > kMaxNumel || (s > 0 && product > kMaxNumel / s)) {
      invalid(d, "more than 2^24 elements");
    }
    if (s == 0) empty = true;
    if (s > 0) product *= s;
  }
  return empty ? 0 : product;
}

}  // namespace

HostValue make_input_value(const InputDecl& d) {
  if (!d.is_tensor) return scalar_value(d);
  int64_t n = checked_numel(d);
  HostTensor t = HostTensor::zeros(d.dtype, d.sizes);
  const DataSpec& s = d.data;
  SplitMix64 rng(s.seed);
  switch (s.kind) {
    case DataSpec::Kind::kLiteral:
      if (static_cast<int64_t>(s.literal.size()) != n) {
        invalid(d, "data has " + std::to_string(s.literal.size()) + " values but the shape has " +
                       std::to_string(n) + " elements");
      }
      for (int64_t i = 0; i < n; ++i) store_value(d, t, i, s.literal[i]);
      break;
    case DataSpec::Kind::kRandn:
      if (d.dtype != DType::kFloat32) invalid(d, "randn() is only for f32 inputs");
      for (int64_t i = 0; i < n; ++i) {
        uint64_t a = rng.next();
        uint64_t b = rng.next();
        double u1 = static_cast<double>((a >> 11) + 1) / kTwoPow53;  // (0, 1]: log is finite
        double u2 = static_cast<double>(b >> 11) / kTwoPow53;
        t.floats[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2));
      }
      break;
    case DataSpec::Kind::kRandint: {
      if (s.high <= s.low) invalid(d, "randint(LOW, HIGH) needs LOW < HIGH");
      // Unsigned arithmetic: HIGH - LOW may exceed INT64_MAX.
      uint64_t range = static_cast<uint64_t>(s.high) - static_cast<uint64_t>(s.low);
      for (int64_t i = 0; i < n; ++i) {
        store_int(t, i, static_cast<int64_t>(static_cast<uint64_t>(s.low) + rng.next() % range));
      }
      break;
    }
    case DataSpec::Kind::kRandbool:
      if (!(s.p >= 0 && s.p <= 1)) invalid(d, "randbool's probability must be in [0, 1]");
      for (int64_t i = 0; i < n; ++i) store_int(t, i, rng.unit() < s.p ? 1 : 0);
      break;
    case DataSpec::Kind::kArange:
      for (int64_t i = 0; i < n; ++i) store_int(t, i, d.dtype == DType::kBool ? i % 2 : i);
      break;
    case DataSpec::Kind::kFull:
      for (int64_t i = 0; i < n; ++i) store_value(d, t, i, s.value);
      break;
  }
  return HostValue::of_tensor(std::move(t));
}

std::map<std::string, HostValue> make_input_values(const Program& program) {
  std::map<std::string, HostValue> out;
  for (const InputDecl& d : program.inputs) {
    if (out.count(d.name) != 0) invalid(d, "duplicate input name");
    out.emplace(d.name, make_input_value(d));
  }
  return out;
}

}  // namespace sf::program
