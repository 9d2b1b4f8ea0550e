// PyTorch's own compile of one program, as the torch worker captures it (after AOTAutograd, or
// torch.export's graph): the FX graph's nodes with their symbolic metadata and unbacked
// bindings, the ShapeEnv's facts, and each node's real value from running the graph on the real
// inputs (issue 34).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/sym/expr.h"
#include "engine/sym/interval.h"

namespace sf::torch_graph {

using sym::ExprRef;

// A node's value: a tensor (sizes, strides, offset), a scalar, or a tuple of values. In metadata
// the numbers are expressions; in a real value they are integer constants (a scalar may be a
// float or bool constant). An expression PyTorch printed that we cannot read is null.
struct CapturedValue {
  enum class Kind { kNone, kTensor, kScalar, kTuple };
  Kind kind = Kind::kNone;
  std::vector<ExprRef> sizes, strides;
  ExprRef offset;
  ExprRef scalar;
  bool non_finite = false;  // a real float that is NaN or infinite (JSON has no number for it)
  std::vector<CapturedValue> items;
};

// Every expression of a value (sizes, strides, offset, scalar; those of its items), nulls too.
inline void each_expr(const CapturedValue& v, const std::function<void(const ExprRef&)>& f) {
  for (const ExprRef& e : v.sizes) f(e);
  for (const ExprRef& e : v.strides) f(e);
  f(v.offset);
  f(v.scalar);
  for (const CapturedValue& x : v.items) each_expr(x, f);
}

// One step of a binding's keypath (PyTorch's CallMethodKey, SequenceKey, ConvertIntKey,
// DivideByKey, InnerTensorKey).
struct KeyStep {
  enum class Kind { kSize, kStride, kStorageOffset, kIndex, kConvertInt, kDivideBy, kInner };
  Kind kind = Kind::kIndex;
  int64_t n = 0;  // the index or divisor
  std::string text;
};

struct Binding {
  ExprRef symbol;
  std::vector<KeyStep> path;
};

struct CapturedNode {
  std::string name, op, target;
  std::vector<std::string> args;  // the nodes it reads, by name
  // Its arguments as PyTorch printed them: "%node", a literal's repr, "key=value" (empty when
  // the capture predates them).
  std::vector<std::string> call;
  std::optional<CapturedValue> val;
  std::vector<Binding> bindings;
};

struct CapturedGraph {
  std::vector<CapturedNode> nodes;
  // The bodies of its higher-order ops (not run on their own), by submodule name.
  std::vector<std::pair<std::string, std::vector<CapturedNode>>> subgraphs;
  std::map<std::string, CapturedValue> real;  // node name -> its real value
  // The ShapeEnv at the end of compilation.
  std::vector<std::pair<ExprRef, sym::ValueRange>> ranges;
  std::vector<std::pair<ExprRef, ExprRef>> replacements;  // symbol -> expression
  std::vector<std::pair<ExprRef, ExprRef>> renamings;     // new symbol -> old symbol
  std::vector<ExprRef> guards, asserts;
  std::vector<ExprRef> divisible;         // Mod(a, b) expressions known to be 0
  std::vector<ExprRef> size_like;         // symbols marked as sizes (known >= 0)
  std::vector<std::string> empty_ranges;  // "u3 in [2, 1]": a range no value is in
  std::vector<std::string> unreadable;    // expressions we could not read, with where they were
};

struct Capture {
  std::string torch_version;
  std::vector<CapturedGraph> graphs;
};

}  // namespace sf::torch_graph
