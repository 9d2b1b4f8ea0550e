// Drives a ShapeEnv through a random but realistic call sequence decoded from a FuzzSource:
// input symbols, unbacked allocations with bindings, checks, guards, static queries, retrace
// renames. Used by the ShapeEnv fuzz target and the replay benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/shape_env/shape_env.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

// The six comparisons by index (==, !=, <, <=, >, >=), shared by the ShapeEnv generators;
// indices past 5 wrap around. relation_name gives the operator as written in Python.
constexpr size_t kNumRelations = 6;
SymBool relation(size_t op, const SymInt& a, const SymInt& b);
const char* relation_name(size_t op);

struct DriveStats {
  int64_t calls = 0;
  int64_t user_errors = 0;
  // Each value a fresh symbol was exposed in, with the paths compute_unbacked_bindings found
  // (the ShapeEnv target checks them against INV-4 with an independent walk).
  std::vector<std::pair<Value, Bindings>> exposed;
};

// Performs `steps` operations; user errors are counted, never propagated. With `script`, also
// records each operation as one line of a small language that tools/bench/pytorch_shape_env.py
// replays against PyTorch's ShapeEnv (the same sequence, for the performance comparison).
DriveStats drive_shape_env(FuzzSource& src, ShapeEnv& env, int steps,
                           std::vector<std::string>* script = nullptr);

}  // namespace sf::fuzz
