// The engine's error type for the nvcc-built externs (cuda_externs.cu includes no engine headers).
#include "engine/backend/cuda/cuda_externs.h"
#include "engine/base/errors.h"

namespace sf::backend::cuda {

void raise_extern_error(const std::string& message) { throw EngineBug(message); }

}  // namespace sf::backend::cuda
