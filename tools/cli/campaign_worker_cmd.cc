// `shapefuzz campaign-worker ...`: the process a fork+exec'd campaign worker runs (campaign
// --backend cuda / --exec-workers): the campaign's worker loop on fd 3, its arguments those
// fuzz::WorkerArgs formats. Hidden from --help: only the campaign starts it.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "fuzz/worker_args.h"
#include "tools/cli/backends.h"
#include "tools/cli/commands.h"

namespace sf::cli {

void add_campaign_worker_command(CLI::App& app, Action* action) {
  CLI::App* cmd = app.add_subcommand(fuzz::kWorkerSubcommand, "a campaign's fork+exec'd worker");
  cmd->group("");
  cmd->prefix_command();  // every argument is WorkerArgs' to parse
  cmd->callback([=] {
    std::vector<std::string> args = cmd->remaining();
    *action = [args]() -> int {
      std::string error;
      std::optional<fuzz::WorkerArgs> w = fuzz::WorkerArgs::parse(args, &error);
      if (!w) {
        std::fprintf(stderr, "%s: %s\n", fuzz::kWorkerSubcommand, error.c_str());
        return kExitUsage;
      }
      fuzz::CampaignOptions o;
      o.pipeline = w->pipeline;
      o.jobs = w->jobs;
      o.memory_mb = w->memory_mb;
      if (w->backend == "cuda") o.memory_cap = fuzz::MemoryCap::kDataSegment;
      o.quiet_workers = w->quiet;
      o.guided = !w->corpus.empty();
      o.corpus_dir = w->corpus;
      std::string name = w->backend;
      o.make_backend = [name] { return make_backend(name); };
      fuzz::run_campaign_worker(3, w->quiet ? -1 : 2, w->plan, o);
    };
  });
}

}  // namespace sf::cli
