// The output values of the higher-order ops (spec §6.1–§6.2), shared by the tracer and by
// re-propagation: cond merges its branches' outputs, while_loop keeps its carries' shapes,
// invoke_subgraph keeps what its inputs determine; sizes and ints that may differ become fresh
// unbacked symbols the HOP node binds.
#pragma once

#include <set>
#include <string>

#include "engine/fake/fake_mode.h"
#include "engine/shape_env/value.h"

namespace sf::graph {

// cond's output `i` from the branches' values a and b (_merge_output): equal sizes and ints free
// of unbacked symbols are kept, anything else is a fresh unbacked symbol over the hull of both
// ranges; tensors must agree in dtype and rank (UserError naming `where` otherwise), and the
// result is contiguous.
Value merge_cond_output(fake::FakeMode& mode, const Value& a, const Value& b, size_t i,
                        const std::string& where);

// while_loop's output for a carry whose value entering the loop is `carry`: an int is a fresh
// unbacked symbol, a tensor keeps its dtype and sizes (contiguous).
Value while_loop_output(fake::FakeMode& mode, const Value& carry);

// map's output for the function's returned value `step` (one row's) over `n` rows: a tensor of
// sizes [n, step's sizes], contiguous. The step's sizes must be over the function's inputs (a
// size made inside it could differ from row to row: UserError unsupported naming `where`), and
// it must be a tensor (UserError invalid_program).
Value map_output(fake::FakeMode& mode, const Value& step, const SymInt& n,
                 const std::set<ExprRef, sym::ExprLess>& inputs, const std::string& where);

// The free symbols of values (tensors' sizes, strides and offsets, ints' expressions): what a
// region's placeholders hold are its inputs.
std::set<ExprRef, sym::ExprLess> symbols_of(const std::vector<Value>& values);

// invoke_subgraph's output for the region's returned value `v`: sizes and ints over the region's
// inputs (`inputs`, the symbols of its placeholders) are kept; one that mentions a symbol made
// inside the region is a fresh unbacked symbol over its range, made anew for every call (a
// region traced once must not hand the same symbol to two call sites). Tensors are contiguous;
// anything but a tensor or an int is a UserError naming `where`.
Value invoke_subgraph_output(fake::FakeMode& mode, const Value& v,
                             const std::set<ExprRef, sym::ExprLess>& inputs,
                             const std::string& where);

}  // namespace sf::graph
