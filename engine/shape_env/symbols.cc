// Symbol creation: input symbols (backed, static, unbacked-for-input), fresh unbacked
// int/float/bool symbols, the pending list and the ignore-fresh scope (spec §2.1–§2.4, §2.20).
#include <atomic>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/sha256.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"

namespace sf {

namespace {
std::atomic<uint64_t> next_env_id{1};
}

const char* dim_dynamic_name(DimDynamic d) {
  switch (d) {
    case DimDynamic::kDynamic:
      return "dynamic";
    case DimDynamic::kDuck:
      return "duck";
    case DimDynamic::kStatic:
      return "static";
    case DimDynamic::kSizeLikeUnbacked:
      return "unbacked";
    case DimDynamic::kObliviousSize:
      return "oblivious";
  }
  return "?";
}

ShapeEnv::ShapeEnv(ShapeEnvSettings settings) : settings_(settings), id_(next_env_id++) {}

SymInt ShapeEnv::create_symbol(int64_t hint, const std::string& source, DimDynamic dynamic,
                               bool positive, StatefulSymbolicContext* context) {
  if (dynamic == DimDynamic::kStatic) return SymInt(hint);
  if (context) {  // a cache hit changes nothing, so it is not an event
    auto per_env = context->cache.find(id_);
    if (per_env != context->cache.end()) {
      auto hit = per_env->second.find(source);
      if (hit != per_env->second.end()) return SymInt(hit->second);
    }
  }
  Event ev{EventKind::kCreateSymbol};
  ev.ints = {hint, static_cast<int64_t>(dynamic)};
  ev.strings = {source};
  ev.flags = {positive};
  EventScope scope(this, ev);

  ExprRef result;
  if (dynamic == DimDynamic::kSizeLikeUnbacked || dynamic == DimDynamic::kObliviousSize) {
    // mark_unbacked input: a size-like unbacked symbol that the placeholder binds.
    result = create_unbacked_symint(source).expr();
    // A tensor dim is a size (size-like, >= 0); an int input may be any integer.
    if (positive) constrain_range_for_size(result);
    unbacked_inputs_.insert(result);
    var_to_sources_[result].push_back(source);
    if (dynamic == DimDynamic::kObliviousSize) oblivious_var_to_val_[result] = hint;
  } else if (positive && settings_.specialize_zero_one && (hint == 0 || hint == 1)) {
    result = sym::integer(hint);
  } else if (positive && settings_.duck_shape && dynamic == DimDynamic::kDuck &&
             val_to_var_.count(hint)) {
    result = val_to_var_[hint];
    var_to_sources_[result].push_back(source);
  } else {
    // Name: sha256(source) mod 100 with linear probing, so names survive input reordering.
    auto digest = sha256(source);
    uint64_t h = 0;
    for (int i = 0; i < 8; ++i) h = (h << 8) | digest[i];
    int64_t id = static_cast<int64_t>(h % 100);
    while (used_backed_ids_.count(id)) ++id;
    used_backed_ids_.insert(id);
    result = sym::symbol(sym::SymKind::kSize, id);
    var_to_val_[result] = hint;
    ValueRange vr = !positive                       ? ValueRange::unknown_int()
                    : settings_.specialize_zero_one ? ValueRange::ints(2, sym::ExtInt::pos_inf())
                                                    : ValueRange::ints(0, sym::ExtInt::pos_inf());
    var_to_range_[result] = vr;
    SF_CHECK(vr.contains(hint)) << "hint " << hint << " outside default range " << vr.str();
    var_to_sources_[result].push_back(source);
    if (positive && settings_.duck_shape) val_to_var_[hint] = result;
  }
  source_to_var_[source] = result;
  if (context) context->cache[id_][source] = result;
  return SymInt(result);
}

ExprRef ShapeEnv::new_unbacked_symbol(sym::SymKind kind, bool is_bool) {
  int64_t index = kind == sym::SymKind::kUnbackedFloat ? unbacked_symfloat_counter_++
                                                       : unbacked_symint_counter_++;
  ExprRef s = sym::symbol(kind, index);
  if (ignore_fresh_) {
    unbound_by_design_.insert(s);
  } else {
    pending_.push_back(s);
  }
  var_to_range_[s] = is_bool                                ? ValueRange::ints(0, 1)
                     : kind == sym::SymKind::kUnbackedFloat ? ValueRange::unknown_float()
                                                            : ValueRange::unknown_int();
  return s;
}

SymInt ShapeEnv::create_unbacked_symint(const std::string& source) {
  Event ev{EventKind::kCreateUnbackedSymInt};
  if (!source.empty()) ev.strings = {source};
  EventScope scope(this, ev);
  return SymInt(new_unbacked_symbol(sym::SymKind::kUnbackedInt, false));
}

SymFloat ShapeEnv::create_unbacked_symfloat() {
  EventScope scope(this, Event{EventKind::kCreateUnbackedSymFloat});
  return SymFloat(new_unbacked_symbol(sym::SymKind::kUnbackedFloat, false));
}

SymBool ShapeEnv::create_unbacked_symbool() {
  EventScope scope(this, Event{EventKind::kCreateUnbackedSymBool});
  ExprRef s = new_unbacked_symbol(sym::SymKind::kUnbackedInt, true);
  return SymBool(sym::eq(s, sym::integer(1)));
}

ShapeEnv::IgnoreFreshScope::IgnoreFreshScope(ShapeEnv* env) : env_(env) {
  EventScope scope(env_, Event{EventKind::kIgnoreFreshEnter});
  previous_ = env_->ignore_fresh_;
  env_->ignore_fresh_ = true;
}

ShapeEnv::IgnoreFreshScope::~IgnoreFreshScope() {
  EventScope scope(env_, Event{EventKind::kIgnoreFreshExit});
  env_->ignore_fresh_ = previous_;
}

void ShapeEnv::clear_pending_fresh_unbacked_symbols() {
  EventScope scope(this, Event{EventKind::kClearPending});
  unbound_by_design_.insert(pending_.begin(), pending_.end());
  pending_.clear();
}

void ShapeEnv::freeze_runtime_asserts() {
  EventScope scope(this, Event{EventKind::kFreezeRuntimeAsserts});
  runtime_asserts_frozen_ = true;
}

bool ShapeEnv::is_unbacked_symint(const ExprRef& s) const {
  return s->is(sym::ExprKind::kSymbol) && s->sym_kind() == sym::SymKind::kUnbackedInt;
}

void ShapeEnv::on_state_change() {
  ++cache_generation_;
  auto key = std::make_tuple(replacements_.size(), divisible_.size(), num_deferred_runtime_asserts_,
                             unbacked_var_to_val_.size());
  if (key != prev_cache_key_) {
    prev_cache_key_ = key;
    ++version_;
  }
}

void ShapeEnv::bump_version() { on_state_change(); }

}  // namespace sf
