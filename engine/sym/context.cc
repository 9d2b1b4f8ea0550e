// The hash-consing arena: one canonical node per structure, freed when its last handle drops.
// Single-threaded by design (campaigns scale out with processes, not threads).
#include "engine/sym/context.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/sym/slot_index.h"
#include "engine/sym/small_vector.h"

namespace sf::sym {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

const char* kind_name(ExprKind kind) {
  switch (kind) {
#define SYM_NODE(Name)    \
  case ExprKind::k##Name: \
    return #Name;
#include "engine/sym/nodes.def"
  }
  return "?";
}

// "2 operands (sizes 6141, 6141)": the operands by a measure, not printed (they may be large).
std::string operands(const std::vector<ExprRef>& args, const char* what,
                     uint32_t (Expr::*measure)() const) {
  std::string s = std::to_string(args.size()) + (args.size() == 1 ? " operand (" : " operands (");
  s += what;
  for (size_t i = 0; i < args.size() && i < 4; ++i) {
    s += (i == 0 ? " " : ", ") + std::to_string(((*args[i]).*measure)());
  }
  return s + (args.size() > 4 ? ", ...)" : ")");
}

// The limits of expr.h, checked before a node exists: nothing downstream ever sees a node
// beyond them.
void check_limits(ExprKind kind, int64_t ival, uint64_t size, uint64_t depth,
                  const std::vector<ExprRef>& args) {
  const char* op = kind_name(kind);  // a string only when a limit is hit: this runs per node
  if (size > kMaxExprSize) {
    throw_user_error(UserErrorKind::kTooComplex,
                     std::string(op) + " of " + operands(args, "sizes", &Expr::size) +
                         ": the program's symbolic expressions grew too large (this one would "
                         "have " +
                         std::to_string(size) + " nodes as a tree, the limit is " +
                         std::to_string(kMaxExprSize) +
                         "); each statement that uses earlier values more than once multiplies "
                         "their size (a chain of them doubles it every statement): shorten the "
                         "chain");
  }
  if (depth > kMaxExprDepth) {
    throw_user_error(UserErrorKind::kTooComplex,
                     std::string(op) + " of " + operands(args, "depths", &Expr::depth) +
                         ": the program's symbolic expressions nest too deeply (this one would "
                         "be " +
                         std::to_string(depth) + " levels deep, the limit is " +
                         std::to_string(kMaxExprDepth) +
                         "); each statement of a chain of symbolic values adds a level: shorten "
                         "the chain");
  }
  if (kind == ExprKind::kPow && ival > kMaxPowExponent) {
    throw_user_error(UserErrorKind::kTooComplex,
                     std::string(op) +
                         ": the program's symbolic expressions grew too large (a power with "
                         "exponent " +
                         std::to_string(ival) + ", the limit is " +
                         std::to_string(kMaxPowExponent) +
                         "); each statement that multiplies a value by itself raises the "
                         "exponent: shorten the chain");
  }
}

}  // namespace

// The interned nodes: an open-addressing table of (hash, node) slots, linear probing, at most
// half full. A probe compares the stored hashes before it touches a node, so a lookup reads one
// cache line of the table instead of chasing a bucket list through the nodes (at 10,000 ShapeEnv
// operations, misses in the node-based set were an eighth of the time). Erasing shifts the
// following run of the cluster back, so no tombstones build up.
struct Context::Table {
  struct Slot {
    uint64_t hash;
    const Expr* node;  // null: empty
  };
  std::vector<Slot> slots = std::vector<Slot>(1 << 12, Slot{0, nullptr});
  size_t count = 0;

  size_t mask() const { return slots.size() - 1; }
  // A node's first slot (not the hash's low bits: see slot_index).
  size_t home(uint64_t hash) const { return slot_index(hash, std::countr_zero(slots.size())); }

  const Expr* find(const Expr& probe) const {
    for (size_t i = home(probe.hash());; i = (i + 1) & mask()) {
      const Slot& s = slots[i];
      if (!s.node) return nullptr;
      if (s.hash == probe.hash() && Context::same_shape(s.node, &probe)) return s.node;
    }
  }

  void insert(const Expr* node) {  // node is not in the table
    if (2 * (count + 1) > slots.size()) grow();
    place(Slot{node->hash(), node});
    ++count;
  }

  void erase(const Expr* node) {
    size_t i = home(node->hash());
    while (slots[i].node != node) {
      SF_CHECK(slots[i].node) << "erasing a node the intern table does not hold";
      i = (i + 1) & mask();
    }
    // Backward-shift deletion: move each later slot of the cluster into the hole when the hole
    // lies on its probe path (between its home slot and where it sits).
    for (size_t j = (i + 1) & mask(); slots[j].node; j = (j + 1) & mask()) {
      size_t h = home(slots[j].hash);
      bool hole_on_path = i <= j ? (h <= i || h > j) : (h <= i && h > j);
      if (hole_on_path) {
        slots[i] = slots[j];
        i = j;
      }
    }
    slots[i] = Slot{0, nullptr};
    --count;
  }

