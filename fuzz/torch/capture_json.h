// Reading the torch worker's capture (torch_prelude.py's sf_capture) into oracles/torch_graph's
// Capture: PyTorch's sympy expressions, shipped as trees of class names, become our expressions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "oracles/torch_graph/capture.h"

namespace sf::torch_ref {

using sym::ExprRef;

// One expression tree: an int, a symbol name (s*, u*, zf*, zuf*), or [class name, args...] for
// Add, Mul, Pow, PowByNatural, FloorDiv, PythonMod, Mod, CleanDiv, Max, Min, Abs, Piecewise,
// CeilToInt / FloorToInt / TruncToInt of an integer division, IntTrueDiv, FloatTrueDiv,
// ToFloat, Identity, Equality, Unequality, (Strict)LessThan, (Strict)GreaterThan, And, Or, Not,
// Bool, Float. Anything else throws UserError (kUnsupported) naming it.
ExprRef expr_of_tree(const nlohmann::json& tree);

// The whole capture. A malformed capture (not the shape sf_capture writes) throws UserError
// (kInvalidProgram); an expression we cannot read is recorded in the graph's `unreadable` and
// left out (null in a value), so the facts we can read are still judged.
torch_graph::Capture capture_of_json(const nlohmann::json& capture);

}  // namespace sf::torch_ref
