// The one switch over every op on concrete values: the eager interpreter's calls and the CPU
// backend's externs both come here, so a compiled extern computes exactly what eager does.
#include "engine/base/check.h"
#include "engine/eager/internal.h"
#include "engine/program/op_cases.h"
#include "engine/program/schema.h"

namespace sf::eager::internal {

Value dispatch(const Call& c) {
  switch (c.op()) {
    case OpKind::kZeros:
      return fill(c, FillKind::kZeros);
    case OpKind::kOnes:
      return fill(c, FillKind::kOnes);
    case OpKind::kFull:
      return fill(c, FillKind::kFull);
    case OpKind::kArange:
      return arange(c);
#define SF_OP SF_ELEMENTWISE_BINARY_CASE
#include "engine/program/ops.def"
      return binary(c, program::binary_element(c.op()));
#define SF_OP SF_ELEMENTWISE_UNARY_CASE
#include "engine/program/ops.def"
      return unary(c, program::unary_element(c.op()));
    case OpKind::kRelu:
      return relu(c);
    case OpKind::kTo:
      return to_dtype(c);
    case OpKind::kWhere:
      return where(c);
    case OpKind::kMaskedFill:
      return masked_fill(c);
    case OpKind::kSum:
      return reduce(c, ReduceOp::kSum);
    case OpKind::kAmax:
      return reduce(c, ReduceOp::kAmax);
    case OpKind::kAmin:
      return reduce(c, ReduceOp::kAmin);
    case OpKind::kAny:
      return reduce(c, ReduceOp::kAny);
    case OpKind::kAll:
      return reduce(c, ReduceOp::kAll);
    case OpKind::kCountNonzero:
      return reduce(c, ReduceOp::kCountNonzero);
    case OpKind::kMm:
    case OpKind::kBmm:
    case OpKind::kMatmul:
      return contraction(c);
    case OpKind::kArgmax:
      return arg_extremum(c, true);
    case OpKind::kArgmin:
      return arg_extremum(c, false);
    case OpKind::kCumsum:
      return cumsum(c);
    case OpKind::kSort:
      return sort(c, true);
    case OpKind::kArgsort:
      return sort(c, false);
    case OpKind::kTopk:
      return topk(c);
    case OpKind::kHistc:
      return histc(c);
    case OpKind::kView:
      return view(c);
    case OpKind::kReshape:
      return view(c);
    case OpKind::kPermute:
      return permute(c);
    case OpKind::kTranspose:
      return transpose(c);
    case OpKind::kUnsqueeze:
      return unsqueeze(c);
    case OpKind::kSqueeze:
      return squeeze(c);
    case OpKind::kExpand:
      return expand(c);
    case OpKind::kSlice:
      return slice(c);
    case OpKind::kNarrow:
      return narrow(c);
    case OpKind::kSelect:
      return select(c);
    case OpKind::kFlatten:
      return flatten(c);
    case OpKind::kSplitWithSizes:
      return split_with_sizes(c);
    case OpKind::kTensorSplit:
      return tensor_split(c);
    case OpKind::kCat:
      return cat(c);
    case OpKind::kStack:
      return stack(c);
    case OpKind::kIndexSelect:
      return index_select(c);
    case OpKind::kFlip:
      return flip(c);
    case OpKind::kGather:
      return gather_op(c);
    case OpKind::kEmbedding:
      return embedding(c);
    case OpKind::kRoll:
      return roll(c);
    case OpKind::kRepeat:
      return repeat(c);
    case OpKind::kTile:
      return tile(c);
    case OpKind::kPad:
      return pad(c);
    case OpKind::kScatterAdd:
      return scatter_add(c);
    case OpKind::kIndexAdd:
      return index_add(c);
    case OpKind::kSearchsorted:
      return searchsorted(c);
    case OpKind::kNonzero:
      return nonzero(c);
    case OpKind::kIndex:
      return index(c);
    case OpKind::kMaskedSelect:
      return masked_select(c);
    case OpKind::kUnique:
      return unique(c);
    case OpKind::kItem:
      return item(c);
    case OpKind::kTolist:
      return tolist(c);
    case OpKind::kRepeatInterleave:
      return repeat_interleave(c);
    case OpKind::kUniqueConsecutive:
      return unique(c);
    case OpKind::kArgwhere:
      return nonzero(c);
    case OpKind::kBincount:
      return bincount(c);
    case OpKind::kOneHot:
      return one_hot(c);
    case OpKind::kUniqueDim:
      return unique_dim(c);
    case OpKind::kSize:
      return size(c);
    case OpKind::kStride:
      return stride(c);
    case OpKind::kNumel:
      return numel(c);
    case OpKind::kMin:
      return scalar_binary(c, program::binary_element(c.op()), c.scalar(0), c.scalar(1));
    case OpKind::kMax:
      return scalar_binary(c, program::binary_element(c.op()), c.scalar(0), c.scalar(1));
    case OpKind::kAddInplace:
      return add_inplace(c);
    case OpKind::kIndexPutInplace:
      return index_put_inplace(c);
  }
  SF_UNREACHABLE() << "op " << static_cast<int>(c.op());
}

}  // namespace sf::eager::internal
