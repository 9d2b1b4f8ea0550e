// A deterministic dump of ShapeEnv state: replay checks and determinism tests compare it.
#include <sstream>

#include "engine/shape_env/shape_env.h"

namespace sf {

std::string ShapeEnv::state_str() const {
  std::ostringstream out;
  out << "counters: int=" << symbols_.int_counter() << " float=" << symbols_.float_counter()
      << "\n";
  std::map<ExprRef, int64_t, sym::ExprLess> hints(symbols_.hints().begin(), symbols_.hints().end());
  out << "var_to_val:";
  for (const auto& [s, v] : hints) out << " " << s->str() << "=" << v;
  out << "\nunbacked_var_to_val:";
  for (const auto& [s, v] : symbols_.real_values()) out << " " << s->str() << "=" << v;
  out << "\nvar_to_range:";
  for (const auto& [s, r] : ranges_.ranges()) out << " " << s->str() << ":" << r.str();
  out << "\nsources:";
  for (const auto& [s, srcs] : symbols_.sources()) {
    out << " " << s->str() << "<-";
    for (const std::string& src : srcs) out << "'" << src << "'";
  }
  out << "\nreplacements:";
  for (const auto& [s, t] : replacements_.entries()) out << " " << s->str() << "->" << t->str();
  out << "\nunbacked_renamings:";
  for (const auto& [s, t] : replacements_.renamings()) out << " " << s->str() << "->" << t->str();
  out << "\nsize_like:";
  for (const ExprRef& s : ranges_.size_like()) out << " " << s->str();
  out << "\nunbacked_inputs:";
  for (const ExprRef& s : symbols_.unbacked_inputs()) out << " " << s->str();
  out << "\ndivisible:";
  for (const ExprRef& s : ranges_.divisible()) out << " " << s->str();
  out << "\ndivisibility_factors:";
  for (const auto& [s, f] : ranges_.factors()) {
    out << " " << s->str() << "=" << f.first->str() << "//" << f.second;
  }
  out << "\npending:";
  for (const ExprRef& s : symbols_.pending()) out << " " << s->str();
  out << "\nguards:";
  for (const ShapeGuard& g : asserts_.guards()) out << " [" << g.expr->str() << "]";
  out << "\ndeferred_runtime_asserts (" << asserts_.num_deferred() << "):";
  for (const auto& [k, ras] : asserts_.deferred()) {
    out << " " << (k ? k->str() : "None") << ":[";
    for (const RuntimeAssert& ra : ras) out << ra.expr->str() << ";";
    out << "]";
  }
  out << "\naxioms:";
  for (const auto& [k, v] : asserts_.axioms())
    out << " " << k->str() << "=" << (v ? "T" : "F") << ";";
  out << "\nfrozen: " << asserts_.frozen() << " version: " << version_ << "\n";
  return out.str();
}

}  // namespace sf
