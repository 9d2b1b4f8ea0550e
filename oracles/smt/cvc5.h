// cvc5 as a second opinion on an unsat answer (--cross-check): an SMT-LIB2 script run by the
// cvc5 binary.
#pragma once

#include <string>

namespace sf::smt {

// "sat", "unsat", "unknown", or why it could not run.
std::string run_cvc5(const std::string& script, unsigned timeout_ms);

}  // namespace sf::smt
