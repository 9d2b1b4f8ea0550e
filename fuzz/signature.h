// What running a program gives, as the harness files it: a bucket ("fail:tv", "crash:signal6",
// "rejected:shape", ...) and a detail (the verdict's text or the crash's SF_CHECK line). A
// finding's signature (bucket + normalized message) is what campaigns dedup on and what reproducers
// record in their "# reproduces:" header, so `repro` can tell "reproduced" from "different
// failure".
#pragma once

#include <cstddef>
#include <string>

namespace sf::fuzz {

struct Outcome {
  std::string bucket;
  std::string detail;  // one line; empty for a pass
};

// A message with what varies between instances of one bug abstracted away: numbers, and the
// numbered names of symbols and variables (u0, s12, v8 -> u#, s#, v#), suffixes that make node
// names unique (%nonzero_2 -> %nonzero), one-letter names (#v),
// dtype names (DT), runs of spaces; at most 160 characters.
std::string normalize_message(const std::string& message);

// "BUCKET: normalized detail" for findings and triage buckets (only the first violated invariant
// of a structural failure), the bare bucket otherwise.
std::string signature(const Outcome& o);

// A pass, a rejection, or a text that does not parse: nothing to report (every other bucket is a
// finding or a triage bucket).
bool is_plain_bucket(const std::string& bucket);

// The bucket part of a signature ("fail:tv: guard ..." -> "fail:tv").
std::string signature_bucket(const std::string& signature);

// Control characters (a crash report can hold anything) become spaces: details end up in header
// comments and report lines, which must stay one printable line.
std::string printable(std::string s);

}  // namespace sf::fuzz
