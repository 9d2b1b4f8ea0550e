// Backend selection for the CLI: "cpu", "cuda", or "none" (stop before lowering).
#pragma once

#include <memory>
#include <string>

#include "engine/backend/backend.h"

namespace sf::cli {

// Null for "none" and for unknown names.
std::unique_ptr<backend::Backend> make_backend(const std::string& name);

}  // namespace sf::cli
