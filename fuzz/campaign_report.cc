// Each new signature is written in three steps, each leaving a consistent directory behind: the
// original reproducer and the report entry first, then (after minimizing) the minimized reproducer
// and its test, and the report again.
#include "fuzz/campaign_report.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/base/sha256.h"
#include "engine/program/printer.h"
#include "fuzz/features.h"
#include "fuzz/files.h"
#include "fuzz/gtest_file.h"
#include "fuzz/outcome.h"
#include "fuzz/recipe.h"
#include "fuzz/report_html.h"
#include "fuzz/shrink_program.h"

namespace sf::fuzz {

namespace {

std::string slug(const std::string& bucket) {
  std::string out;
  for (char c : bucket.substr(bucket.find(':') + 1)) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  }
  return out;
}

}  // namespace

std::string finding_class(const std::string& bucket) {
  if (bucket.rfind("crash:", 0) == 0) return "crashes";
  if (bucket.rfind("fail:", 0) == 0) return "failures";
  return "triage";
}

CampaignReport::CampaignReport(ReportOptions opts) : opts_(std::move(opts)) {
  if (std::optional<std::string> why = check_writable_dir(opts_.out_dir)) {
    throw std::runtime_error(*why);
  }
  reached_.insert(opts_.known_features.begin(), opts_.known_features.end());
  known_features_ = reached_.size();
  coverage({});
  write_report(false);
}

void CampaignReport::add(const Finding& f) {
  auto it = by_signature_.find(f.signature);
  if (it != by_signature_.end()) {
    ++entries_[it->second].count;
    return;
  }
  Entry e;
  e.signature = f.signature;
  e.bucket = f.bucket;
  e.detail = f.detail;
  e.first_seed = f.seed;
  e.recipe = f.recipe;
  e.count = 1;
  e.found_at = f.elapsed;
  std::string base =
      finding_class(f.bucket) + "/" + slug(f.bucket) + "-" + sha256_hex(f.signature).substr(0, 8);
  program::Program p = program_for(f.seed, f.recipe);
  p.header.reproduces = f.signature;
  // Faults switched on for the whole campaign (SHAPEFUZZ_FAULTS) go in the header, so the file
  // replays as-is.
  for (const FaultInfo& fi : all_faults()) {
    if (fault_on(fi.fault)) p.header.faults.push_back(fi.name);
  }
  e.found_by = p.header.found_by;
  std::string text = program::print_program(p);
  e.original = base + ".sfz";
  e.lines_before = program_text_lines(text);
  write_atomically(opts_.out_dir / e.original, reproducer_text("detail: " + f.detail, text));
  by_signature_[f.signature] = entries_.size();
  entries_.push_back(e);
  write_report(false);
  if (!opts_.quiet) {
    std::fprintf(stderr, "%s seed=%llu %s -> %s\n", f.bucket.c_str(),
                 static_cast<unsigned long long>(f.seed), f.signature.c_str(),
                 (opts_.out_dir / e.original).c_str());
  }
  if (opts_.minimize_seconds > 0) {
    minimize_queue_.push_back({entries_.size() - 1, text, f.elapsed});
    take_minimizer_result(false);
    start_next_minimizer();
  }
}

