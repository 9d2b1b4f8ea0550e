// The plan runner's keypath bindings: DivideByKey binds the quotient and checks divisibility at
// run time (INV-20); a second definition of a symbol must agree; guards reject other inputs.
#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/sym/make.h"

namespace sf {
namespace {

using lower::Extern;
using lower::Plan;
using lower::Step;

// repeat_interleave(repeats) whose output size s binds u = s // 2 through a DivideByKey.
Plan divide_by_plan(ShapeEnv& env, ExprRef* u) {
  *u = env.create_unbacked_symint().expr();
  Plan p;
  p.buffers.push_back(lower::Buffer{0, "r", program::DType::kInt64, {sym::integer(2)}, "r", -1});
  p.buffers.push_back(
      lower::Buffer{1, "buf1", program::DType::kInt64, {sym::mul(sym::integer(2), *u)}, "", 0});
  Extern e;
  e.op = program::OpKind::kRepeatInterleave;
  e.name = "e0";
  lower::ExternArg repeats_arg;
  repeats_arg.kind = lower::ExternArg::Kind::kTensor;
  repeats_arg.input = 0;
  e.args = {repeats_arg, lower::ExternArg{}, lower::ExternArg{},
            lower::ExternArg{}};  // repeat_interleave(r)
  e.inputs.push_back(lower::Layout{
      0, program::DType::kInt64, {sym::integer(2)}, {sym::integer(1)}, sym::integer(0)});
  e.outputs = {1};
  KeyPath path{KeyEntry::call_method(TensorMethod::kSize), KeyEntry::sequence(0),
               KeyEntry::divide_by(sym::integer(2))};
  e.unbacked_bindings = {{*u, path}};
  p.externs.push_back(e);
  p.steps.push_back(Step{Step::Kind::kBindInput,
                         nullptr,
                         "",
                         -1,
                         -1,
                         sym::integer(2),
                         {KeyEntry::call_method(TensorMethod::kSize), KeyEntry::sequence(0)},
                         "r"});
  p.steps.push_back(Step{Step::Kind::kExtern, nullptr, "", -1, 0});
  p.steps.push_back(Step{Step::Kind::kBind, nullptr, "", -1, 0, *u, path});
  return p;
}

program::HostValue repeats(std::vector<int64_t> v) {
  program::HostTensor t =
      program::HostTensor::zeros(program::DType::kInt64, {static_cast<int64_t>(v.size())});
  t.ints = v;
  return program::HostValue::of_tensor(t);
}

TEST(Runner, DivideByKeyBindsTheQuotient) {
  ShapeEnv env;
  ExprRef u;
  Plan p = divide_by_plan(env, &u);
  auto cpu = backend::make_cpu_backend();
  backend::RunResult r = cpu->run(p, env, {{"r", repeats({3, 1})}});  // output size 4
  ASSERT_EQ(r.sigma.count(u), 1u);
  EXPECT_EQ(r.sigma.at(u).i, 2);
}

TEST(Runner, DivideByKeyChecksDivisibility) {
  ShapeEnv env;
  ExprRef u;
  Plan p = divide_by_plan(env, &u);
  auto cpu = backend::make_cpu_backend();
  try {
    cpu->run(p, env, {{"r", repeats({2, 1})}});  // output size 3 is odd
    FAIL() << "expected the DivideByKey divisibility check to fail";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kRuntimeAssertFailed);
    EXPECT_NE(std::string(e.what()).find("not divisible by 2"), std::string::npos) << e.what();
  }
}

TEST(Runner, StaticInputSizeMismatchIsAGuardFailure) {
  ShapeEnv env;
  ExprRef u;
  Plan p = divide_by_plan(env, &u);
  auto cpu = backend::make_cpu_backend();
  EXPECT_THROW(cpu->run(p, env, {{"r", repeats({1, 1, 1})}}), backend::GuardFailed);
}

}  // namespace
}  // namespace sf
