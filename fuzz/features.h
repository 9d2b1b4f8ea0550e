// Engine-level coverage features of one program's run, for coverage-guided campaigns: which ops
// and consecutive op pairs it has, which binding paths each op's node got, which kinds of
// replacement the ShapeEnv made, the shapes of its runtime asserts and guards (numbers and symbol
// indices abstracted), its verdict bucket, and finer crossings of them. Each is a 64-bit hash of
// its text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

// "u12 >= 2*s3 + 4" -> "uN >= N*sN + N": the shape of a text, not its numbers.
std::string abstract_numbers(const std::string& text);

// The feature texts ("op:nonzero", "pair:nonzero>item", "bind:nonzero:size(N)",
// "repl:u->s", "assert:uN >= N", "guard:sN > N", "verdict:pass"; each op and binding path with
// the verdict: "opv:nonzero:pass", "bindv:nonzero:size(N):pass"; each op or check inside
// higher-order bodies, by the ops around it: "in:cond/while_loop:nonzero"), sorted and unique.
std::vector<std::string> program_feature_texts(const program::Program& p,
                                               const oracles::PipelineResult& r,
                                               const std::string& bucket);
std::vector<uint64_t> program_features(const program::Program& p, const oracles::PipelineResult& r,
                                       const std::string& bucket);

// Feature hashes as text, each in lowercase hex followed by `end` (features.txt: one per line;
// corpus distillation's children: comma-terminated items), and back: nullopt for any other text.
std::string hash_list_text(const std::vector<uint64_t>& hashes, char end);
std::optional<std::vector<uint64_t>> parse_hash_list(const std::string& text, char end);

}  // namespace sf::fuzz
