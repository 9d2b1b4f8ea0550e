// The CPU backend: the reference executor of wrapper plans. Kernels are interpreted column-wise
// (each body node evaluated over the whole iteration space), with the element semantics shared
// with eager; extern kernels call the eager reference implementations of their ops.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "engine/backend/runner.h"

namespace sf::backend {

std::unique_ptr<Backend> make_cpu_backend();

namespace cpu {

// Extern `e` run by the eager implementation of its op (eager's one dispatch) on dense host
// inputs (one per tensor argument) and its other arguments evaluated in σ: each output goes to
// `store(buffer, tensor)` (e.outputs order) and its shape into the result; item returns its scalar.
// Also the CUDA backend's host emulation in tests.
ExternOutputs run_eager_extern(
    const lower::Extern& e, std::vector<program::HostTensor> inputs, const SymbolEnv& sigma,
    const std::function<void(int buffer, const program::HostTensor& t)>& store);

}  // namespace cpu

}  // namespace sf::backend
