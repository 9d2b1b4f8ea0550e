// Helpers for the CUDA backend tests: the program files they run (the corpus plus the backend's
// own programs) and the pipeline up to a plan, run on the CPU reference backend.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/parser.h"
#include "engine/sym/make.h"
#include "oracles/pipeline.h"

namespace sf::backend::testing {

// Every .sfz under corpus/program/ and tests/backend/programs/ (runfiles-relative), sorted.
inline std::vector<std::string> program_files() {
  std::vector<std::string> out;
  for (const char* dir : {"corpus/program", "tests/backend/programs"}) {
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".sfz") out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A program taken through the pipeline and run on the CPU backend (the plan, its trace and the
// CPU outcome stay alive together: plans refer into the trace's ShapeEnv).
struct Compiled {
  program::Program program;
  oracles::PipelineResult result;
  std::unique_ptr<Backend> cpu;
};

inline std::unique_ptr<Compiled> compile_file(const std::string& path) {
  auto c = std::make_unique<Compiled>();
  c->program = program::parse_program(read_text(path));
  c->cpu = make_cpu_backend();
  oracles::PipelineOptions opts;
  opts.backend = c->cpu.get();
  c->result = oracles::run_pipeline(c->program, opts);
  return c;
}

// out[i] = in0[i] + 1 + 2 + ... + n over [size] (i64; buffers 0 and 1), each k a σ scalar. With
// n > 500 its parameters pass the 4 KiB limit, so they go through device memory.
inline lower::Kernel many_scalars_kernel(int n, int64_t size) {
  lower::Kernel k;
  k.name = "many_scalars";
  k.sizes = {sym::integer(size)};
  lower::Access in, out;
  in.buffer = 0;
  out.buffer = 1;
  in.dtype = out.dtype = program::DType::kInt64;
  in.offset = out.offset = sym::integer(0);
  in.strides = out.strides = {sym::integer(1)};
  k.inputs = {in};
  k.output = out;
  lower::KExprPtr body = lower::KExpr::load(0, program::DType::kInt64);
  for (int s = 1; s <= n; ++s) {
    body = lower::KExpr::binary_of(program::BinaryOp::kAdd, std::move(body),
                                   lower::KExpr::scalar_of(sym::integer(s), program::DType::kInt64),
                                   program::DType::kInt64);
  }
  k.body = std::move(body);
  return k;
}

}  // namespace sf::backend::testing
