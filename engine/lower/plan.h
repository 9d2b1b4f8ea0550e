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
  // kCond / kWhileLoop / kInvokeSubgraph / kMap run nested plans (Plan::subplans) on values of
  // this one.
  enum class Kind {
    kGuard,
    kBindInput,
    kAlloc,
    kLaunch,
    kExtern,
    kBind,
    kAssert,
    kFree,
    kOutput,
    kCond,
    kWhileLoop,
    kInvokeSubgraph,
    kMap,
    kScan,
    kAssociativeScan
  };
  Kind kind = Kind::kGuard;
  ExprRef expr;            // kGuard / kAssert: the condition; kBind from a scalar: its expression
  std::string message;     // kGuard / kAssert
  int buffer = -1;         // kAlloc / kFree
  int kernel = -1;         // kLaunch: index into kernels; kExtern / kBind: index into externs
  ExprRef symbol;          // kBindInput / kBind
  KeyPath path;            // kBindInput: into the input value; kBind: into the extern's outputs
  std::string input_name;  // kBindInput
  std::vector<OutputRef> outputs;  // kOutput
  // kCond / kWhileLoop / kInvokeSubgraph / kMap: the subplans (then, else / cond, body / region,
  // calls of one region sharing its plan / fn); the values passed in (cond: the
  // predicate first), in the order of the subplans' inputs; which of those a loop or scan
  // carries; the buffer each tensor output is written to (-1 for an int); the symbols bound from
  // the outputs (keypath into the tuple of outputs).
  std::vector<int> subplans;
  std::vector<OutputRef> operands;
  std::vector<size_t> carries;
  std::vector<size_t> mapped;  // kMap / kScan: the operands gone over by rows
  // kAssociativeScan: `carries` are the left rows' slots, `mapped` the right ones', both holding
  // the operands; `dim` the dim it goes over.
  int64_t dim = 0;
  std::vector<int> result_buffers;
  std::vector<std::pair<ExprRef, KeyPath>> result_binds;
  // kBind in a subplan: recomputes a symbol its caller defines from this plan's inputs (a later
  // replacement of a lifted symbol by a multiple of it), so it is not a second definition.
  bool rederived = false;
};

struct Plan {
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Extern> externs;
  std::vector<Step> steps;
  // A subgraph's plan: the names of its inputs in placeholder order (the values a kCond /
  // kWhileLoop step passes), and the nested plans of its own HOP steps.
  std::vector<std::string> input_order;
  std::vector<Plan> subplans;
  std::string print() const;
  std::string kernel_str(const Kernel& k) const;
};

std::string kexpr_str(const KExpr& e);

}  // namespace sf::lower
