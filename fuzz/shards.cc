// Merging shard directories into one campaign report, and the CI summaries of a report.
#include "fuzz/shards.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <system_error>

#include "fuzz/campaign.h"
#include "fuzz/campaign_report.h"
#include "fuzz/features.h"
#include "fuzz/files.h"
#include "fuzz/report_html.h"
#include "fuzz/sancov.h"

namespace sf::fuzz {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::optional<ShardSpec> parse_shard(const std::string& text) {
  size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return std::nullopt;
  std::string i = text.substr(0, slash), n = text.substr(slash + 1);
  auto digits = [](const std::string& s) {
    return s.size() <= 5 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(i) || !digits(n)) return std::nullopt;
  ShardSpec spec{std::stoi(i), std::stoi(n)};
  if (spec.count < 1 || spec.count > 65536 || spec.index >= spec.count) return std::nullopt;
  return spec;
}

std::set<std::string> parse_known_signatures(const std::string& text) {
  std::set<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    out.insert(line.substr(b, e - b + 1));
  }
  return out;
}

namespace {

// The shard's reading of a field of "campaign" (reports of a campaign before shards: one shard).
int64_t campaign_field(const Json& report, const char* name, int64_t otherwise) {
  const Json* c = report.contains("campaign") ? &report["campaign"] : nullptr;
  return c && c->contains(name) ? (*c)[name].get<int64_t>() : otherwise;
}

struct Shard {
  fs::path dir;
  Json report;  // checked by report_problem: every field read below has its type
  int64_t index = 0;
  int64_t shards() const { return campaign_field(report, "shards", 1); }
  int64_t first_seed() const { return campaign_field(report, "first_seed", 1); }
  int64_t seeds() const { return campaign_field(report, "seeds", 0); }
};

// A file a report names: relative and inside its directory (a report is data, not a path to
// anywhere on the machine).
bool is_inner_path(const std::string& rel) {
  fs::path p(rel);
  if (p.is_absolute()) return false;
  for (const fs::path& part : p) {
    if (part == "..") return false;
  }
  return true;
}

bool is_count_map(const Json& j) {
  if (!j.is_object()) return false;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_number_unsigned()) return false;
  }
  return true;
}

// Why a shard's report.json cannot be merged (a field merge reads is missing or of another type,
// a file it names is outside its directory), or nullopt.
std::optional<std::string> report_problem(const Json& r) {
  auto has = [&](const Json& o, const char* k, bool (Json::*is)() const noexcept) {
    return o.contains(k) && (o[k].*is)();
  };
  if (!r.is_object()) return "not a JSON object";
  if (!has(r, "schema_version", &Json::is_number_integer) ||
      r["schema_version"] != kReportSchemaVersion) {
    return "not schema version " + std::to_string(kReportSchemaVersion);
  }
  if (!has(r, "status", &Json::is_string) || !has(r, "seconds", &Json::is_number) ||
      !has(r, "programs", &Json::is_number_unsigned) ||
      !has(r, "workers_lost", &Json::is_number_unsigned) ||
      !has(r, "features", &Json::is_number_unsigned) || !r.contains("buckets") ||
      !is_count_map(r["buckets"]) || !has(r, "findings", &Json::is_array) ||
      !has(r, "timeline", &Json::is_array)) {
    return "a counter, the buckets, findings or timeline is missing or not of its type";
  }
  if (r.contains("campaign")) {
    const Json& c = r["campaign"];
    if (!c.is_object()) return "campaign is not an object";
    for (const char* k : {"first_seed", "seeds", "jobs", "shard", "shards"}) {
      if (c.contains(k) && !c[k].is_number_unsigned()) return std::string("campaign.") + k;
    }
    if (c.contains("shard") && c.contains("shards") && c["shard"] >= c["shards"]) {
      return "campaign.shard is not below campaign.shards";
    }
  }
  for (const Json& f : r["findings"]) {
    if (!f.is_object() || !has(f, "signature", &Json::is_string) ||
        !has(f, "class", &Json::is_string) || !has(f, "bucket", &Json::is_string) ||
        !has(f, "count", &Json::is_number_unsigned) ||
        !has(f, "first_seed", &Json::is_number_unsigned) ||
        !has(f, "found_at_seconds", &Json::is_number)) {
      return "a finding lacks a field or has one of another type";
    }
    for (const char* k : {"original", "minimized", "test"}) {
      if (!has(f, k, &Json::is_string) || !is_inner_path(f[k].get<std::string>())) {
        return std::string("a finding's ") + k + " is not a file inside the directory";
      }
    }
  }
  for (const Json& t : r["timeline"]) {
    if (!t.is_object() || !has(t, "seconds", &Json::is_number) ||
        !has(t, "programs", &Json::is_number_unsigned) ||
        !has(t, "features", &Json::is_number_unsigned) || !t.contains("buckets") ||
        !is_count_map(t["buckets"])) {
      return "a timeline sample lacks a field or has one of another type";
    }
  }
  return std::nullopt;
}

