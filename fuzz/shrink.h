// A program shrinker: deletes statements, inputs and returned values from a program's text while
// a predicate (usually "gives the same bucket") still holds, to a fixpoint (ddmin over lines,
// then one returned value at a time). Header and comment lines are kept.
#pragma once

#include <functional>
#include <string>

namespace sf::fuzz {

struct ShrinkResult {
  std::string text;
  int attempts = 0;        // predicate calls
  int accepted = 0;        // candidates kept
  bool reproduced = true;  // the input itself was interesting (else `text` is the input)
  std::string stopped_by;  // "fixpoint", "attempts" or "time" (shrink_program)
};

// `interesting(text)` must hold for `text`; the result is the smallest text found that still
// satisfies it. `max_attempts` bounds the predicate calls.
ShrinkResult shrink_program_text(const std::string& text,
                                 const std::function<bool(const std::string&)>& interesting,
                                 int max_attempts = 2000);

// Statement lines of a program text: lines that are neither blank nor comments/header.
int program_text_lines(const std::string& text);

}  // namespace sf::fuzz
