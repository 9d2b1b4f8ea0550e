// Immutable, hash-consed symbolic expressions: pointer equality is structural equality.
// Nodes are created only through the factories in make.h, which keep them in canonical form.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sf::sym {

enum class ExprKind : uint8_t {
#define SYM_NODE(Name) k##Name,
#include "engine/sym/nodes.def"
};

// The value type an expression denotes.
enum class ExprType : uint8_t { kInt, kFloat, kBool };

// Symbol kinds and their name prefixes (spec §1.1). Unbacked bools are kUnbackedInt symbols.
enum class SymKind : uint8_t { kSize, kFloat, kUnbackedInt, kUnbackedFloat };
const char* sym_kind_prefix(SymKind kind);

class ExprRef;

// Division, modulo, min/max, relations, where, truncation and the connectives: the kinds the
// simplifier rewrites with ranges (Simplifier::apply_rule has a rule for each). Every other kind
// is canonical once its arguments are. Exhaustive, so a new kind must be placed here.
constexpr bool has_simplifier_rule(ExprKind k) {
  switch (k) {
    case ExprKind::kFloorDiv:
    case ExprKind::kCleanDiv:
    case ExprKind::kMod:
    case ExprKind::kMax:
    case ExprKind::kMin:
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kLe:
    case ExprKind::kWhere:
    case ExprKind::kTruncToInt:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      return true;
    case ExprKind::kInteger:
    case ExprKind::kFloat:
    case ExprKind::kBoolConst:
    case ExprKind::kSymbol:
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kPow:
    case ExprKind::kToFloat:
    case ExprKind::kTrueDiv:
      return false;
  }
  return false;
}

// Resource limits on a single expression, enforced when a node is created (Context::intern):
// a node beyond one of them is never built, and its factory raises UserError(kTooComplex).
//
// Size: every walker that is not memoized (the printer, compare, has_symbol, the evaluator,
// value-range bounds, the simplifier's rules) costs the tree size, not the DAG size, and a
// chain of statements that each use the previous value twice doubles it per statement
// (m = max(m, n); n = min(m, n)). 10,000 nodes keep str() under ~100 KB and one walk well
// under a millisecond; generated and corpus programs stay far below (the largest expression of
// 600 generated programs and the corpus has 33 nodes and depth 11).
constexpr uint32_t kMaxExprSize = 10000;
// Depth: the walkers above recurse once per level, and the deepest frames (the evaluator's)
// take ~2 KB, so the default 8 MB stack overflows near 4,500 levels (a chain of ~2,200
// `a = -(a // 3)` statements). At 1,000 every oracle still runs within a 2 MB stack.
constexpr uint32_t kMaxExprDepth = 1000;
// Pow exponent: the evaluator, value ranges and the Z3 encoding multiply `exponent` times,
// and any integer power beyond 63 of a value other than -1, 0 or 1 overflows int64 anyway.
constexpr int64_t kMaxPowExponent = 64;

class Expr {
 public:
  ExprKind kind() const { return kind_; }
  ExprType type() const { return type_; }
  bool is_int() const { return type_ == ExprType::kInt; }
  bool is_float() const { return type_ == ExprType::kFloat; }
  bool is_bool() const { return type_ == ExprType::kBool; }
  bool is(ExprKind k) const { return kind_ == k; }
  bool is_number() const { return kind_ == ExprKind::kInteger || kind_ == ExprKind::kFloat; }
  bool is_relation() const {
    return kind_ == ExprKind::kEq || kind_ == ExprKind::kNe || kind_ == ExprKind::kLt ||
           kind_ == ExprKind::kLe;
  }

  // Payloads. Integer: int_value(); BoolConst: bool_value(); Float: float_value();
  // Symbol: sym_kind() + sym_index(); Pow: args()[0] ** pow_exponent().
  int64_t int_value() const { return ival_; }
  bool bool_value() const { return ival_ != 0; }
  double float_value() const { return fval_; }
  SymKind sym_kind() const { return static_cast<SymKind>(ival_ >> 56); }
  int64_t sym_index() const { return ival_ & ((int64_t{1} << 56) - 1); }
  int64_t pow_exponent() const { return ival_; }
  bool is_unbacked_symbol() const {
    return kind_ == ExprKind::kSymbol &&
           (sym_kind() == SymKind::kUnbackedInt || sym_kind() == SymKind::kUnbackedFloat);
  }
  bool is_backed_symbol() const {
    return kind_ == ExprKind::kSymbol &&
           (sym_kind() == SymKind::kSize || sym_kind() == SymKind::kFloat);
  }

