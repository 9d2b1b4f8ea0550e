// The CPU backend: the reference executor of wrapper plans. Kernels are interpreted column-wise
// (each body node evaluated over the whole iteration space), with the element semantics shared
// with eager; extern kernels call the eager reference implementations of their ops.
#pragma once

#include <map>
#include <memory>

#include "engine/backend/runner.h"

namespace sf::backend {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace sf::backend