  size_t longest_probe() const {  // the farthest any node sits from its first slot
    size_t longest = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].node) longest = std::max(longest, (i - home(slots[i].hash)) & mask());
    }
    return longest;
  }

 private:
  void place(Slot s) {
    size_t i = home(s.hash);
    while (slots[i].node) i = (i + 1) & mask();
    slots[i] = s;
  }
  void grow() {
    std::vector<Slot> old(slots.size() * 2, Slot{0, nullptr});
    old.swap(slots);
    for (const Slot& s : old) {
      if (s.node) place(s);
    }
  }
};

Context& Context::get() {
  static Context* ctx = new Context();  // never destroyed: nodes may outlive static destructors
  return *ctx;
}

Context::Context() : table_(new Table) {
  bools_[0] = intern(ExprKind::kBoolConst, ExprType::kBool, 0, 0.0, {});
  bools_[1] = intern(ExprKind::kBoolConst, ExprType::kBool, 1, 0.0, {});
  for (int64_t v = kMinSmallInt; v <= kMaxSmallInt; ++v) {
    small_ints_.push_back(intern(ExprKind::kInteger, ExprType::kInt, v, 0.0, {}));
  }
}

// Structural equality of a candidate against an interned node: children are already canonical,
// so comparing their addresses is enough.
bool Context::same_shape(const Expr* a, const Expr* b) {
  if (a->kind_ != b->kind_ || a->type_ != b->type_ || a->ival_ != b->ival_) return false;
  if (std::memcmp(&a->fval_, &b->fval_, sizeof(double)) != 0) return false;
  if (a->args_.size() != b->args_.size()) return false;
  for (size_t i = 0; i < a->args_.size(); ++i) {
    if (a->args_[i] != b->args_[i]) return false;
  }
  return true;
}

ExprRef Context::intern(ExprKind kind, ExprType type, int64_t ival, double fval,
                        std::vector<ExprRef> args) {
  uint64_t size = 1, depth = 0;
  for (const ExprRef& a : args) {
    SF_CHECK(a) << "null argument to " << kind_name(kind);
    size += a->size();
    depth = std::max<uint64_t>(depth, a->depth());
  }
  ++depth;
  check_limits(kind, ival, size, depth, args);
  // The probe lives on the stack: most nodes asked for already exist (the simplifier and the
  // meta functions rebuild the same small expressions over and over), and a hit allocates nothing.
  Expr probe;
  probe.kind_ = kind;
  probe.type_ = type;
  probe.ival_ = ival;
  probe.fval_ = fval;
  uint64_t h = mix(static_cast<uint64_t>(kind) + 1, static_cast<uint64_t>(type));
  h = mix(h, static_cast<uint64_t>(ival));
  uint64_t fbits;
  std::memcpy(&fbits, &fval, sizeof(fbits));
  h = mix(h, fbits);
  bool has_symbols = kind == ExprKind::kSymbol;
  bool has_rule_kinds = has_simplifier_rule(kind);
  for (const ExprRef& a : args) {
    h = mix(h, a->hash());
    has_symbols = has_symbols || a->has_symbols_;
    has_rule_kinds = has_rule_kinds || a->has_rule_kinds_;
  }
  probe.hash_ = h;
  probe.size_ = static_cast<uint32_t>(size);
  probe.depth_ = static_cast<uint32_t>(depth);
  probe.has_symbols_ = has_symbols;
  probe.has_rule_kinds_ = has_rule_kinds;
  probe.args_ = std::move(args);
  if (const Expr* found = table_->find(probe)) return ExprRef(found);
  Expr* node = new Expr(std::move(probe));
  table_->insert(node);
  return ExprRef(node);
}

void Context::destroy(const Expr* e) {
  // Iterative teardown: dropping a node may drop its children; a worklist avoids deep recursion.
  SmallVector<const Expr*, 16> work;
  work.push_back(e);
  while (!work.empty()) {
    const Expr* cur = work.back();
    work.pop_back();
    table_->erase(cur);
    std::vector<ExprRef> children = std::move(const_cast<Expr*>(cur)->args_);
    delete cur;
    for (ExprRef& c : children) {
      const Expr* raw = c.get();
      if (raw->refcount_ == 1) {
        // We hold the last reference: detach without recursive release and queue it.
        c.e_ = nullptr;
        raw->refcount_ = 0;
        work.push_back(raw);
      }
    }
  }
}

size_t Context::live_count() const { return table_->count; }
size_t Context::longest_probe() const { return table_->longest_probe(); }

void ExprRef::destroy(const Expr* e) { Context::get().destroy(e); }

size_t live_expr_count() { return Context::get().live_count(); }
size_t intern_table_longest_probe() { return Context::get().longest_probe(); }

const char* sym_kind_prefix(SymKind kind) {
  switch (kind) {
    case SymKind::kSize:
      return "s";
    case SymKind::kFloat:
      return "zf";
    case SymKind::kUnbackedInt:
      return "u";
    case SymKind::kUnbackedFloat:
      return "zuf";
  }
  return "?";
}

}  // namespace sf::sym
