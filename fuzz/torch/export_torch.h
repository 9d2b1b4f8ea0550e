// A .sfz program as a self-contained PyTorch program (`shapefuzz export-torch`): the same input
// data, the dim modes as maybe_mark_dynamic / mark_unbacked, each op as its torch call, checks as
// torch._check, and a driver that runs it eagerly, under torch.compile and torch.export and prints
// one JSON verdict per line. fuzz/torch/torch_worker.py runs the same text without the driver.
#pragma once

#include <string>

#include "engine/program/ast.h"

namespace sf::torch_ref {

// The Python text. Throws UserError(kInvalidProgram) when the inputs' data cannot be made (the
// same error `run` gives). Deterministic: the same program gives the same text.
std::string export_torch(const program::Program& p, const std::string& source_name);

}  // namespace sf::torch_ref
