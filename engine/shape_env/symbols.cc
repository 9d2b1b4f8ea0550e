// Symbol creation: input symbols (backed, static, unbacked-for-input), fresh unbacked
// int/float/bool symbols, the pending list and the ignore-fresh scope (spec §2.1–§2.4, §2.20).
#include <atomic>

#include "engine/base/check.h"
#include "engine/base/errors.h"
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
    symbols_.mark_unbacked_input(result, dynamic == DimDynamic::kObliviousSize
                                             ? std::optional<int64_t>(hint)
                                             : std::nullopt);
    symbols_.add_source(result, source);
  } else if (positive && settings_.specialize_zero_one && (hint == 0 || hint == 1)) {
    result = sym::integer(hint);
  } else if (std::optional<ExprRef> duck = symbols_.duck(hint);
             positive && settings_.duck_shape && dynamic == DimDynamic::kDuck && duck) {
    result = *duck;
    symbols_.add_source(result, source);
  } else {
    result = symbols_.new_backed(source, hint);
    ValueRange vr = !positive                       ? ValueRange::unknown_int()
                    : settings_.specialize_zero_one ? ValueRange::ints(2, sym::ExtInt::pos_inf())
                                                    : ValueRange::ints(0, sym::ExtInt::pos_inf());
    ranges_.narrow(result, vr);
    SF_CHECK(vr.contains(hint)) << "hint " << hint << " outside default range " << vr.str();
    symbols_.add_source(result, source);
    if (positive && settings_.duck_shape) symbols_.set_duck(hint, result);
  }
  if (context) context->cache[id_][source] = result;
  return SymInt(result);
}

ExprRef ShapeEnv::new_unbacked_symbol(sym::SymKind kind, bool is_bool) {
  ExprRef s = symbols_.new_unbacked(kind);
  ranges_.narrow(s, is_bool                                ? ValueRange::ints(0, 1)
                    : kind == sym::SymKind::kUnbackedFloat ? ValueRange::unknown_float()
                                                           : ValueRange::unknown_int());
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
  previous_ = env_->symbols_.set_ignore_fresh(true);
}

ShapeEnv::IgnoreFreshScope::~IgnoreFreshScope() {
  EventScope scope(env_, Event{EventKind::kIgnoreFreshExit});
  env_->symbols_.set_ignore_fresh(previous_);
}

void ShapeEnv::clear_pending_fresh_unbacked_symbols() {
  EventScope scope(this, Event{EventKind::kClearPending});
  symbols_.discard_pending();
}

void ShapeEnv::freeze_runtime_asserts() {
  EventScope scope(this, Event{EventKind::kFreezeRuntimeAsserts});
  asserts_.freeze();
}

bool ShapeEnv::is_unbacked_symint(const ExprRef& s) const {
  return s->is(sym::ExprKind::kSymbol) && s->sym_kind() == sym::SymKind::kUnbackedInt;
}

void ShapeEnv::on_state_change() {
  ++cache_generation_;
  auto key = std::make_tuple(replacements_.entries().size(), ranges_.divisible().size(),
                             asserts_.num_deferred(), symbols_.real_values().size());
  if (key != prev_cache_key_) {
    prev_cache_key_ = key;
    ++version_;
  }
}

void ShapeEnv::bump_version() { on_state_change(); }

}  // namespace sf
