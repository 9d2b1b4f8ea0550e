// Every public entry point fed bad input leaves through exactly one of the three channels
// (engine/base/errors.h): a typed UserError of the expected kind naming what is wrong, EngineBug,
// or Unavailable. Never std::out_of_range, std::bad_alloc or any other exception.
#include <gtest/gtest.h>

#include <functional>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cuda/cuda_backend.h"
#include "engine/compile/compiled_program.h"
#include "engine/compile/pipeline.h"
#include "engine/eager/eager.h"
#include "engine/graph/tracer.h"
#include "engine/program/input_data.h"
#include "engine/program/parser.h"
#include "engine/shape_env/shape_env.h"
#include "oracles/pipeline.h"

namespace sf {
namespace {

enum class Channel { kNone, kUser, kEngineBug, kUnavailable, kOther };

struct Outcome {
  Channel channel = Channel::kNone;
  std::optional<UserErrorKind> kind;
  std::string message;
};

Outcome outcome_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return {Channel::kUser, e.kind(), e.what()};
  } catch (const EngineBug& e) {
    return {Channel::kEngineBug, std::nullopt, e.what()};
  } catch (const Unavailable& e) {
    return {Channel::kUnavailable, std::nullopt, e.what()};
  } catch (const std::exception& e) {
    return {Channel::kOther, std::nullopt, e.what()};
  }
  return {};
}

const char* kGood = "# sfz 1\ninput x: f32[3] = [1, 2, 3]\ninput n: i64 = 2\nreturn x * n\n";
const char* kIllTyped = "# sfz 1\ninput x: f32[3] = [1, 2, 3]\ninput n: i64 = 2\nreturn sum(n)\n";
const char* kDataDependent =
    "# sfz 1\ninput t: i64[1] = [3]\nk = item(t)\nif k > 2:\n  r = k\nelse:\n  r = 1\nreturn r\n";

std::map<std::string, program::HostValue> good_inputs() {
  return program::make_input_values(program::parse_program(kGood));
}

// A traced and lowered plan for kGood, to feed the backends bad inputs.
struct Compiled {
  compile::PipelineOutcome outcome;
  const lower::Plan& plan() const { return *outcome.products.plan; }
  const ShapeEnv& env() const { return outcome.products.env(); }
};

const Compiled& good_plan() {
  static const program::Program* p = new program::Program(program::parse_program(kGood));
  static const Compiled* c = [] {
    compile::PipelineConfig config;
    config.last = compile::Stage::kLower;
    return new Compiled{compile::Pipeline(config).run(*p)};
  }();
  return *c;
}

struct Case {
  const char* entry;  // "entry point: bad input"
  std::function<void()> call;
  Channel channel;
  std::optional<UserErrorKind> kind;
  const char* says;  // a fragment the message must contain
};