  const std::vector<ExprRef>& args() const { return args_; }
  const ExprRef& arg(size_t i) const;
  size_t num_args() const;

  // Deterministic structural hash (independent of addresses and creation order).
  uint64_t hash() const { return hash_; }
  // Number of nodes in the tree (shared subtrees counted each time). At most kMaxExprSize.
  uint32_t size() const { return size_; }
  // Nodes on the longest root-to-leaf path (a leaf has depth 1). At most kMaxExprDepth.
  uint32_t depth() const { return depth_; }
  // True when the tree contains no Symbol.
  bool is_ground() const { return !has_symbols_; }
  // True when the tree contains a node the simplifier has rules for (see
  // has_simplifier_rule); without one the expression is canonical by construction.
  bool has_rule_kinds() const { return has_rule_kinds_; }

  std::string str() const;

 private:
  friend class ExprRef;
  friend class Context;
  Expr() = default;

  mutable uint32_t refcount_ = 0;
  ExprKind kind_ = ExprKind::kInteger;
  ExprType type_ = ExprType::kInt;
  bool has_symbols_ = false;
  bool has_rule_kinds_ = false;
  uint32_t size_ = 1;
  uint32_t depth_ = 1;
  uint64_t hash_ = 0;
  int64_t ival_ = 0;
  double fval_ = 0.0;
  std::vector<ExprRef> args_;
};

// Intrusive, refcounted handle. Null only when default-constructed.
class ExprRef {
 public:
  ExprRef() = default;
  ExprRef(const Expr* e) : e_(e) { retain(); }  // NOLINT: implicit by design
  ExprRef(const ExprRef& o) : e_(o.e_) { retain(); }
  ExprRef(ExprRef&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  ExprRef& operator=(const ExprRef& o) {
    if (e_ != o.e_) {
      o.retain();
      release();
      e_ = o.e_;
    }
    return *this;
  }
  ExprRef& operator=(ExprRef&& o) noexcept {
    if (this != &o) {
      release();
      e_ = o.e_;
      o.e_ = nullptr;
    }
    return *this;
  }
  ~ExprRef() { release(); }

  const Expr* get() const { return e_; }
  const Expr* operator->() const { return e_; }
  const Expr& operator*() const { return *e_; }
  explicit operator bool() const { return e_ != nullptr; }
  bool operator==(const ExprRef& o) const { return e_ == o.e_; }
  bool operator!=(const ExprRef& o) const { return e_ != o.e_; }

 private:
  void retain() const {
    if (e_) ++e_->refcount_;
  }
  friend class Context;
  // Inline: it runs for every handle destroyed; only the last reference goes out of line.
  void release() {
    if (e_ && --e_->refcount_ == 0) destroy(e_);
    e_ = nullptr;
  }
  static void destroy(const Expr* e);
  const Expr* e_ = nullptr;
};

// Out of line: vector<ExprRef>::size needs ExprRef complete (clang with libstdc++ 12).
inline const ExprRef& Expr::arg(size_t i) const { return args_[i]; }
inline size_t Expr::num_args() const { return args_.size(); }

// Total, deterministic structural order used to canonicalize commutative operands.
// Returns <0, 0, >0. Numbers < symbols (by kind, then index) < compound nodes.
int compare(const ExprRef& a, const ExprRef& b);
struct ExprLess {
  bool operator()(const ExprRef& a, const ExprRef& b) const {
    const Expr* x = a.get();
    const Expr* y = b.get();
    // Two symbols (the keys of the ShapeEnv's ordered tables) inline, as compare orders them.
    if (x->is(ExprKind::kSymbol) && y->is(ExprKind::kSymbol)) {
      if (x->sym_kind() != y->sym_kind()) {
        return static_cast<int>(x->sym_kind()) < static_cast<int>(y->sym_kind());
      }
      return x->sym_index() < y->sym_index();
    }
    return compare(a, b) < 0;
  }
};
// Like ExprLess, but a null ExprRef (e.g. the "None" assert bucket) sorts first.
struct ExprLessNullFirst {
  bool operator()(const ExprRef& a, const ExprRef& b) const {
    if (!a || !b) return !a && b;
    return compare(a, b) < 0;
  }
};
struct ExprHash {
  size_t operator()(const ExprRef& e) const { return e ? e->hash() : 0; }
};

// Number of live hash-consed nodes (for leak tests and memory reports).
size_t live_expr_count();
// How far the farthest node sits from its first slot in the intern table (a test of its spread).
size_t intern_table_longest_probe();

}  // namespace sf::sym
