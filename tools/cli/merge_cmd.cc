// `shapefuzz merge OUT DIR...`: one report of a campaign's shard directories (fuzz/shards.h does
// the merging); prints the one-line summary, writes JUnit on request, and exits 1 on a failure or
// crash signature not in the --known list (every such signature when no list is given), else 5
// when a shard is missing or unreadable (unless --allow-incomplete).
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fuzz/files.h"
#include "fuzz/junit.h"
#include "fuzz/shards.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct MergeFlags {
  std::string out;
  std::vector<std::string> shards;
  std::string known, junit;
  bool no_distill = false, allow_incomplete = false;
  int jobs = 1;
  IsolationFlags isolation;
  OracleFlags oracles;
};

int merge(const MergeFlags& f) {
  fuzz::MergeOptions opts;
  opts.out_dir = f.out;
  for (const std::string& d : f.shards) opts.shard_dirs.push_back(d);
  if (!f.known.empty()) {
    std::optional<std::string> text = fuzz::read_text_file(f.known);
    if (!text) {
      std::fprintf(stderr, "merge: cannot read the known-signature list %s\n", f.known.c_str());
      return kExitUsage;
    }
    opts.known = fuzz::parse_known_signatures(*text);
  }
  for (const std::string& path : {f.out + "/report.json", f.junit}) {
    if (path.empty()) continue;
    if (std::optional<std::string> why = fuzz::check_writable_file(path)) {
      std::fprintf(stderr, "merge: cannot write %s: %s\n", path.c_str(), why->c_str());
      return kExitUsage;
    }
  }
  opts.distill = !f.no_distill;
  opts.jobs = f.jobs;
  opts.pipeline = f.oracles.options();
  opts.limits = f.isolation.limits;
  fuzz::MergeResult r = fuzz::merge_shards(opts);
  for (const std::string& p : r.problems) std::fprintf(stderr, "merge: %s\n", p.c_str());
  if (r.shards_read == 0) {
    std::fprintf(stderr, "merge: no shard report could be read\n");
    return kExitUsage;
  }
  if (r.corpus) {
    std::printf("corpus: %zu entries read, %zu kept (%zu features; %zu dropped as crashing)\n",
                r.corpus->read, r.corpus->kept, r.corpus->features, r.corpus->crashed);
  }
  for (const std::string& sig : r.new_signatures) {
    std::printf("%s: %s\n", opts.known ? "new" : "finding", sig.c_str());
  }
  if (!f.junit.empty()) {
    fuzz::write_atomically(
        f.junit, fuzz::junit_xml("shapefuzz merge", fuzz::report_junit(r.report, opts.known)));
  }
  long fresh = opts.known ? static_cast<long>(r.new_signatures.size()) : -1;
  std::printf("%s (%zu shards merged into %s)\n",
              fuzz::report_summary_line(r.report, fresh).c_str(), r.shards_read,
              (opts.out_dir / "report.json").c_str());
  if (!r.new_signatures.empty()) return kExitFindings;
  if (!r.complete && !f.allow_incomplete) {
    std::fprintf(stderr,
                 "merge: incomplete (a shard is missing or could not be read; see above): exit "
                 "%d (--allow-incomplete to accept it)\n",
                 kExitInconclusive);
    return kExitInconclusive;
  }
  return kExitOk;
}

}  // namespace

void add_merge_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<MergeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "one report of a sharded campaign: reads each DIR's report.json (a shard killed mid-run "
      "included), features.txt and corpus/, and writes OUT/report.json, report.html, "
      "features.txt, every finding's reproducers (deduplicated by signature: counts summed, the "
      "smallest first seed kept) and OUT/corpus (the shards' corpora distilled to a minimal set "
      "with the same engine-level features); exit 1 on a failure or crash signature not in "
      "--known, 5 when a shard is missing or unreadable, 2 when none could be read");
  cmd->add_option("OUT", f->out, "the merged report's directory")->required();
  cmd->add_option("DIR", f->shards, "shard directories (campaign --shard I/N --out DIR)")
      ->required();
  cmd->add_option("--known", f->known,
                  "known signatures, one per line ('#' comments): only a signature not listed "
                  "fails the merge");
  cmd->add_option("--junit", f->junit, "write JUnit XML: a case per finding signature");
  cmd->add_flag("--no-distill", f->no_distill, "leave the shards' corpora out");
  cmd->add_flag("--allow-incomplete", f->allow_incomplete,
                "exit 0 (when nothing new was found) even if a shard is missing or unreadable");
  cmd->add_option("--jobs", f->jobs, "corpus entries run at once while distilling")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  f->isolation.add_to(cmd);
  f->oracles.add_to(cmd);
  cmd->callback([=] { *action = [=] { return merge(*f); }; });
}

}  // namespace sf::cli
