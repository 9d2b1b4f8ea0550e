// The rename-replacement oracle (spec INV-7/8, §2.9–2.12): replays the ShapeEnv's event log into a
// fresh ShapeEnv and, around every event that renames a symbol or rewrites a replacement, asks Z3
// whether everything known about the old symbol before (range, replacement, asserts, axioms) is
// still entailed for what it became, and whether the renamed symbol equals its new name.
#pragma once

#include "engine/shape_env/shape_env.h"
#include "oracles/oracle_report.h"

namespace sf::oracles {

OracleReport check_renames(const ShapeEnv& env, const smt::Options& opts = {});

}  // namespace sf::oracles
