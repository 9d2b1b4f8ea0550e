// A deterministic dump of ShapeEnv state: replay checks and determinism tests compare it.
#include <sstream>

#include "engine/shape_env/shape_env.h"

namespace sf {

std::string ShapeEnv::state_str() const {
  std::ostringstream out;
  out << "counters: int=" << unbacked_symint_counter_ << " float=" << unbacked_symfloat_counter_
      << "\n";
  std::map<ExprRef, int64_t, sym::ExprLess> hints(var_to_val_.begin(), var_to_val_.end());
  out << "var_to_val:";
  for (const auto& [s, v] : hints) out << " " << s->str() << "=" << v;
  out << "\nunbacked_var_to_val:";
  for (const auto& [s, v] : unbacked_var_to_val_) out << " " << s->str() << "=" << v;
  out << "\nvar_to_range:";
  for (const auto& [s, r] : var_to_range_) out << " " << s->str() << ":" << r.str();
  out << "\nsources:";
  for (const auto& [s, srcs] : var_to_sources_) {
    out << " " << s->str() << "<-";
    for (const std::string& src : srcs) out << "'" << src << "'";
  }
  out << "\nreplacements:";
  for (const auto& [s, t] : replacements_) out << " " << s->str() << "->" << t->str();
  out << "\nunbacked_renamings:";
  for (const auto& [s, t] : unbacked_renamings_) out << " " << s->str() << "->" << t->str();
  out << "\nsize_like:";
  for (const ExprRef& s : size_like_) out << " " << s->str();
  out << "\nunbacked_inputs:";
  for (const ExprRef& s : unbacked_inputs_) out << " " << s->str();
  out << "\ndivisible:";
  for (const ExprRef& s : divisible_) out << " " << s->str();
  out << "\ndivisibility_factors:";
  for (const auto& [s, f] : divisibility_factors_) {
    out << " " << s->str() << "=" << f.first->str() << "//" << f.second;
  }
  out << "\npending:";
  for (const ExprRef& s : pending_) out << " " << s->str();
  out << "\nguards:";
  for (const ShapeGuard& g : guards_) out << " [" << g.expr->str() << "]";
  out << "\ndeferred_runtime_asserts (" << num_deferred_runtime_asserts_ << "):";
  for (const auto& [k, ras] : deferred_runtime_asserts_) {
    out << " " << (k ? k->str() : "None") << ":[";
    for (const RuntimeAssert& ra : ras) out << ra.expr->str() << ";";
    out << "]";
  }
  out << "\naxioms:";
  for (const auto& [k, v] : axioms_) out << " " << k->str() << "=" << (v ? "T" : "F") << ";";
  out << "\nfrozen: " << runtime_asserts_frozen_ << " version: " << version_ << "\n";
  return out.str();
}

}  // namespace sf