void add_counts(Json& into, const Json& from) {
  for (const auto& [k, v] : from.items()) {
    into[k] = (into.contains(k) ? into[k].get<uint64_t>() : 0) + v.get<uint64_t>();
  }
}

// At every moment any shard sampled: the sum over shards of each one's latest sample then
// (programs, buckets), and the most features of one shard (a lower bound of the union, which the
// samples cannot give). At most 600 samples, as a campaign's own.
Json combined_timeline(const std::vector<Shard>& shards) {
  std::set<double> moments;
  for (const Shard& s : shards) {
    for (const Json& sample : s.report["timeline"]) {
      moments.insert(sample["seconds"].get<double>());
    }
  }
  std::vector<double> at(moments.begin(), moments.end());
  while (at.size() > 600) {
    std::vector<double> kept;
    for (size_t i = 0; i < at.size(); i += 2) kept.push_back(at[i]);
    if (kept.back() != at.back()) kept.push_back(at.back());
    at = std::move(kept);
  }
  Json out = Json::array();
  for (double t : at) {
    uint64_t programs = 0, features = 0;
    Json buckets = Json::object();
    for (const Shard& s : shards) {
      const Json* latest = nullptr;
      for (const Json& sample : s.report["timeline"]) {
        if (sample["seconds"].get<double>() <= t) latest = &sample;
      }
      if (!latest) continue;
      programs += (*latest)["programs"].get<uint64_t>();
      features = std::max(features, (*latest)["features"].get<uint64_t>());
      add_counts(buckets, (*latest)["buckets"]);
    }
    out.push_back(
        {{"seconds", t}, {"programs", programs}, {"features", features}, {"buckets", buckets}});
  }
  return out;
}

// False when the file is not there to copy.
bool copy_file_into(const fs::path& from_dir, const fs::path& to_dir, const std::string& rel) {
  std::optional<std::string> text = read_text_file(from_dir / rel);
  if (!text) return false;
  fs::create_directories((to_dir / rel).parent_path());
  write_atomically(to_dir / rel, *text);
  return true;
}

// A failure or a crash (what fails a campaign), not a triage finding.
bool is_failure_or_crash(const Json& finding) {
  return is_finding_bucket(finding.value("bucket", ""));
}

}  // namespace

