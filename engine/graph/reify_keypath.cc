// A binding site's keypath made into graph nodes (getitem, size/stride/storage_offset, the
// scalar conversions): how a subgraph, or a later node, reads a symbol at runtime.
#include "engine/base/check.h"
#include "engine/graph/tracer.h"

namespace sf::graph {

using program::OpKind;

Node* reify_keypath(Graph& g, Node* n, const KeyPath& path, Node* after) {
  Node* cur = n;
  for (size_t i = 0; i < path.size(); ++i) {
    const KeyEntry& k = path[i];
    Node* next = nullptr;
    switch (k.kind) {
      case KeyEntry::Kind::kSequence:
        next = g.add(NodeKind::kGetItem, "getitem", {NodeArg::of(cur), NodeArg::integer(k.index)},
                     after);
        next->value = cur->value.elems().at(k.index);
        break;
      case KeyEntry::Kind::kCallMethod: {
        const TensorLike& t = *cur->value.tensor();
        if (k.method == TensorMethod::kStorageOffset) {
          next = g.add(NodeKind::kStorageOffset, "storage_offset", {NodeArg::of(cur)}, after);
          next->value = Value(t.storage_offset());
          break;
        }
        SF_CHECK(i + 1 < path.size() && path[i + 1].kind == KeyEntry::Kind::kSequence)
            << "size/stride keypath without an index";
        int64_t d = path[++i].index;
        bool size = k.method == TensorMethod::kSize;
        next = g.add(NodeKind::kCall, size ? "size" : "stride",
                     {NodeArg::of(cur), NodeArg::integer(d)}, after);
        next->op = size ? OpKind::kSize : OpKind::kStride;
        next->value = Value(size ? t.sizes().at(d) : t.strides().at(d));
        break;
      }
      case KeyEntry::Kind::kDivideBy: {
        SF_CHECK(k.divisor->is(sym::ExprKind::kInteger)) << "symbolic DivideByKey not reifiable";
        next = g.add(NodeKind::kCall, "floordiv",
                     {NodeArg::of(cur), NodeArg::integer(k.divisor->int_value())}, after);
        next->op = OpKind::kFloorDiv;
        next->value = Value(floordiv(cur->value.as_int(), SymInt(k.divisor->int_value())));
        break;
      }
      case KeyEntry::Kind::kConvertInt:
        SF_CHECK(false) << "ConvertIntKey reification is not needed by any caller";
        break;
      case KeyEntry::Kind::kInnerTensor:
        SF_CHECK(false) << "inner tensors are not modelled";
        break;
    }
    after = next;
    cur = next;
  }
  return cur;
}

}  // namespace sf::graph
