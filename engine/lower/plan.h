// The wrapper plan: a flat, printable list of steps (check guards, bind input symbols, allocate,
// launch, run externs, bind unbacked symbols from their outputs, assert, free, output). Built so
// that every symbol a step uses is defined by an earlier step (checked when the plan is built).
#pragma once

#include <string>
#include <vector>

#include "engine/lower/kernel_ir.h"

namespace sf::lower {

// A program output: a tensor (a layout over a buffer), a scalar expression, or a tuple.
struct OutputRef {
  enum class Kind { kTensor, kScalar, kTuple, kNone };
  Kind kind = Kind::kNone;
  Layout layout;
  ExprRef scalar;
  std::vector<OutputRef> elems;
};

struct Step {
  enum class Kind { kGuard, kBindInput, kAlloc, kLaunch, kExtern, kBind, kAssert, kFree, kOutput };
  Kind kind = Kind::kGuard;
  ExprRef expr;         // kGuard / kAssert: the condition; kBind from a scalar: its expression
  std::string message;  // kGuard / kAssert
  int buffer = -1;      // kAlloc / kFree
  int kernel = -1;      // kLaunch: index into kernels; kExtern / kBind: index into externs
  ExprRef symbol;       // kBindInput / kBind
  KeyPath path;         // kBindInput: into the input value; kBind: into the extern's outputs
  std::string input_name;  // kBindInput
  std::vector<OutputRef> outputs;  // kOutput
};

struct Plan {
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Extern> externs;
  std::vector<Step> steps;
  std::string print() const;
  std::string kernel_str(const Kernel& k) const;
};

std::string kexpr_str(const KExpr& e);

}  // namespace sf::lower
