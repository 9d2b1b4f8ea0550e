// Drives a ShapeEnv through a random but realistic call sequence decoded from a FuzzSource:
// input symbols, unbacked allocations with bindings, checks, guards, static queries, retrace
// renames. Used by the ShapeEnv fuzz target and the replay benchmark.
#pragma once

#include <cstdint>

#include "engine/shape_env/shape_env.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

struct DriveStats {
  int64_t calls = 0;
  int64_t user_errors = 0;
};

// Performs `steps` operations; user errors are counted, never propagated.
DriveStats drive_shape_env(FuzzSource& src, ShapeEnv& env, int steps);

}  // namespace sf::fuzz
