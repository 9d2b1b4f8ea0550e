// What a campaign worker tells the campaign, one line per message over its pipe: a program
// starts, a program is done (its bucket, detail and the features new to this worker), or the
// backend is unavailable in the worker. Formatted by the worker and parsed by the campaign here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/recipe.h"

namespace sf::fuzz {

struct WorkerMessage {
  enum class Kind { kStart, kDone, kUnavailable };
  Kind kind = Kind::kStart;
  Recipe recipe;            // kStart, kDone: the program
  bool fresh_seed = false;  // kStart: the next of the worker's own seeds (not a mutant or replay)
  std::string bucket;       // kDone
  std::string detail;       // kDone: one printable line ("" for a pass or a rejection)
  std::vector<uint64_t> new_features;  // kDone: features this worker had not reached before
  std::string why;                     // kUnavailable: the backend's reason

  static WorkerMessage start(const Recipe& r, bool fresh_seed);
  static WorkerMessage done(const Recipe& r, std::string bucket, std::string detail,
                            std::vector<uint64_t> new_features);
  static WorkerMessage unavailable(std::string why);

  // One line without its newline; tabs and newlines in the free-text fields become spaces.
  std::string format() const;
  // nullopt for a line no worker writes.
  static std::optional<WorkerMessage> parse(const std::string& line);
};

}  // namespace sf::fuzz
