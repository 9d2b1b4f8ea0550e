// Generates the concrete value of each program input from its DataSpec, with the algorithms
// fixed in corpus/README.md (so a .sfz file reproduces bit-for-bit on any machine).
#pragma once

#include <map>
#include <string>

#include "engine/program/ast.h"
#include "engine/program/host_value.h"

namespace sf::program {

// Throws UserError(kInvalidProgram) when a literal has the wrong element count or a value that
// does not fit the dtype.
HostValue make_input_value(const InputDecl& decl);
std::map<std::string, HostValue> make_input_values(const Program& program);

}  // namespace sf::program
