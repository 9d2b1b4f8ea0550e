// Backend factory for the CLI.
#include "tools/cli/backends.h"

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cuda/cuda_backend.h"

namespace sf::cli {

std::unique_ptr<backend::Backend> make_backend(const std::string& name) {
  if (name == "cpu") return backend::make_cpu_backend();
  if (name == "cuda") return backend::make_cuda_backend();
  return nullptr;
}

}  // namespace sf::cli
