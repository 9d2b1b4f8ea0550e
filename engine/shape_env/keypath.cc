// KeyPath construction, printing, validation and symbolic evaluation.
#include "engine/shape_env/keypath.h"

#include "engine/base/check.h"
#include "engine/sym/make.h"

namespace sf {

KeyEntry KeyEntry::sequence(int64_t i) {
  KeyEntry k;
  k.kind = Kind::kSequence;
  k.index = i;
  return k;
}
KeyEntry KeyEntry::call_method(TensorMethod m) {
  KeyEntry k;
  k.kind = Kind::kCallMethod;
  k.method = m;
  return k;
}
KeyEntry KeyEntry::inner_tensor(std::string attr) {
  KeyEntry k;
  k.kind = Kind::kInnerTensor;
  k.attr = std::move(attr);
  return k;
}
KeyEntry KeyEntry::divide_by(ExprRef divisor) {
  SF_CHECK(divisor && (divisor->is(sym::ExprKind::kInteger) || divisor->is_backed_symbol()))
      << "DivideByKey needs an Integer or a backed symbol";
  KeyEntry k;
  k.kind = Kind::kDivideBy;
  k.divisor = std::move(divisor);
  return k;
}
KeyEntry KeyEntry::convert_int() {
  KeyEntry k;
  k.kind = Kind::kConvertInt;
  return k;
}

bool KeyEntry::operator==(const KeyEntry& o) const {
  return kind == o.kind && index == o.index && method == o.method && attr == o.attr &&
         divisor == o.divisor;
}

namespace {
const char* method_name(TensorMethod m) {
  switch (m) {
    case TensorMethod::kSize:
      return "size";
    case TensorMethod::kStride:
      return "stride";
    case TensorMethod::kStorageOffset:
      return "storage_offset";
  }
  return "?";
}
}  // namespace

std::string keypath_str(const KeyPath& path) {
  if (path.empty()) return "()";
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    const KeyEntry& k = path[i];
    switch (k.kind) {
      case KeyEntry::Kind::kSequence:
        out += "[" + std::to_string(k.index) + "]";
        break;
      case KeyEntry::Kind::kCallMethod:
        if (!out.empty()) out += ".";
        out += method_name(k.method);
        if (k.method != TensorMethod::kStorageOffset && i + 1 < path.size() &&
            path[i + 1].kind == KeyEntry::Kind::kSequence) {
          out += "(" + std::to_string(path[i + 1].index) + ")";
          ++i;
        } else {
          out += "()";
        }
        break;
      case KeyEntry::Kind::kInnerTensor:
        out += "." + k.attr;
        break;
      case KeyEntry::Kind::kDivideBy:
        out += (out.empty() ? "" : " ") + std::string("// ") + k.divisor->str();
        break;
      case KeyEntry::Kind::kConvertInt:
        out += (out.empty() ? "" : " ") + std::string("int()");
        break;
    }
  }
  return out;
}

std::string bindings_str(const Bindings& b) {
  std::string out = "{";
  bool first = true;
  for (const auto& [s, path] : b) {
    if (!first) out += ", ";
    first = false;
    out += s->str() + ": " + keypath_str(path);
  }
  return out + "}";
}

bool keypath_well_formed(const KeyPath& path) {
  size_t i = 0;
  while (i < path.size() && (path[i].kind == KeyEntry::Kind::kSequence ||
                             path[i].kind == KeyEntry::Kind::kInnerTensor)) {
    ++i;
  }
  if (i < path.size() && path[i].kind == KeyEntry::Kind::kCallMethod) {
    if (path[i].method == TensorMethod::kStorageOffset) {
      ++i;
    } else {
      if (i + 1 >= path.size() || path[i + 1].kind != KeyEntry::Kind::kSequence) return false;
      i += 2;
    }
  }
  if (i < path.size() &&
      (path[i].kind == KeyEntry::Kind::kDivideBy || path[i].kind == KeyEntry::Kind::kConvertInt)) {
    ++i;
  }
  return i == path.size();
}

Value key_get(const Value& root, const KeyPath& path) {
  Value cur = root;
  for (size_t i = 0; i < path.size(); ++i) {
    const KeyEntry& k = path[i];
    switch (k.kind) {
      case KeyEntry::Kind::kSequence:
        SF_CHECK(cur.kind() == Value::Kind::kTuple && k.index >= 0 &&
                 k.index < static_cast<int64_t>(cur.elems().size()))
            << "bad sequence key [" << k.index << "] on " << cur.str();
        cur = Value(cur.elems()[k.index]);
        break;
      case KeyEntry::Kind::kCallMethod: {
        SF_CHECK(cur.kind() == Value::Kind::kTensor) << "method on non-tensor " << cur.str();
        const TensorLike& t = *cur.tensor();
        std::vector<Value> elems;
        if (k.method == TensorMethod::kStorageOffset) {
          cur = Value(t.storage_offset());
          break;
        }
        const std::vector<SymInt>& xs = k.method == TensorMethod::kSize ? t.sizes() : t.strides();
        for (const SymInt& x : xs) elems.push_back(Value(x));
        cur = Value::tuple(std::move(elems));
        break;
      }
      case KeyEntry::Kind::kInnerTensor: {
        SF_CHECK(cur.kind() == Value::Kind::kTensor) << "inner tensor of non-tensor";
        bool found = false;
        for (auto& [name, inner] : cur.tensor()->inner_tensors()) {
          if (name == k.attr) {
            cur = inner;
            found = true;
            break;
          }
        }
        SF_CHECK(found) << "no inner tensor " << k.attr;
        break;
      }
      case KeyEntry::Kind::kDivideBy:
        SF_CHECK(cur.kind() == Value::Kind::kInt) << "DivideByKey on " << cur.str();
        cur = Value(SymInt(sym::floordiv(cur.expr(), k.divisor)));
        break;
      case KeyEntry::Kind::kConvertInt:
        SF_CHECK(cur.kind() == Value::Kind::kBool) << "ConvertIntKey on " << cur.str();
        cur = Value(SymInt(sym::bool_to_int(cur.expr())));
        break;
    }
  }
  return cur;
}

KeyPath keypath_without_conversion(const KeyPath& path) {
  if (!path.empty() && (path.back().kind == KeyEntry::Kind::kDivideBy ||
                        path.back().kind == KeyEntry::Kind::kConvertInt)) {
    return KeyPath(path.begin(), path.end() - 1);
  }
  return path;
}

}  // namespace sf
