// Kernel IR (Inductor analogue): buffers, strided accesses over a symbolic iteration space,
// pointwise and reduction kernels with element-wise bodies, and extern kernels for ops whose
// output size depends on data. Every size, stride, offset and scalar is a sym expression that
// backends evaluate in the runtime symbol environment σ.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "engine/program/elementwise.h"
#include "engine/shape_env/keypath.h"
#include "engine/sym/expr.h"

namespace sf::graph {
struct Node;
}

namespace sf::lower {

using program::DType;
using sym::ExprRef;

// Dense storage. Kernel outputs are allocated with `numel` elements; extern outputs are allocated
// by the extern itself (their sizes contain the symbols it defines); inputs come from the caller.
struct Buffer {
  int id = 0;
  std::string name;  // "buf3"
  DType dtype = DType::kFloat32;
  std::vector<ExprRef> sizes;  // logical shape of the value that created it
  std::string input_name;      // non-empty for program inputs
  int extern_producer = -1;    // index into Plan::externs when an extern allocates it
};

// How a tensor sits in a buffer: element (i_0..i_k) lives at offset + sum(i_d * strides[d]).
struct Layout {
  int buffer = -1;
  DType dtype = DType::kFloat32;
  std::vector<ExprRef> sizes, strides;
  ExprRef offset;
};

// One kernel input (or the output) over the kernel's iteration space: the element for iteration
// point (j_0..j_n) is at offset + sum(j_d * strides[d]); broadcast dims have stride 0.
struct Access {
  int buffer = -1;
  DType dtype = DType::kFloat32;
  ExprRef offset;
  std::vector<ExprRef> strides;  // one per iteration dim
};

// Element ops have the semantics of engine/program/elementwise.h (shared with eager).
using program::BinaryOp;
using program::UnaryOp;
enum class ReduceOp { kSum, kMax, kMin, kAny, kAll };
const char* reduce_op_name(ReduceOp op);

struct KExpr;
using KExprPtr = std::shared_ptr<const KExpr>;

// The element-wise expression language of kernel bodies. Operands of a binary op have the same
// dtype (lowering inserts casts); comparison and logical results are bool.
struct KExpr {
  enum class Kind { kConst, kScalar, kLoad, kIndex, kUnary, kBinary, kWhere, kCast };
  Kind kind = Kind::kConst;
  DType dtype = DType::kFloat32;  // result dtype
  double fvalue = 0.0;            // kConst (f32)
  int64_t ivalue = 0;             // kConst (i64 / bool)
  ExprRef scalar;                 // kScalar: a scalar (int/float/bool expr) evaluated in σ
  int input = -1;                 // kLoad: index into Kernel::inputs
  // kLoad with gather: along iteration dim `gather_dim` the element index is `gather` (an i64
  // expression) instead of the iteration variable, times `gather_stride`; an index outside
  // [0, gather_size) is a runtime index error (no wrapping: index_select, gather, embedding).
  int gather_dim = -1;
  KExprPtr gather;
  ExprRef gather_size;
  ExprRef gather_stride;          // the source's stride along the gathered dim
  int dim = -1;                   // kIndex: the iteration variable of this dim (as i64)
  UnaryOp unary = UnaryOp::kNeg;  // kUnary
  BinaryOp binary = BinaryOp::kAdd;
  std::vector<KExprPtr> args;  // kUnary 1, kBinary 2, kWhere 3 (cond, a, b), kCast 1

  static KExprPtr constant_f(double v);
  static KExprPtr constant_i(int64_t v, DType dtype = DType::kInt64);
  static KExprPtr scalar_of(ExprRef e, DType dtype);
  static KExprPtr load(int input, DType dtype);
  static KExprPtr index(int dim);
  static KExprPtr unary_of(UnaryOp op, KExprPtr a);
  static KExprPtr binary_of(BinaryOp op, KExprPtr a, KExprPtr b, DType result);
  static KExprPtr where_of(KExprPtr c, KExprPtr a, KExprPtr b);
  static KExprPtr cast(KExprPtr a, DType to);  // no-op when already `to`
};

struct Kernel {
  enum class Kind { kPointwise, kReduction };
  Kind kind = Kind::kPointwise;
  std::string name;            // "k3_add"
  std::vector<ExprRef> sizes;  // the iteration space
  std::vector<Access> inputs;
  KExprPtr body;  // value per iteration point
  // Pointwise: written at output.offset + sum(j_d * output.strides[d]).
  // Reduction: output.strides are 0 on reduced dims; the body's values at the iteration points
  // that share an output element are combined with `reduce` (accumulating in acc_dtype, which is
  // double-precision for f32 sums), then cast to the output dtype.
  Access output;
  std::vector<bool> reduced;
  ReduceOp reduce = ReduceOp::kSum;
};

// One argument of an extern call, as the graph node has it: a tensor (an index into
// Extern::inputs), a scalar (an int/float/bool expression evaluated in σ when it runs: a literal
// or a symbolic size), a dtype, a list, or none.
struct ExternArg {
  enum class Kind { kNone, kTensor, kScalar, kDType, kList };
  Kind kind = Kind::kNone;
  int input = -1;  // kTensor
  ExprRef scalar;  // kScalar
  DType dtype = DType::kFloat32;
  std::vector<ExternArg> list;
};

// A data-dependent op run as a library call (FallbackKernel / MultiOutput / DynamicScalar): the
// op with the node's arguments, so a backend may run any op (the CPU backend calls eager's).
struct Extern {
  program::OpKind op = program::OpKind::kNonzero;
  std::string name;
  std::vector<Layout> inputs;   // one per tensor argument, in argument order
  std::vector<ExternArg> args;  // one per schema parameter
  std::vector<int> outputs;     // buffers it allocates (unique with counts: values, counts)
  bool tuple_output = false;    // its value is a tuple of the outputs (even of one)
  // A literal argument's value (SF_CHECKs it is one): flags and dims are literals.
  bool flag_arg(size_t i) const;
  std::optional<int64_t> int_arg(size_t i) const;  // nullopt when absent (None)
  // From the process_kernel re-propagation: symbol (fresh name) -> keypath into the outputs (a
  // tensor, a tuple of tensors, or the scalar for item). `defs` are the resolved symbols.
  Bindings unbacked_bindings;
  std::vector<ExprRef> defs;
  // The graph node it lowers, for the oracles: they compare the plan's bindings with the ones the
  // node recorded (valid while the graph the plan was lowered from lives).
  const graph::Node* node = nullptr;
};

}  // namespace sf::lower
