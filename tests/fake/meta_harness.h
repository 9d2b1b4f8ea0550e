// The harness behind the meta-function tables: a ShapeEnv and FakeMode, fake inputs declared in
// text, calls run through fake::run_meta as the tracer runs them, and renderings of results and
// ShapeEnv changes with backed symbols renamed to the names a table declared.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/fake/fake_mode.h"
#include "engine/fake/meta/meta.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/walk.h"

namespace sf::fake::testing {

// A malformed table row: a mistake in the test, never an engine result.
struct BadRow : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Splits at `sep` outside brackets and parentheses (statements, arguments, list items).
std::vector<std::string> split_top(const std::string& s, char sep);

// One case's world; the input and statement forms are those of MetaCase (meta_test_util.h).
class Harness {
 public:
  explicit Harness(const ShapeEnvSettings& s) : env_(s), mode_(&env_) {}

  // "x: f32[s0, 3]", "n: int s2=5", "k: int u1".
  void declare(const std::string& decl);

  struct Result {
    Value value;
    std::optional<Bindings> bindings;
  };

  // "op(args)", "name = op(args)", "constrain(sym, lo, hi)", "bump_epoch()" or
  // "inference_mode()".
  Result exec(const std::string& stmt);

  // Backed symbols under their declared names; everything else as the ShapeEnv prints it.
  std::string show(const ExprRef& e) const { return sym::xreplace(e, rename_)->str(); }

  // The same renaming in text (error messages): each whole word sN that names a backed symbol.
  std::string show_text(const std::string& text) const;

  std::string render(const Value& v, bool strides) const;

  std::string render_bindings(const std::optional<Bindings>& b) const;

  // What the ShapeEnv holds, to tell what one call added.
  struct Snapshot {
    size_t guards = 0;
    std::map<ExprRef, size_t, sym::ExprLessNullFirst> asserts;
    std::map<ExprRef, ExprRef, sym::ExprLess> replacements;
    std::map<ExprRef, std::string, sym::ExprLess> ranges;
  };

  Snapshot snapshot() const;

  // The guards, deferred asserts and replacements added since `before`, sorted; an assert
  // without the implicit tag is reported as `untagged`.
  std::vector<std::string> facts_since(const Snapshot& before,
                                       std::vector<std::string>* untagged) const;

  std::vector<std::string> ranges_since(const Snapshot& before) const;

 private:
  std::string range_str(const ExprRef& sym, const ValueRange& vr) const;

  ExprRef lookup_symbol(const std::string& name) const;

  // "sK", "sK=H" or "uK": the declared symbol, created at its first mention.
  SymInt symbol(const std::string& text, const std::string& source, bool positive);

  Value value(const std::string& t);

  // The MetaArgs of a call, as graph::to_meta_args builds them from bound arguments.
  std::vector<MetaArg> bind(program::OpKind op, const std::vector<std::string>& args);

  ShapeEnv env_;
  FakeMode mode_;
  std::map<std::string, Value> vars_;
  std::map<std::string, ExprRef> symbols_;
  sym::ExprMap rename_;
};

}  // namespace sf::fake::testing