MergeResult merge_shards(const MergeOptions& opts) {
  MergeResult r;
  std::vector<Shard> shards;
  // The first shard read (shards.front() until the sort) is the reference: another campaign's
  // shards, and a shard index given again, are named and left out of every count.
  std::set<int64_t> seen;
  for (const fs::path& dir : opts.shard_dirs) {
    std::optional<std::string> text = read_text_file(dir / "report.json");
    Json report = text ? Json::parse(*text, nullptr, false) : Json();
    if (!text || report.is_discarded()) {
      r.problems.push_back(dir.string() + ": no readable report.json");
      continue;
    }
    if (std::optional<std::string> why = report_problem(report)) {
      r.problems.push_back(dir.string() + "/report.json: " + *why);
      continue;
    }
    Shard s{dir, std::move(report), 0};
    s.index = campaign_field(s.report, "shard", 0);
    const Shard* reference = shards.empty() ? nullptr : &shards.front();
    if (reference &&
        (s.shards() != reference->shards() || s.first_seed() != reference->first_seed() ||
         s.seeds() != reference->seeds())) {
      r.problems.push_back(dir.string() + ": a shard of another campaign (first seed, seed " +
                           "count or shard count differ from " + reference->dir.string() +
                           "): left out");
      continue;
    }
    if (!seen.insert(s.index).second) {
      r.problems.push_back(dir.string() + ": shard " + std::to_string(s.index) +
                           " given twice: left out");
      continue;
    }
    shards.push_back(std::move(s));
  }
  std::stable_sort(shards.begin(), shards.end(),
                   [](const Shard& a, const Shard& b) { return a.index < b.index; });
  r.shards_read = shards.size();
  int64_t count = shards.empty() ? 0 : shards[0].shards();
  int64_t first_seed = shards.empty() ? 1 : shards[0].first_seed();
  int64_t seeds = shards.empty() ? 0 : shards[0].seeds();
  for (int64_t i = 0; i < count; ++i) {
    if (!seen.count(i)) {
      r.problems.push_back("shard " + std::to_string(i) + "/" + std::to_string(count) +
                           " is missing: its seeds are not in the merged report");
    }
  }
  r.complete = !shards.empty() && r.problems.empty();

  Json& j = r.report;
  bool finished = !shards.empty();
  double seconds = 0;
  uint64_t programs = 0, workers_lost = 0, jobs = 0;
  Json buckets = Json::object(), listed = Json::array();
  for (const Shard& s : shards) {
    std::string status = s.report.value("status", "running");
    finished = finished && status == "finished";
    seconds = std::max(seconds, s.report.value("seconds", 0.0));
    programs += s.report.value("programs", uint64_t{0});
    workers_lost += s.report.value("workers_lost", uint64_t{0});
    jobs += static_cast<uint64_t>(campaign_field(s.report, "jobs", 1));
    add_counts(buckets, s.report.value("buckets", Json::object()));
    listed.push_back({{"dir", s.dir.string()},
                      {"shard", s.index},
                      {"status", status},
                      {"programs", s.report.value("programs", uint64_t{0})},
                      {"seconds", s.report.value("seconds", 0.0)}});
  }
  // The union of the shards' features (a shard without features.txt adds what its count says, at
  // least: the most of any single shard).
  std::set<uint64_t> features;
  uint64_t most_of_one = 0, edge_features = 0;
  for (const Shard& s : shards) {
    most_of_one = std::max(most_of_one, s.report.value("features", uint64_t{0}));
    std::optional<std::string> text = read_text_file(s.dir / "features.txt");
    std::optional<std::vector<uint64_t>> hashes =
        text ? parse_hash_list(*text, '\n') : std::nullopt;
    if (hashes) features.insert(hashes->begin(), hashes->end());
  }
  for (uint64_t f : features) edge_features += (f & kEdgeFeatureBit) ? 1 : 0;
  std::vector<uint64_t> sorted(features.begin(), features.end());

  j["schema_version"] = kReportSchemaVersion;
  // Finished only when every shard of the campaign was read, once, and finished.
  j["status"] = finished && r.complete ? "finished" : "interrupted";
  j["complete"] = r.complete;
  j["seconds"] = seconds;
  j["programs"] = programs;
  j["programs_per_second"] = seconds > 0 ? static_cast<double>(programs) / seconds : 0.0;
  j["workers_lost"] = workers_lost;
  j["features"] = std::max<uint64_t>(features.size(), most_of_one);
  j["edge_features"] = edge_features;
  j["campaign"] = {
      {"first_seed", first_seed}, {"seeds", seeds}, {"jobs", jobs}, {"shard", 0}, {"shards", 1},
      {"merged_shards", count}};
  if (!shards.empty() && shards[0].report.contains("campaign")) {  // the same in every shard
    const Json& c = shards[0].report["campaign"];
    for (const char* k : {"swarm", "swarm_origin"}) {
      if (c.contains(k)) j["campaign"][k] = c[k];
    }
  }
  j["shards"] = listed;
  j["buckets"] = buckets;

  // Findings by signature: counts summed; the files and fields of the smallest first seed (the
  // same whichever order the shards finished in); found when first found anywhere.
  std::map<std::string, Json> by_signature;
  std::map<std::string, const Shard*> source;
  for (const Shard& s : shards) {
    for (const Json& f : s.report.value("findings", Json::array())) {
      std::string sig = f.value("signature", "");
      auto it = by_signature.find(sig);
      if (it == by_signature.end()) {
        by_signature[sig] = f;
        source[sig] = &s;
        continue;
      }
      Json& kept = it->second;
      uint64_t count_sum = kept["count"].get<uint64_t>() + f.value("count", uint64_t{0});
      double found_at =
          std::min(kept["found_at_seconds"].get<double>(), f.value("found_at_seconds", 0.0));
      if (f.value("first_seed", uint64_t{0}) < kept["first_seed"].get<uint64_t>()) {
        kept = f;
        source[sig] = &s;
      }
      kept["count"] = count_sum;
      kept["found_at_seconds"] = found_at;
    }
  }
  std::vector<Json> findings;
  for (auto& [sig, f] : by_signature) {
    for (const char* field : {"original", "minimized", "test"}) {
      std::string rel = f[field].get<std::string>();
      if (rel.empty() || copy_file_into(source[sig]->dir, opts.out_dir, rel)) continue;
      r.problems.push_back((source[sig]->dir / rel).string() + " is named by its report but " +
                           "missing: the merged finding names no " + field + " file");
      f[field] = "";
    }
    if (is_failure_or_crash(f) && (!opts.known || !opts.known->count(sig))) {
      r.new_signatures.push_back(sig);
    }
    findings.push_back(f);
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Json& a, const Json& b) {
    return a["found_at_seconds"].get<double>() < b["found_at_seconds"].get<double>();
  });
  j["findings"] = Json::array();
  for (Json& f : findings) j["findings"].push_back(std::move(f));
  j["timeline"] = combined_timeline(shards);
  for (const Shard& s : shards) {  // the same seeds' statistics in every shard: the first's
    if (s.report.contains("generator")) {
      j["generator"] = s.report["generator"];
      break;
    }
  }

  std::vector<fs::path> corpora;
  for (const Shard& s : shards) {
    std::error_code ec;
    if (fs::is_directory(s.dir / "corpus", ec)) corpora.push_back(s.dir / "corpus");
  }
  if (opts.distill && !corpora.empty()) {
    // The distilled corpus replaces what an earlier merge into the same directory left.
    fs::remove_all(opts.out_dir / "corpus");
    r.corpus =
        distill_corpus(corpora, opts.out_dir / "corpus", opts.pipeline, opts.limits, opts.jobs);
    j["corpus"] = r.corpus->json();
  }
  j["problems"] = r.problems;
  fs::create_directories(opts.out_dir);
  if (!sorted.empty())
    write_atomically(opts.out_dir / "features.txt", hash_list_text(sorted, '\n'));
  write_atomically(opts.out_dir / "report.json",
                   j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  write_atomically(opts.out_dir / "report.html", report_html(j));
  return r;
}