CampaignReport::~CampaignReport() {
  if (minimizer_pid_ > 0) {
    kill(minimizer_pid_, SIGKILL);
    while (waitpid(minimizer_pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

namespace {

std::filesystem::path minimizer_result_path(const std::filesystem::path& dir, size_t entry) {
  return dir / (".minimize-" + std::to_string(entry) + ".json");
}

}  // namespace

void CampaignReport::start_next_minimizer() {
  if (minimizer_pid_ > 0 || minimize_queue_.empty() || stop_requested()) return;
  QueuedMinimization q = std::move(minimize_queue_.front());
  minimize_queue_.pop_front();
  // At most the campaign's time left (2 s at least), counted from when the finding came.
  double budget = opts_.minimize_seconds;
  if (opts_.campaign_seconds > 0) {
    budget =
        std::min(budget, std::max(2.0, opts_.campaign_seconds - std::max(q.found_at, elapsed_)));
  }
  std::fflush(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {  // no process to spare: minimize here, as before
    minimize(entries_[q.entry], q.text, budget);
    write_report(false);
    return;
  }
  if (pid == 0) {
    // Never outlive the campaign: files written after its last report would be named nowhere.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    // The child keeps none of the parent's descriptors (worker pipes above all: a copy of a
    // write end would hide a worker's exit from the parent).
    close_range(3, ~0U, 0);
    int code = 0;
    try {
      Entry e = entries_[q.entry];
      minimize(e, q.text, budget);
      nlohmann::json j = {{"replays", e.replays},
                          {"lines_after", e.lines_after},
                          {"minimize_seconds", e.minimize_seconds},
                          {"minimize_attempts", e.minimize_attempts},
                          {"minimize_stopped_by", e.minimize_stopped_by},
                          {"minimized", e.minimized},
                          {"test", e.test}};
      write_atomically(minimizer_result_path(opts_.out_dir, q.entry), j.dump() + "\n");
    } catch (...) {
      code = 1;
    }
    std::fflush(nullptr);
    _exit(code);
  }
  minimizer_pid_ = pid;
  minimizer_entry_ = q.entry;
  // (Less a margin: a file's time is the kernel's coarse clock, up to a tick behind.)
  minimizer_started_ =
      std::filesystem::file_time_type::clock::now() - std::chrono::milliseconds(50);
}

void CampaignReport::take_minimizer_result(bool block) {
  if (minimizer_pid_ <= 0) return;
  int status = 0;
  pid_t done;
  while ((done = waitpid(minimizer_pid_, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (done == 0) return;  // still minimizing
  pid_t pid = minimizer_pid_;
  minimizer_pid_ = -1;
  Entry& e = entries_[minimizer_entry_];
  std::filesystem::path result = minimizer_result_path(opts_.out_dir, minimizer_entry_);
  std::optional<std::string> text = read_text_file(result);
  nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (done < 0 || !text || j.is_discarded() || !j.is_object()) {
    // The minimizer died (or wrote nothing): the original reproducer stands alone.
    e.minimize_stopped_by = interrupted_ ? "interrupted" : "minimizer died";
    std::string base = e.original.substr(0, e.original.size() - 4);
    std::string min_name = base + ".min.sfz", test_name = base + "_test.cc";
    std::string tmp = ".tmp." + std::to_string(pid);  // what write_atomically left half-written
    std::error_code ec;
    std::filesystem::remove(opts_.out_dir / (min_name + tmp), ec);
    std::filesystem::remove(opts_.out_dir / (test_name + tmp), ec);
    std::filesystem::remove(result.string() + tmp, ec);
    // Killed after it wrote the minimized reproducer (atomically: it is complete) but before its
    // result: the reproducer is named all the same, and its test if that was written too (files
    // this minimizer wrote, not ones an earlier campaign left in the same directory).
    auto written = [&](const std::string& name) {
      std::error_code err;
      auto t = std::filesystem::last_write_time(opts_.out_dir / name, err);
      return !err && t >= minimizer_started_;
    };
    std::optional<std::string> min = read_text_file(opts_.out_dir / min_name);
    if (min && written(min_name)) {
      e.minimized = min_name;
      e.lines_after = program_text_lines(*min);
      if (written(test_name)) e.test = test_name;
    }
  } else {
    e.replays = j.value("replays", true);
    e.lines_after = j.value("lines_after", 0);
    e.minimize_seconds = j.value("minimize_seconds", 0.0);
    e.minimize_attempts = j.value("minimize_attempts", 0);
    e.minimize_stopped_by = j.value("minimize_stopped_by", std::string());
    e.minimized = j.value("minimized", std::string());
    e.test = j.value("test", std::string());
  }
  std::error_code ec;
  std::filesystem::remove(result, ec);
  write_report(false);
}

void CampaignReport::minimize(Entry& e, const std::string& text, double budget) {
  auto start = std::chrono::steady_clock::now();
  ShrinkLimits limits;
  limits.seconds = budget;
  ShrinkResult r = shrink_program(
      text,
      [&](const std::string& t) {
        return signature(run_program_isolated(t, opts_.pipeline, opts_.limits)) == e.signature;
      },
      limits);
  e.minimize_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  e.minimize_attempts = r.attempts;
  e.minimize_stopped_by = r.stopped_by;
  e.replays = r.reproduced;
  if (!e.replays) {
    if (!opts_.quiet) {
      std::fprintf(stderr,
                   "  does not replay alone (it depends on the worker's earlier programs)\n");
    }
    return;
  }
  e.lines_after = program_text_lines(r.text);
  std::string base = e.original.substr(0, e.original.size() - 4);
  e.minimized = base + ".min.sfz";
  e.test = base + "_test.cc";
  write_atomically(opts_.out_dir / e.minimized, reproducer_text("detail: " + e.detail, r.text));
  write_atomically(opts_.out_dir / e.test,
                   gtest_file_text(slug(e.bucket) + "_" + sha256_hex(e.signature).substr(0, 8),
                                   r.text, e.signature, e.found_by));
  if (!opts_.quiet) {
    std::fprintf(stderr, "  minimized %d -> %d statements in %.1fs (%d runs): %s\n", e.lines_before,
                 e.lines_after, e.minimize_seconds, r.attempts,
                 (opts_.out_dir / e.minimized).c_str());
  }
}

void CampaignReport::progress(double elapsed, uint64_t programs,
                              const std::map<std::string, uint64_t>& buckets) {
  elapsed_ = elapsed;
  programs_ = programs;
  buckets_ = buckets;
  add_sample();
  take_minimizer_result(false);
  start_next_minimizer();
  if (elapsed - last_write_ >= 2.0) write_report(false);
}

void CampaignReport::stop_minimizing() {
  interrupted_ = true;
  if (minimizer_pid_ > 0) kill(minimizer_pid_, SIGKILL);
  take_minimizer_result(true);  // reaps it (and keeps its result if it had just finished)
  for (const QueuedMinimization& q : minimize_queue_) {
    entries_[q.entry].minimize_stopped_by = "interrupted";
  }
  minimize_queue_.clear();
}

void CampaignReport::finish(const CampaignResult& r) {
  // The queued minimizations, one at a time; a stop request (a signal interrupts the sleep) cuts
  // them short.
  while (!r.interrupted && !stop_requested() && (minimizer_pid_ > 0 || !minimize_queue_.empty())) {
    take_minimizer_result(false);
    start_next_minimizer();
    struct timespec tick = {0, 20 * 1000 * 1000};
    if (minimizer_pid_ > 0) nanosleep(&tick, nullptr);
  }
  if (r.interrupted || stop_requested()) stop_minimizing();
  elapsed_ = r.seconds;
  programs_ = r.programs;
  buckets_ = r.buckets;
  workers_lost_ = r.workers_lost;
  edge_features_ = r.edge_features;
  resume_seed_ = r.resume_seed;
  coverage(r.feature_set);
  add_sample();
  write_report(true);
}

void CampaignReport::coverage(const std::unordered_set<uint64_t>& features) {
  reached_.insert(features.begin(), features.end());  // a resumed campaign's too: the union
  features_ = reached_.size();
  if (reached_.size() == feature_hashes_.size()) return;  // the set only grows
  feature_hashes_.assign(reached_.begin(), reached_.end());
  std::sort(feature_hashes_.begin(), feature_hashes_.end());
}

void CampaignReport::add_sample() {
  timeline_.push_back({elapsed_, programs_, features_, buckets_});
  // Bounded however long the campaign: past kMaxSamples, every other sample goes (the last stays).
  if (timeline_.size() > kMaxSamples) {
    std::vector<Sample> kept;
    for (size_t i = 0; i < timeline_.size(); i += 2) kept.push_back(timeline_[i]);
    if (kept.back().seconds != timeline_.back().seconds) kept.push_back(timeline_.back());
    timeline_ = std::move(kept);
  }
}

// The schema is docs/report-schema.md; a new field goes there too (and schema_version changes
// only when a field changes meaning or goes away).
void CampaignReport::write_report(bool finished) {
  last_write_ = elapsed_;
  nlohmann::ordered_json j;
  j["schema_version"] = kReportSchemaVersion;
  j["status"] = !finished ? "running" : interrupted_ ? "interrupted" : "finished";
  j["seconds"] = elapsed_;
  j["programs"] = programs_;
  j["programs_per_second"] = elapsed_ > 0 ? static_cast<double>(programs_) / elapsed_ : 0.0;
  j["workers_lost"] = workers_lost_;
  j["features"] = features_;
  j["edge_features"] = edge_features_;
  j["campaign"] = {{"first_seed", opts_.first_seed},
                   {"seeds", opts_.seeds},
                   {"jobs", opts_.jobs},
                   {"shard", opts_.shard},
                   {"shards", opts_.shards},
                   {"swarm", opts_.swarm},
                   {"swarm_origin", opts_.swarm ? opts_.swarm_origin : 0}};
  // Where `campaign --resume` goes on: past every seed a slot started (before the end, an
  // estimate: a killed campaign's report has no other).
  j["campaign"]["resume_seed"] = resume_seed_ ? resume_seed_ : opts_.first_seed + programs_;
  j["buckets"] = nlohmann::ordered_json::object();
  for (const auto& [k, n] : buckets_) j["buckets"][k] = n;
  j["findings"] = nlohmann::ordered_json::array();
  for (const Entry& e : entries_) {
    j["findings"].push_back({{"signature", e.signature},
                             {"bucket", e.bucket},
                             {"class", finding_class(e.bucket)},
                             {"count", e.count},
                             {"first_seed", e.first_seed},
                             {"recipe", e.recipe},
                             {"found_at_seconds", e.found_at},
                             {"original", e.original},
                             {"minimized", e.minimized},
                             {"test", e.test},
                             {"statements", e.lines_before},
                             {"minimized_statements", e.lines_after},
                             {"minimize_seconds", e.minimize_seconds},
                             {"minimize_stopped_by", e.minimize_stopped_by},
                             {"replays", e.replays},
                             {"detail", e.detail}});
  }
  j["nights"] = opts_.nights;
  j["nights"].push_back({{"first_seed", opts_.first_seed},
                         {"seconds", elapsed_},
                         {"programs", programs_},
                         {"features", features_},
                         {"new_features", features_ - known_features_},
                         {"findings", entries_.size()},
                         {"corpus", opts_.corpus}});
  j["timeline"] = nlohmann::ordered_json::array();
  for (const Sample& s : timeline_) {
    nlohmann::ordered_json b = nlohmann::ordered_json::object();
    for (const auto& [k, n] : s.buckets) b[k] = n;
    j["timeline"].push_back({{"seconds", s.seconds},
                             {"programs", s.programs},
                             {"features", s.features},
                             {"buckets", b}});
  }
  if (generator_) {
    const GenStats& g = *generator_;
    j["generator"] = {{"first_seed", generator_first_seed_},
                      {"programs", g.programs},
                      {"reached_execution", g.reached_execution},
                      {"data_dependent", g.data_dependent},
                      {"ops", g.op_programs},
                      {"features", g.features},
                      {"keypath_kinds", g.keypath_kinds}};
  }
  // The features first: a report never counts more features than features.txt beside it holds.
  if (feature_hashes_.size() != feature_hashes_written_) {
    write_atomically(opts_.out_dir / "features.txt", hash_list_text(feature_hashes_, '\n'));
    feature_hashes_written_ = feature_hashes_.size();
  }
  // Details may hold bytes that are not UTF-8 (a program's text): replaced, never a throw.
  write_atomically(opts_.out_dir / "report.json",
                   j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  write_atomically(opts_.out_dir / "report.html", report_html(j));
  json_ = std::move(j);
}

}  // namespace sf::fuzz
