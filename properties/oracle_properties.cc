// The per-oracle RapidCheck properties (see oracle_properties.h).
#include "properties/oracle_properties.h"

#include <rapidcheck.h>
#include <rapidcheck/detail/Results.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/printer.h"
#include "fuzz/fuzz_source.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/run_generated.h"
#include "oracles/pipeline.h"

namespace sf::props {

namespace {

// RapidCheck's bytes first, then a seeded stream: short byte vectors (RapidCheck starts small)
// still make whole programs, and shrinking the bytes and the seed shrinks the program.
class BytesThenSeed : public fuzz::FuzzSource {
 public:
  BytesThenSeed(const std::vector<uint8_t>& bytes, uint64_t seed) : bytes_(bytes), seed_(seed) {}
  uint64_t next_u64() override { return bytes_.exhausted() ? seed_.next_u64() : bytes_.next_u64(); }
  int bits_per_draw() const override { return bytes_.exhausted() ? 64 : 8; }

 private:
  fuzz::ByteSource bytes_;
  fuzz::SeedSource seed_;
};

}  // namespace

void oracle_holds(oracles::OracleKind oracle, const std::vector<uint8_t>& bytes, uint32_t seed) {
  static std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  BytesThenSeed src(bytes, seed);
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  opts.oracles = oracles::OracleSet::none().add(oracle);
  fuzz::GeneratedRun r = fuzz::generate_and_run(src, opts);
  const fuzz::GeneratedProgram& g = r.generated;
  const oracles::Verdict& v = r.result.verdict;
  RC_LOG() << "program (save as .sfz; `shapefuzz run FILE --oracles "
           << oracles::oracle_name(oracle) << "` replays it):\n"
           << program::print_program(g.program) << "verdict: " << v.str() << "\n";
  RC_CLASSIFY(v.kind == oracles::Verdict::Kind::kPass, "pass");
  RC_CLASSIFY(v.kind == oracles::Verdict::Kind::kRejected, "rejected");
  RC_ASSERT(v.kind != oracles::Verdict::Kind::kFail);
}

const std::vector<oracles::OracleKind>& oracle_property_kinds() {
  static const std::vector<oracles::OracleKind> kinds = {
      oracles::OracleKind::kBinding, oracles::OracleKind::kRename, oracles::OracleKind::kMemo,
      oracles::OracleKind::kTv, oracles::OracleKind::kDifferential};
  return kinds;
}

PropertyRun run_oracle_property(oracles::OracleKind k, const rc::detail::TestParams& params) {
  PropertyRun run{k};
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = std::string(oracles::oracle_name(k)) + " oracle holds";
  auto t0 = std::chrono::steady_clock::now();
  rc::detail::TestResult result = rc::detail::checkTestable(
      [k](const std::vector<uint8_t>& bytes, uint32_t seed) { oracle_holds(k, bytes, seed); },
      metadata, params);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.passed = result.template is<rc::detail::SuccessResult>();
  std::ostringstream os;
  os << "- " << metadata.description << "\n";
  rc::detail::printResultMessage(result, os);
  if (!run.passed) {
    // The same parameters replay the same cases, so this string reproduces the failure.
    os << "\nreproduce: RC_PARAMS=\"seed=" << params.seed << " max_success=" << params.maxSuccess
       << " max_size=" << params.maxSize << "\"\n";
  }
  run.output = os.str();
  return run;
}

std::vector<PropertyRun> run_oracle_properties(const rc::detail::TestParams& params) {
  std::vector<PropertyRun> runs;
  for (oracles::OracleKind k : oracle_property_kinds())
    runs.push_back(run_oracle_property(k, params));
  return runs;
}

}  // namespace sf::props