std::string report_summary_line(const Json& report, long new_signatures) {
  uint64_t failures = 0, crashes = 0, triage = 0;
  for (const Json& f : report.value("findings", Json::array())) {
    std::string c = f.value("class", "");
    (c == "failures" ? failures : c == "crashes" ? crashes : triage) += 1;
  }
  double seconds = report.value("seconds", 0.0);
  uint64_t programs = report.value("programs", uint64_t{0});
  bool bad = new_signatures >= 0 ? new_signatures > 0 : failures + crashes > 0;
  char line[512];
  std::snprintf(
      line, sizeof line,
      "shapefuzz %s: %s, %llu programs in %.1fs (%.0f/s), %llu failure and %llu crash "
      "signatures%s, %llu triage, %llu features",
      bad ? "FAIL" : "PASS", report.value("status", "running").c_str(),
      static_cast<unsigned long long>(programs), seconds, seconds > 0 ? programs / seconds : 0.0,
      static_cast<unsigned long long>(failures), static_cast<unsigned long long>(crashes),
      new_signatures >= 0 ? (" (" + std::to_string(new_signatures) + " new)").c_str() : "",
      static_cast<unsigned long long>(triage),
      static_cast<unsigned long long>(report.value("features", uint64_t{0})));
  return line;
}

std::vector<JUnitSuite> report_junit(const Json& report,
                                     const std::optional<std::set<std::string>>& known) {
  JUnitSuite suite;
  const Json& c = report.value("campaign", Json::object());
  int shards = c.value("shards", 1);
  suite.name = shards > 1 ? "campaign shard " + std::to_string(c.value("shard", 0)) + "/" +
                                std::to_string(shards)
                          : "campaign";
  JUnitCase whole;
  whole.name = "campaign";
  whole.classname = suite.name;
  whole.seconds = report.value("seconds", 0.0);
  whole.details = report_summary_line(report);
  if (report.value("status", "running") != "finished") {
    whole.status = JUnitCase::Status::kSkipped;
    whole.message = "the campaign did not finish (status " + report.value("status", "") + ")";
  }
  suite.cases.push_back(whole);
  for (const Json& f : report.value("findings", Json::array())) {
    JUnitCase k;
    std::string sig = f.value("signature", "");
    k.name = sig;
    k.classname = suite.name + "." + f.value("class", "triage");
    k.message = f.value("bucket", "") + " x" + std::to_string(f.value("count", uint64_t{0})) +
                ", first seed " + std::to_string(f.value("first_seed", uint64_t{0}));
    k.details = "shapefuzz repro " + f.value("original", "") + "\n" + f.value("detail", "");
    if (!is_failure_or_crash(f)) {
      k.status = JUnitCase::Status::kSkipped;
      k.message = "triage: " + k.message;
    } else if (known && known->count(sig)) {
      k.status = JUnitCase::Status::kSkipped;
      k.message = "known: " + k.message;
    } else {
      k.status = JUnitCase::Status::kFailed;
    }
    suite.cases.push_back(std::move(k));
  }
  return {suite};
}

}  // namespace sf::fuzz
