// Program-aware shrinking. Each pass lists candidate programs (one small edit each) for the current
// program; the first candidate that parses and stays interesting becomes the current program and
// the pass lists again from the same position. Passes repeat until a whole round keeps nothing.
#include "fuzz/shrink_program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "engine/program/schema.h"
#include "fuzz/shrink_candidates.h"

namespace sf::fuzz {

using namespace shrink;  // NOLINT: the passes are this file's

namespace {

using program::DataSpec;
using program::DimMode;
using program::Expr;
using program::ExprPtr;
using program::InputDecl;
using program::Program;
using program::Stmt;

// ---- driver ------------------------------------------------------------------------------------

class Shrinker {
 public:
  Shrinker(const std::function<bool(const std::string&)>& interesting, const ShrinkLimits& limits,
           ShrinkResult* result)
      : interesting_(interesting),
        limits_(limits),
        result_(result),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(limits.seconds))) {}

  std::string budget_reason() const {
    return result_->attempts >= limits_.max_attempts ? "attempts" : "time";
  }

  bool out_of_budget() const {
    return result_->attempts >= limits_.max_attempts ||
           std::chrono::steady_clock::now() > deadline_;
  }

  // The predicate, counted and bounded.
  bool call(const std::string& text) {
    if (out_of_budget()) return false;
    ++result_->attempts;
    return interesting_(text);
  }

  // Tries a candidate program: it must print to a text not tried before that parses back.
  bool try_program(const Program& candidate) {
    std::string text = program::print_program(candidate);
    if (!tried_.insert(text).second) return false;
    try {
      program::parse_program(text);
    } catch (const UserError&) {
      return false;
    }
    if (!call(text)) return false;
    ++result_->accepted;
    current_ = candidate;
    text_ = text;
    return true;
  }

  // One pass: walk its candidates; after each kept one, list again and go on from the same
  // position (the next edit of the same kind). True when something was kept.
  bool run_pass(Candidates (*list)(const Program&)) {
    bool progress = false;
    size_t i = 0;
    while (!out_of_budget()) {
      Candidates cs = list(current_);
      bool kept = false;
      for (; i < cs.size() && !out_of_budget(); ++i) {
        if (try_program(cs[i])) {
          kept = true;
          break;
        }
      }
      if (!kept) break;
      progress = true;
    }
    return progress;
  }

  // Line-level ddmin over the current text (bulk removal), bounded by the remaining budget.
  bool run_ddmin() {
    int left = limits_.max_attempts - result_->attempts;
    if (left <= 0) return false;
    ShrinkResult r = shrink_program_text(
        text_, [&](const std::string& t) { return tried_.insert(t).second && call(t); }, left);
    result_->accepted += r.accepted;
    if (r.accepted == 0) return false;
    try {
      current_ = program::parse_program(r.text);
    } catch (const UserError&) {
      return false;  // cannot happen: an interesting text parses
    }
    text_ = r.text;  // the text the predicate accepted (body lines of a canonical text)
    return true;
  }

  Program current_;
  std::string text_;

 private:
  const std::function<bool(const std::string&)>& interesting_;
  ShrinkLimits limits_;
  ShrinkResult* result_;
  std::chrono::steady_clock::time_point deadline_;
  std::unordered_set<std::string> tried_;
};

}  // namespace

ShrinkResult shrink_program(const std::string& text,
                            const std::function<bool(const std::string&)>& interesting,
                            const ShrinkLimits& limits) {
  ShrinkResult result;
  Shrinker s(interesting, limits, &result);
  // Line-level ddmin on the text as given, within the same budget (a text that does not parse,
  // or whose comments matter).
  auto lines_only = [&]() {
    ShrinkResult r = shrink_program_text(
        text, [&](const std::string& t) { return s.call(t); }, limits.max_attempts);
    r.attempts = result.attempts;
    r.stopped_by = s.out_of_budget() ? s.budget_reason() : "fixpoint";
    return r;
  };
  try {
    s.current_ = program::parse_program(text);
  } catch (const UserError&) {
    if (!s.call(text)) {
      result.text = text;
      result.reproduced = false;
      result.stopped_by = "fixpoint";
      return result;
    }
    return lines_only();
  }
  // Work on the canonical print; it drops comments, so fall back to lines if that mattered.
  s.text_ = program::print_program(s.current_);
  if (!s.call(s.text_)) {
    if (s.text_ == text || !s.call(text)) {
      result.text = text;
      result.reproduced = false;
      result.stopped_by = "fixpoint";
      return result;
    }
    return lines_only();
  }
  bool progress = true;
  while (progress && !s.out_of_budget()) {
    progress = s.run_ddmin();
    progress = s.run_pass(statement_candidates) || progress;
    progress = s.run_pass(return_candidates) || progress;
    progress = s.run_pass(function_candidates) || progress;
    progress = s.run_pass(value_candidates) || progress;
    progress = s.run_pass(inline_candidates) || progress;
    progress = s.run_pass(input_candidates) || progress;
  }
  result.text = s.text_;
  result.stopped_by = s.out_of_budget() ? s.budget_reason() : "fixpoint";
  return result;
}

}  // namespace sf::fuzz
