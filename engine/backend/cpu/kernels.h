// Column-wise interpretation of pointwise and reduction kernels on host storage.
#pragma once

#include <map>

#include "engine/backend/cpu/storage.h"
#include "engine/backend/runner.h"

namespace sf::backend::cpu {

// Runs kernel `k` reading and writing `buffers` (by buffer id). Integer division by zero and
// gather indices out of range are UserErrors (as in eager).
void run_kernel(const lower::Kernel& k, const SymbolEnv& sigma, std::map<int, Storage>& buffers);

}  // namespace sf::backend::cpu
