// KeyPaths (spec §3): how to extract an unbacked symbol from a node's runtime value.
// Grammar: (Sequence|InnerTensor)* (CallMethod(size|stride) Sequence | CallMethod(offset) | ε)
//          (DivideBy | ConvertInt)?
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/shape_env/value.h"
#include "engine/sym/expr.h"

namespace sf {

enum class TensorMethod { kSize, kStride, kStorageOffset };

struct KeyEntry {
  enum class Kind { kSequence, kCallMethod, kInnerTensor, kDivideBy, kConvertInt };
  Kind kind = Kind::kSequence;
  int64_t index = 0;                          // kSequence
  TensorMethod method = TensorMethod::kSize;  // kCallMethod
  std::string attr;                           // kInnerTensor
  ExprRef divisor;                            // kDivideBy: Integer or backed Symbol

  static KeyEntry sequence(int64_t i);
  static KeyEntry call_method(TensorMethod m);
  static KeyEntry inner_tensor(std::string attr);
  static KeyEntry divide_by(ExprRef divisor);
  static KeyEntry convert_int();
  bool operator==(const KeyEntry& o) const;
};

using KeyPath = std::vector<KeyEntry>;
// Symbol -> path, ordered by the canonical symbol order (deterministic printing).
using Bindings = std::map<ExprRef, KeyPath, sym::ExprLess>;

// "size(0)", "[1].stride(0)", "storage_offset()", "size(0)//10", "int()", "" for ().
std::string keypath_str(const KeyPath& path);
std::string bindings_str(const Bindings& b);  // "{u0: size(0), u1: ()}"
// True when `path` matches the grammar above.
bool keypath_well_formed(const KeyPath& path);

// Evaluates a path on a value (symbolically). Malformed access is an internal error.
Value key_get(const Value& v, const KeyPath& path);
// The prefix before a trailing DivideBy/ConvertInt, and that trailing entry (if any).
KeyPath keypath_without_conversion(const KeyPath& path);

}  // namespace sf
