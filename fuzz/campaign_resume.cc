// Resuming a campaign in its output directory: reading what the last night left, distilling its
// corpus in place (see campaign_resume.h).
#include "fuzz/campaign_resume.h"

#include <system_error>

#include "fuzz/features.h"
#include "fuzz/files.h"

namespace sf::fuzz {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::optional<uint64_t> u64_field(const Json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) return std::nullopt;
  const Json& v = object[key];
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
    return std::nullopt;
  }
  return v.get<uint64_t>();
}

}  // namespace

std::optional<ResumeState> read_resume_state(const fs::path& dir, std::string* why) {
  std::optional<std::string> text = read_text_file(dir / "report.json");
  if (!text) {
    *why = (dir / "report.json").string() +
           " cannot be read: resume a directory an earlier "
           "`campaign --out` wrote";
    return std::nullopt;
  }
  Json report = Json::parse(*text, nullptr, false);
  const Json* campaign =
      report.is_object() && report.contains("campaign") ? &report["campaign"] : nullptr;
  std::optional<uint64_t> first = campaign ? u64_field(*campaign, "first_seed") : std::nullopt;
  if (!first) {
    *why = (dir / "report.json").string() + " is not a campaign report (no campaign.first_seed)";
    return std::nullopt;
  }
  ResumeState st;
  // A report without resume_seed (older, or killed before its first write of it): past the
  // seeds its program count covers.
  std::optional<uint64_t> resume = u64_field(*campaign, "resume_seed");
  std::optional<uint64_t> programs = u64_field(report, "programs");
  st.first_seed = resume ? *resume : *first + programs.value_or(0);
  if (campaign->contains("swarm") && (*campaign)["swarm"].is_boolean() &&
      (*campaign)["swarm"].get<bool>()) {
    st.swarm_origin = u64_field(*campaign, "swarm_origin").value_or(*first);
  }
  if (report.contains("nights") && report["nights"].is_array()) {
    st.nights = report["nights"];
  } else {  // one night, told by its totals
    st.nights.push_back({{"first_seed", *first},
                         {"seconds", report.value("seconds", 0.0)},
                         {"programs", programs.value_or(0)},
                         {"features", u64_field(report, "features").value_or(0)}});
  }
  if (std::optional<std::string> features = read_text_file(dir / "features.txt")) {
    std::optional<std::vector<uint64_t>> hashes = parse_hash_list(*features, '\n');
    if (!hashes) {
      *why = (dir / "features.txt").string() + " does not parse (one hex hash per line)";
      return std::nullopt;
    }
    st.known_features = std::move(*hashes);
  }
  return st;
}

DistillResult distill_corpus_in_place(const fs::path& corpus,
                                      const oracles::PipelineOptions& pipeline,
                                      const IsolationLimits& limits, int jobs) {
  fs::path next = corpus.string() + ".distilled", old = corpus.string() + ".old";
  std::error_code ec;
  // An earlier distillation cut short: its half-written output goes; a corpus it had moved
  // aside and not replaced comes back.
  fs::remove_all(next, ec);
  if (!fs::exists(corpus, ec) && fs::exists(old, ec)) fs::rename(old, corpus, ec);
  fs::remove_all(old, ec);
  fs::create_directories(corpus, ec);
  DistillResult r = distill_corpus({corpus}, next, pipeline, limits, jobs);
  fs::create_directories(next, ec);  // written even when nothing was kept
  fs::rename(corpus, old);           // throws (with the OS's reason) when it cannot
  fs::rename(next, corpus);
  fs::remove_all(old, ec);
  return r;
}

}  // namespace sf::fuzz
