// Internal helpers shared by the meta function families (one .cc per family).
#pragma once

#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/fake/meta/meta.h"
#include "engine/program/dtype_rules.h"
#include "engine/program/elementwise.h"

namespace sf::fake::detail {

using program::promote;

[[noreturn]] void fail(const MetaContext& ctx, UserErrorKind kind, const std::string& msg);
// Requires cond (guarding or deferring through the ShapeEnv); false -> UserError(kind, msg).
void require(MetaContext& ctx, const SymBool& cond, UserErrorKind kind, const std::string& msg);

std::string shape_str(const std::vector<SymInt>& sizes);
int64_t normalize_dim(const MetaContext& ctx, int64_t dim, int64_t rank, const char* what = "dim");

bool is_tensor(const Value& v);
bool is_scalar(const Value& v);
// The dtype a scalar behaves as (int -> i64, float -> f32, bool -> bool).
DType scalar_dtype(const Value& v);
// Result dtype of a binary arithmetic op with weak scalars (docs/ops.md "Values and dtypes").
DType arithmetic_dtype(const Value& a, const Value& b);
const FakeTensor& tensor_arg(const MetaContext& ctx, const MetaArg& arg, const char* name);
// A boolean mask indexing `a` (index, index_put_): bool (invalid_program) with a's leading sizes
// (`kind` when not; a deferred assert for an unbacked pair).
void require_leading_mask(MetaContext& ctx, const char* op, const FakeTensor& a,
                          const FakeTensor& mask, UserErrorKind kind);

// Broadcasts two shapes: size-1 dims stretch (decided with guard_or_false, so an unbacked size is
// assumed not to be 1), other pairs must be equal (a deferred assert when unbacked).
std::vector<SymInt> broadcast(MetaContext& ctx, const std::vector<SymInt>& a,
                              const std::vector<SymInt>& b);
SymInt simplified(const MetaContext& ctx, const SymInt& s);
std::optional<bool> static_bool(const MetaContext& ctx, const SymBool& b);

Value meta_creation(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
Value meta_pointwise(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
Value meta_reduction(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
Value meta_view(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
Value meta_join(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
Value meta_data_dependent(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
Value meta_scalar(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
// mm, bmm, matmul (the reduction family's contractions).
Value meta_contraction(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
// argmax, argmin, cumsum, sort, argsort, topk, histc (reductions) and searchsorted (a join).
Value meta_sorting(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
// repeat, tile, pad, scatter_add, index_add (joins that copy or add into a new tensor).
Value meta_copies(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);
Value meta_mutation(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args);

// Scalar arithmetic shared by pointwise ops on two scalars and the scalar family.
Value scalar_binary(MetaContext& ctx, program::BinaryOp op, const Value& a, const Value& b);
Value scalar_unary(MetaContext& ctx, program::UnaryOp op, const Value& a);

// Reshape target sizes (one -1 inferred) checked against numel.
std::vector<SymInt> infer_reshape(MetaContext& ctx, const FakeTensor& a,
                                  const std::vector<SymInt>& shape);

}  // namespace sf::fake::detail
