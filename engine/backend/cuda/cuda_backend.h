// The CUDA backend: CUDA C generated per kernel, compiled with NVRTC (cached by source hash and
// architecture) and launched through the driver API; extern kernels run on the device with CUB.
// Every binary builds and runs without a GPU: available() then says why CUDA cannot run.
#pragma once

#include <memory>

#include "engine/backend/runner.h"

namespace sf::backend {

std::unique_ptr<Backend> make_cuda_backend();

}  // namespace sf::backend
