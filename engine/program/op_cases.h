// Case labels generated from ops.def for switches over OpKind that treat a whole class of ops
// alike (the idiom of LLVM's Instruction.def). Inside the switch:
//   #define SF_OP SF_ELEMENTWISE_BINARY_CASE
//   #include "engine/program/ops.def"
//     return binary(c, program::binary_element(c.op()));
// expands to `case OpKind::kAdd: case OpKind::kSub: ...`, one label per pointwise row whose
// element is `binary, <op>`; so a new elementwise row needs no edit in the switches that use it.
#pragma once

// The class of an ops.def row, from its family and element kind.
#define SF_OPCLASS(family, kind) SF_OPCLASS_##family(kind)
#define SF_OPCLASS_kPointwise(kind) SF_OPCLASS_POINTWISE_##kind
#define SF_OPCLASS_POINTWISE_binary SfBinaryElementwise
#define SF_OPCLASS_POINTWISE_unary SfUnaryElementwise
#define SF_OPCLASS_POINTWISE_none SfOtherOp
#define SF_OPCLASS_kCreation(kind) SfOtherOp
#define SF_OPCLASS_kReduction(kind) SfOtherOp
#define SF_OPCLASS_kView(kind) SfOtherOp
#define SF_OPCLASS_kJoin(kind) SfOtherOp
#define SF_OPCLASS_kDataDependent(kind) SfOtherOp
#define SF_OPCLASS_kScalar(kind) SfOtherOp
#define SF_OPCLASS_kMutation(kind) SfOtherOp

#define SF_OPCASE_PASTE(a, b) SF_OPCASE_PASTE_(a, b)
#define SF_OPCASE_PASTE_(a, b) a##b
#define SF_OPCASE_LABEL(e) case ::sf::program::OpKind::e:
#define SF_OPCASE_SKIP(e)

// Pointwise ops computed by their binary element op (add, eq, logical_and, ...).
#define SF_ELEMENTWISE_BINARY_CASE(e, name, family, signature, kind, ...) \
  SF_OPCASE_PASTE(SF_OPCASE_BINARY_, SF_OPCLASS(family, kind))(e)
#define SF_OPCASE_BINARY_SfBinaryElementwise SF_OPCASE_LABEL
#define SF_OPCASE_BINARY_SfUnaryElementwise SF_OPCASE_SKIP
#define SF_OPCASE_BINARY_SfOtherOp SF_OPCASE_SKIP

// Pointwise ops computed by their unary element op (neg, abs, logical_not).
#define SF_ELEMENTWISE_UNARY_CASE(e, name, family, signature, kind, ...) \
  SF_OPCASE_PASTE(SF_OPCASE_UNARY_, SF_OPCLASS(family, kind))(e)
#define SF_OPCASE_UNARY_SfBinaryElementwise SF_OPCASE_SKIP
#define SF_OPCASE_UNARY_SfUnaryElementwise SF_OPCASE_LABEL
#define SF_OPCASE_UNARY_SfOtherOp SF_OPCASE_SKIP

// Ops whose Torch column spells their translation (torch_fn, torch_method, torch_operator):
// export-torch reads it; the torch_custom rows each have a case of their own there.
#define SF_TORCH_PLAIN_CASE(e, name, family, signature, kind, op, rule, unbacked, weight, \
                            features, syntax, torch)                                      \
  SF_OPCASE_PASTE(SF_OPCASE_TORCH_PLAIN_, torch)(e)
#define SF_OPCASE_TORCH_PLAIN_torch_custom SF_OPCASE_SKIP
#define SF_OPCASE_TORCH_PLAIN_torch_fn(name) SF_OPCASE_LABEL
#define SF_OPCASE_TORCH_PLAIN_torch_method(name) SF_OPCASE_LABEL
#define SF_OPCASE_TORCH_PLAIN_torch_operator SF_OPCASE_LABEL

// Ops whose Unbacked column is false: they never allocate unbacked symbols, so they never become
// extern kernels (the CUDA backend's extern dispatcher aborts on them).
#define SF_NO_UNBACKED_CASE(e, name, family, signature, kind, op, rule, unbacked, ...) \
  SF_OPCASE_NO_UNBACKED_##unbacked(e)
#define SF_OPCASE_NO_UNBACKED_false(e) case ::sf::program::OpKind::e:
#define SF_OPCASE_NO_UNBACKED_true(e)
