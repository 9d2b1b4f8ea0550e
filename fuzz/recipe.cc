// Recipes: programs as generator decisions (see recipe.h).
#include "fuzz/recipe.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string_view>

#include "fuzz/gen/swarm.h"

namespace sf::fuzz {

std::string Recipe::str() const {
  std::string out = "seed=" + std::to_string(seed);
  if (swarm != 0) out += ",swarm=" + std::to_string(swarm);
  char sep = ';';
  for (const auto& [k, v] : overrides) {
    out += sep + std::to_string(k) + ":" + std::to_string(v);
    sep = ',';
  }
  return out;
}

std::optional<Recipe> Recipe::parse(const std::string& text) {
  if (text.rfind("seed=", 0) != 0) return std::nullopt;
  Recipe r;
  char* end = nullptr;
  const char* p = text.c_str() + 5;
  r.seed = std::strtoull(p, &end, 10);
  if (end == p) return std::nullopt;
  if (std::string_view(end).substr(0, 7) == ",swarm=") {
    p = end + 7;
    r.swarm = std::strtoull(p, &end, 10);
    if (end == p || r.swarm == 0) return std::nullopt;
  }
  if (*end == '\0') return r;
  if (*end != ';') return std::nullopt;
  p = end + 1;
  for (;;) {  // one or more "k:v", comma-separated
    uint64_t k = std::strtoull(p, &end, 10);
    if (end == p || *end != ':') return std::nullopt;
    p = end + 1;
    uint64_t v = std::strtoull(p, &end, 10);
    if (end == p) return std::nullopt;
    r.overrides[static_cast<uint32_t>(k)] = v;
    if (*end == '\0') break;
    if (*end != ',') return std::nullopt;
    p = end + 1;
  }
  return r;
}

uint64_t RecipeSource::next_u64() {
  uint64_t v = stream_.next_u64();  // drawn either way, so later decisions keep their values
  auto it = recipe_.overrides.find(drawn_++);
  return it == recipe_.overrides.end() ? v : it->second;
}

GeneratedProgram generated_for_recipe(Recipe& recipe) {
  RecipeSource src(recipe);
  GeneratedProgram g = generate_program_with_result(src, swarm_policy(recipe.swarm));
  recipe.decisions = src.drawn();
  // A plain seed's program is the campaign's own for the seed (tagged the same way).
  g.program.header.found_by = recipe.plain() ? "campaign seed=" + std::to_string(recipe.seed)
                                             : "campaign recipe=" + recipe.str();
  return g;
}

Recipe mutate_recipe(const Recipe& r, FuzzSource& rng) {
  Recipe m = r;
  if (rng.chance(1, 6)) {
    int level = swarm_level(m.swarm);
    if (m.swarm != 0 && rng.chance(1, 2)) {
      level = std::clamp(level + (rng.chance(1, 2) ? 1 : -1), 0, kMaxSwarmLevel);
      m.swarm = swarm_key(level, m.swarm);  // the same variant, one step longer or shorter
    } else {
      m.swarm = swarm_key(level, rng.next_u64());
    }
  }
  int edits = 1 + static_cast<int>(rng.range(0, 2));
  for (int e = 0; e < edits; ++e) {
    if (!m.overrides.empty() && rng.chance(1, 5)) {  // drop one
      auto it = m.overrides.begin();
      std::advance(it, static_cast<long>(rng.pick(m.overrides.size())));
      m.overrides.erase(it);
      continue;
    }
    uint32_t k = static_cast<uint32_t>(rng.pick(std::max<uint32_t>(m.decisions, 1)));
    // Small values half the time: most decisions are small ranges, and a value below the range
    // reaches its low end the way the stream's own values rarely do.
    m.overrides[k] = rng.chance(1, 2) ? static_cast<uint64_t>(rng.range(0, 15)) : rng.next_u64();
  }
  return m;
}

}  // namespace sf::fuzz
