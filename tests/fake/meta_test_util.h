// Table-driven harness for the meta functions: declares fake inputs in a small text form, runs
// fake::run_meta on a call as the tracer would, and renders the result with what it added to the
// ShapeEnv (bindings, guards, deferred asserts, replacements, ranges) for comparison.
#pragma once

#include <string>
#include <vector>

#include "engine/shape_env/shape_env.h"

namespace sf::fake::testing {

// One row of a table. Inputs (each declared once, in order):
//   "x: f32[s0, 3]"  a contiguous tensor; a size is a literal, a backed symbol sK (hint K + 3, or
//                    sK=H at its first mention) or an unbacked size-like input symbol uK (K must
//                    be the next unbacked index, so names match the ShapeEnv's).
//   "n: int s2=5"    a backed int input (any sign); "k: int u1": an unbacked int input.
// `call` is "op(args)", optionally preceded by statements "name = op(args); ..." whose results
// later statements may name; "constrain(u0, LO, HI)" narrows a symbol's range, "bump_epoch()"
// starts a retrace and "inference_mode()" turns memo writes off. Arguments are
// positional or name=value, by the op's ops.def signature; omitted ones take their defaults. A
// value is a declared name, a symbol, an int/float literal, True/False, a list [a, b], a dtype or
// None. Only the last statement is checked:
//   out       the result: "f32[s0, 3]" compares dtype and sizes; with " stride=[...]" (and
//             " offset=..." when nonzero) the strides and offset too; scalars are "int u0",
//             "float zuf0", "bool Eq(u0, 1)"; tuples "(a, b)". Backed symbols print as declared.
//   bindings  ShapeEnv::compute_unbacked_bindings of the result, as the tracer calls it.
//   facts     what the call added: "guard E", "assert E" (deferred runtime asserts, which must
//             carry kImplicitAssertTag) and "a -> b" (replacements), sorted.
//   ranges    "sym: [lo, hi]" (+ " size-like") for each symbol the call created or whose range
//             or size-likeness it changed, sorted.
//   error     "kind: message substring" when the call must raise a UserError (facts and ranges
//             are then not compared).
struct MetaCase {
  std::vector<std::string> in = {};
  std::string call = "";
  std::string out = "";
  std::string bindings = "{}";
  std::vector<std::string> facts = {};
  std::vector<std::string> ranges = {};
  std::string error = "";
  ShapeEnvSettings settings = {};
};

// Runs each case in a fresh ShapeEnv and FakeMode, with a GoogleTest failure per mismatch.
void CheckAll(const std::vector<MetaCase>& cases);

}  // namespace sf::fake::testing
