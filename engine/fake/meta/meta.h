// Meta functions: output metadata for every program op on fake values. They guard only through
// the ShapeEnv (never by comparing hints), allocate unbacked symbols with the ranges of spec §4.2,
// and report user errors (bad shapes, data-dependent guards) as typed UserErrors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/fake/fake_mode.h"
#include "engine/program/schema.h"

namespace sf::fake {

// One bound parameter of a call, in the form its ParamKind calls for.
struct MetaArg {
  program::ParamKind kind = program::ParamKind::kAny;
  bool present = false;
  Value value;                 // kTensor, kScalar, kAny, kInt (a scalar or a fake tensor)
  std::vector<SymInt> ints;    // kInts
  std::vector<int64_t> dims;   // kDim (one entry), kDims
  std::vector<Value> tensors;  // kTensors
  DType dtype = DType::kFloat32;
  bool flag = false;
};

struct MetaContext {
  FakeMode& mode;
  std::string where;  // "line 4: index" — prefixes every error message
  ShapeEnv& env() const { return mode.env(); }
  // Re-propagation of a slice whose trace bound fresh symbols: bind fresh ones at the same
  // places again, even where the facts recorded since would now decide the clamp, so the
  // re-propagated node rebinds to the traced symbols (INV-17) instead of dropping them.
  struct SliceReplay {
    bool fresh_size = false;
    bool fresh_offset = false;
  };
  std::optional<SliceReplay> slice_replay;
  // computeStride's decisions for a view of a layout that is not provably contiguous, in the
  // order it made them: recorded by the trace, made again by re-propagation (view_replay), so a
  // view the trace accepted stays the same view where facts recorded since (a later check that
  // narrowed a range) would now steer its fallbacks elsewhere and refuse it.
  std::vector<bool> view_decisions;
  std::optional<std::vector<bool>> view_replay;
};

Value run_meta(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);

// Marks the messages of deferred asserts that meta functions add on their own (broadcast
// equality, a size that must not be 1, ...), as opposed to the program's checks.
inline constexpr const char* kImplicitAssertTag = "[implicit]";

}  // namespace sf::fake
