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
  return recorded<event::CreateSymbol>(std::tie(hint, source, dynamic, positive), [&]() -> SymInt {
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
      ranges_.init(result, vr);
      symbol_changed(result);
      SF_CHECK(vr.contains(hint)) << "hint " << hint << " outside default range " << vr.str();
      symbols_.add_source(result, source);
      if (positive && settings_.duck_shape) symbols_.set_duck(hint, result);
    }
    if (context) context->cache[id_][source] = result;
    return SymInt(result);
  });
}

ExprRef ShapeEnv::new_unbacked_symbol(sym::SymKind kind, bool is_bool) {
  ExprRef s = symbols_.new_unbacked(kind);
  ranges_.init(s, is_bool                                ? ValueRange::ints(0, 1)
                  : kind == sym::SymKind::kUnbackedFloat ? ValueRange::unknown_float()
                                                         : ValueRange::unknown_int());
  symbol_changed(s);
  return s;
}

SymInt ShapeEnv::create_unbacked_symint(const std::string& source) {
  return recorded<event::CreateUnbackedSymInt>(std::tie(source), [&]() -> SymInt {
    return SymInt(new_unbacked_symbol(sym::SymKind::kUnbackedInt, false));
  });
}

SymFloat ShapeEnv::create_unbacked_symfloat() {
  return recorded<event::CreateUnbackedSymFloat>(std::tie(), [&]() -> SymFloat {
    return SymFloat(new_unbacked_symbol(sym::SymKind::kUnbackedFloat, false));
  });
}

SymBool ShapeEnv::create_unbacked_symbool() {
  return recorded<event::CreateUnbackedSymBool>(std::tie(), [&]() -> SymBool {
    ExprRef s = new_unbacked_symbol(sym::SymKind::kUnbackedInt, true);
    return SymBool(sym::eq(s, sym::integer(1)));
  });
}

ShapeEnv::IgnoreFreshScope::IgnoreFreshScope(ShapeEnv* env) : env_(env) {
  env_->recorded<event::IgnoreFreshEnter>(
      std::tie(), [&]() -> void { previous_ = env_->symbols_.set_ignore_fresh(true); });
}

ShapeEnv::IgnoreFreshScope::~IgnoreFreshScope() {
  env_->recorded<event::IgnoreFreshExit>(
      std::tie(), [&]() -> void { env_->symbols_.set_ignore_fresh(previous_); });
}

void ShapeEnv::clear_pending_fresh_unbacked_symbols() {
  return recorded<event::ClearPending>(std::tie(), [&]() -> void { symbols_.discard_pending(); });
}

void ShapeEnv::freeze_runtime_asserts() {
  return recorded<event::FreezeRuntimeAsserts>(std::tie(), [&]() -> void { asserts_.freeze(); });
}

bool ShapeEnv::is_unbacked_symint(const ExprRef& s) const {
  return s->is(sym::ExprKind::kSymbol) && s->sym_kind() == sym::SymKind::kUnbackedInt;
}

void ShapeEnv::on_state_change() {
  ++state_changes_;
  auto key = std::make_tuple(replacements_.entries().size(), ranges_.divisible().size(),
                             asserts_.num_deferred(), symbols_.real_values().size());
  if (key != prev_cache_key_) {
    prev_cache_key_ = key;
    ++version_;
  }
}

void ShapeEnv::bump_version() { on_state_change(); }

}  // namespace sf