std::vector<Case> cases() {
  using K = UserErrorKind;
  auto cpu_run = [](std::map<std::string, program::HostValue> inputs) {
    return [inputs] {
      backend::make_cpu_backend()->run(good_plan().plan(), good_plan().env(), inputs);
    };
  };
  auto with = [](const std::string& name, program::HostValue v) {
    std::map<std::string, program::HostValue> in = good_inputs();
    in[name] = std::move(v);
    return in;
  };
  program::HostTensor i64 = good_inputs().at("x").tensor;
  i64.dtype = program::DType::kInt64;
  i64.ints.assign(i64.sizes[0], 1);
  program::HostTensor rank2 = good_inputs().at("x").tensor;
  rank2.sizes = {3, 1};
  program::HostTensor short_data = good_inputs().at("x").tensor;
  short_data.floats.pop_back();
  program::HostTensor longer = good_inputs().at("x").tensor;
  longer.sizes = {4};
  longer.floats.push_back(4);
  return {
      {"parse_program: no header", [] { program::parse_program("x = 1\n"); }, Channel::kUser,
       K::kParse, "header"},
      {"parse_program: bad literal count",
       [] { program::parse_program("# sfz 1\ninput x: f32[2] = [1]\nreturn x\n"); }, Channel::kUser,
       K::kParse, "input 'x'"},
      {"parse_program: undefined name",
       [] { program::parse_program("# sfz 1\ninput x: f32[3] = [1, 2, 3]\nreturn y\n"); },
       Channel::kUser, K::kInvalidProgram, "'y'"},
      {"run_eager: scalar for a tensor",
       [] { eager::run_eager(program::parse_program(kIllTyped)); }, Channel::kUser,
       K::kInvalidProgram, "tensor"},
      {"trace_program: scalar for a tensor",
       [] { graph::trace_program(program::parse_program(kIllTyped)); }, Channel::kUser,
       K::kInvalidProgram, "tensor"},
      {"trace_program: data-dependent if",
       [] { graph::trace_program(program::parse_program(kDataDependent)); }, Channel::kUser,
       K::kDataDependentGuard, "u0"},
      {"Backend::run: missing input", cpu_run({}), Channel::kUser, K::kInvalidProgram,
       "no value given for input"},
      {"Backend::run: scalar for a tensor", cpu_run(with("x", program::HostValue::of_int(1))),
       Channel::kUser, K::kInvalidProgram, "'x'"},
      {"Backend::run: wrong dtype", cpu_run(with("x", program::HostValue::of_tensor(i64))),
       Channel::kUser, K::kInvalidProgram, "f32"},
      {"Backend::run: wrong rank", cpu_run(with("x", program::HostValue::of_tensor(rank2))),
       Channel::kUser, K::kInvalidProgram, "rank 1"},
      {"Backend::run: tensor for a scalar",
       cpu_run(with("n", program::HostValue::of_tensor(longer))), Channel::kUser,
       K::kInvalidProgram, "'n'"},
      {"Backend::run: data shorter than the sizes",
       cpu_run(with("x", program::HostValue::of_tensor(short_data))), Channel::kUser,
       K::kInvalidProgram, "one data element per entry"},
      {"CompiledProgram::run: data shorter than the sizes",
       [with, short_data] {
         auto cpu = backend::make_cpu_backend();
         compile::CompiledProgram(program::parse_program(kGood), *cpu)
             .run(with("x", program::HostValue::of_tensor(short_data)));
       },
       Channel::kUser, K::kInvalidProgram, "does not match the sizes"},
      {"Backend::run: a static size differs",
       cpu_run(with("x", program::HostValue::of_tensor(longer))), Channel::kUser, K::kGuardFailed,
       "retrace"},
      {"CompiledProgram::run: missing input",
       [] {
         auto cpu = backend::make_cpu_backend();
         compile::CompiledProgram(program::parse_program(kGood), *cpu).run({});
       },
       Channel::kUser, K::kInvalidProgram, "pass every program input"},
      {"CompiledProgram::run: wrong rank",
       [with, rank2] {
         auto cpu = backend::make_cpu_backend();
         compile::CompiledProgram(program::parse_program(kGood), *cpu)
             .run(with("x", program::HostValue::of_tensor(rank2)));
       },
       Channel::kUser, K::kInvalidProgram, "rank 2"},
      {"ShapeEnv::size_hint: unbacked",
       [] {
         ShapeEnv env;
         env.size_hint(env.create_unbacked_symint().expr());
       },
       Channel::kUser, K::kDataDependentGuard, "u0"},
      {"ShapeEnv::check: statically false",
       [] {
         ShapeEnv env;
         SymInt u = env.create_unbacked_symint();
         env.check_is_size(u);
         env.check(sym_lt(u, 0), "u is negative");
       },
       Channel::kUser, K::kCheckFailed, "u is negative"},
      {"ShapeEnv::constrain_symbol_range: empty range",
       [] {
         ShapeEnv env;
         SymInt u = env.create_unbacked_symint();
         env.constrain_symbol_range(u.expr(), sym::ExtInt(5), sym::ExtInt(2));
       },
       Channel::kUser, K::kValue, "u0"},
      {"ShapeEnv::constrain_symbol_range: not a symbol",
       [] {
         ShapeEnv env;
         SymInt u = env.create_unbacked_symint();
         env.constrain_symbol_range((u + 1).expr(), sym::ExtInt(0), sym::ExtInt(2));
       },
       Channel::kUser, K::kValue, "expects a symbol"},
  };
}

TEST(ErrorChannelsTest, BadInputLeavesThroughItsChannel) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.entry);
    Outcome o = outcome_of(c.call);
    EXPECT_EQ(o.channel, c.channel) << o.message;
    if (c.kind) {
      EXPECT_EQ(o.kind, c.kind) << o.message;
    }
    EXPECT_NE(o.message.find(c.says), std::string::npos) << o.message;
  }
}

// The pipelines catch the channels instead of letting them escape: a rejection, not a crash.
TEST(ErrorChannelsTest, PipelinesRecordUserErrorsByStage) {
  compile::PipelineOutcome o = compile::Pipeline({}).run(program::parse_program(kIllTyped));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->stage, compile::Stage::kTrace);
  EXPECT_EQ(o.error->channel, compile::StageError::Channel::kUser);
  EXPECT_EQ(o.error->user_kind, UserErrorKind::kInvalidProgram);
  oracles::PipelineResult r = oracles::run_pipeline(program::parse_program(kDataDependent));
  EXPECT_EQ(r.verdict.kind, oracles::Verdict::Kind::kRejected) << r.verdict.str();
  EXPECT_EQ(r.verdict.error_kind, UserErrorKind::kDataDependentGuard);
}

// Without a GPU the CUDA backend says so through Unavailable (never EngineBug); with one it runs.
TEST(ErrorChannelsTest, MissingCudaIsUnavailable) {
  auto cuda = backend::make_cuda_backend();
  std::string why;
  Outcome o = outcome_of([&] { cuda->run(good_plan().plan(), good_plan().env(), good_inputs()); });
  if (cuda->available(&why)) {
    EXPECT_EQ(o.channel, Channel::kNone) << o.message;
  } else {
    EXPECT_EQ(o.channel, Channel::kUnavailable) << o.message;
    EXPECT_NE(o.message.find(why), std::string::npos) << o.message;
  }
}

}  // namespace
}  // namespace sf
