// The messages' line format: tab-separated fields, the kind first
//   start\tRECIPE\tFRESH       done\tRECIPE\tBUCKET\tDETAIL\tFEATURES       unavailable\tWHY
// (FEATURES: hex hashes, each followed by a comma).
#include "fuzz/worker_message.h"

#include <utility>

#include "fuzz/features.h"

namespace sf::fuzz {

namespace {

std::string one_field(std::string s) {
  for (char& c : s) c = (c == '\n' || c == '\t') ? ' ' : c;
  return s;
}

// The tab-separated fields of a line.
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    size_t tab = line.find('\t', at);
    out.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
    if (tab == std::string::npos) return out;
    at = tab + 1;
  }
}

}  // namespace

WorkerMessage WorkerMessage::start(const Recipe& r, bool fresh_seed) {
  WorkerMessage m;
  m.kind = Kind::kStart;
  m.recipe = r;
  m.fresh_seed = fresh_seed;
  return m;
}

WorkerMessage WorkerMessage::done(const Recipe& r, std::string bucket, std::string detail,
                                  std::vector<uint64_t> new_features) {
  WorkerMessage m;
  m.kind = Kind::kDone;
  m.recipe = r;
  m.bucket = std::move(bucket);
  m.detail = std::move(detail);
  m.new_features = std::move(new_features);
  return m;
}

WorkerMessage WorkerMessage::unavailable(std::string why) {
  WorkerMessage m;
  m.kind = Kind::kUnavailable;
  m.why = std::move(why);
  return m;
}

std::string WorkerMessage::format() const {
  switch (kind) {
    case Kind::kStart:
      return "start\t" + recipe.str() + "\t" + (fresh_seed ? "1" : "0");
    case Kind::kDone:
      return "done\t" + recipe.str() + "\t" + one_field(bucket) + "\t" + one_field(detail) + "\t" +
             hash_list_text(new_features, ',');
    case Kind::kUnavailable:
      return "unavailable\t" + one_field(why);
  }
  return "";
}

std::optional<WorkerMessage> WorkerMessage::parse(const std::string& line) {
  std::vector<std::string> f = fields_of(line);
  if (f[0] == "unavailable") {
    return unavailable(f.size() > 1 ? line.substr(f[0].size() + 1) : "?");
  }
  std::optional<Recipe> recipe = f.size() > 1 ? Recipe::parse(f[1]) : std::nullopt;
  if (!recipe) return std::nullopt;
  if (f[0] == "start" && f.size() == 3 && (f[2] == "0" || f[2] == "1")) {
    return start(*recipe, f[2] == "1");
  }
  if (f[0] == "done" && f.size() == 5) {
    std::optional<std::vector<uint64_t>> features = parse_hash_list(f[4], ',');
    if (!features) return std::nullopt;
    return done(*recipe, f[2], f[3], std::move(*features));
  }
  return std::nullopt;
}

}  // namespace sf::fuzz
