// Symbol naming, hints and the pending list.
#include "engine/shape_env/symbol_table.h"

#include "engine/base/sha256.h"
#include "engine/sym/make.h"

namespace sf {

namespace {
template <typename Map>
std::optional<int64_t> lookup(const Map& m, const ExprRef& s) {
  auto it = m.find(s);
  if (it == m.end()) return std::nullopt;
  return it->second;
}
}  // namespace

ExprRef SymbolTable::new_backed(const std::string& source, int64_t hint) {
  auto digest = sha256(source);
  uint64_t h = 0;
  for (int i = 0; i < 8; ++i) h = (h << 8) | digest[i];
  int64_t id = static_cast<int64_t>(h % 100);
  while (used_backed_ids_.count(id)) ++id;
  used_backed_ids_.insert(id);
  ExprRef s = sym::symbol(sym::SymKind::kSize, id);
  var_to_val_[s] = hint;
  return s;
}

ExprRef SymbolTable::new_unbacked(sym::SymKind kind) {
  int64_t index = kind == sym::SymKind::kUnbackedFloat ? unbacked_symfloat_counter_++
                                                       : unbacked_symint_counter_++;
  ExprRef s = sym::symbol(kind, index);
  if (ignore_fresh_) {
    unbound_by_design_.insert(s);
  } else {
    pending_.push_back(s);
  }
  return s;
}

void SymbolTable::add_source(const ExprRef& s, const std::string& source) {
  var_to_sources_[s].push_back(source);
}

std::optional<ExprRef> SymbolTable::duck(int64_t hint) const {
  auto it = val_to_var_.find(hint);
  if (it == val_to_var_.end()) return std::nullopt;
  return it->second;
}

void SymbolTable::mark_unbacked_input(const ExprRef& s, std::optional<int64_t> oblivious_hint) {
  unbacked_inputs_.insert(s);
  if (oblivious_hint) oblivious_var_to_val_[s] = *oblivious_hint;
}

std::optional<int64_t> SymbolTable::hint(const ExprRef& s) const { return lookup(var_to_val_, s); }

std::optional<int64_t> SymbolTable::real_value(const ExprRef& s) const {
  return lookup(unbacked_var_to_val_, s);
}

std::optional<int64_t> SymbolTable::oblivious_hint(const ExprRef& s) const {
  return lookup(oblivious_var_to_val_, s);
}

std::optional<int64_t> SymbolTable::known_value(const ExprRef& s) const {
  if (std::optional<int64_t> h = hint(s)) return h;
  return real_value(s);
}

std::vector<ExprRef> SymbolTable::take_pending() {
  std::vector<ExprRef> out;
  out.swap(pending_);
  return out;
}

void SymbolTable::discard_pending() {
  unbound_by_design_.insert(pending_.begin(), pending_.end());
  pending_.clear();
}

bool SymbolTable::set_ignore_fresh(bool on) {
  bool previous = ignore_fresh_;
  ignore_fresh_ = on;
  return previous;
}

}  // namespace sf
