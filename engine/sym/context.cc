// The hash-consing arena: one canonical node per structure, freed when its last handle drops.
// Single-threaded by design (campaigns scale out with processes, not threads).
#include "engine/sym/context.h"

#include <cstring>
#include <unordered_set>

#include "engine/base/check.h"

namespace sf::sym {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

struct NodeHash {
  size_t operator()(const Expr* e) const { return e->hash(); }
};

// Structural equality of a candidate against an interned node: children are already canonical,
// so comparing their addresses is enough.
struct NodeEq {
  bool operator()(const Expr* a, const Expr* b) const { return Context::same_shape(a, b); }
};

}  // namespace

struct Context::Table {
  std::unordered_set<const Expr*, NodeHash, NodeEq> nodes;
};

Context& Context::get() {
  static Context* ctx = new Context();  // never destroyed: nodes may outlive static destructors
  return *ctx;
}

Context::Context() : table_(new Table) { table_->nodes.reserve(1 << 12); }

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
  Expr* probe = new Expr();
  probe->kind_ = kind;
  probe->type_ = type;
  probe->ival_ = ival;
  probe->fval_ = fval;
  uint64_t h = mix(static_cast<uint64_t>(kind) + 1, static_cast<uint64_t>(type));
  h = mix(h, static_cast<uint64_t>(ival));
  uint64_t fbits;
  std::memcpy(&fbits, &fval, sizeof(fbits));
  h = mix(h, fbits);
  uint64_t size = 1;
  bool has_symbols = kind == ExprKind::kSymbol;
  for (const ExprRef& a : args) {
    SF_CHECK(a) << "null argument to " << static_cast<int>(kind);
    h = mix(h, a->hash());
    size += a->size();
    has_symbols = has_symbols || a->has_symbols_;
  }
  probe->hash_ = h;
  probe->size_ = static_cast<uint32_t>(size > 0xffffffffULL ? 0xffffffffULL : size);
  probe->has_symbols_ = has_symbols;
  probe->args_ = std::move(args);
  auto it = table_->nodes.find(probe);
  if (it != table_->nodes.end()) {
    probe->args_.clear();
    delete probe;
    return ExprRef(*it);
  }
  table_->nodes.insert(probe);
  return ExprRef(probe);
}

void Context::destroy(const Expr* e) {
  // Iterative teardown: dropping a node may drop its children; a worklist avoids deep recursion.
  std::vector<const Expr*> work{e};
  while (!work.empty()) {
    const Expr* cur = work.back();
    work.pop_back();
    table_->nodes.erase(cur);
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

size_t Context::live_count() const { return table_->nodes.size(); }

void ExprRef::release() {
  if (e_ && --e_->refcount_ == 0) Context::get().destroy(e_);
  e_ = nullptr;
}

size_t live_expr_count() { return Context::get().live_count(); }

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
