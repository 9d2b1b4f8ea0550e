// Fake tensor construction, input fakification and the memo rules.
#include "engine/fake/fake_mode.h"

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/sym/make.h"
#include "engine/sym/simplify.h"

namespace sf::fake {

FakeTensorPtr FakeMode::make_tensor(DType dtype, std::vector<SymInt> sizes,
                                    std::vector<SymInt> strides, SymInt offset) {
  auto storage = std::make_shared<Storage>();
  storage->id = next_storage_id_++;
  return std::make_shared<FakeTensor>(dtype, std::move(sizes), std::move(strides),
                                      std::move(offset), std::move(storage));
}

std::vector<SymInt> FakeMode::contiguous_strides(const std::vector<SymInt>& sizes,
                                                 bool through_replacements) const {
  ShapeEnv::Ranges ranges(*env_, /*size_oblivious=*/false);
  std::vector<SymInt> strides(sizes.size(), SymInt(1));
  SymInt acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = acc;
    // max(size, 1): a size-0 dim must not zero the strides before it. The ShapeEnv drops the
    // Max for sizes known to be >= 1 (backed sizes), keeping it for possibly-empty unbacked ones.
    ExprRef next = (acc * sym_max(sizes[i], 1)).expr();
    acc = SymInt(through_replacements ? env_->simplify(next) : sym::simplify(next, ranges));
  }
  return strides;
}

FakeTensorPtr FakeMode::make_contiguous(DType dtype, std::vector<SymInt> sizes) {
  std::vector<SymInt> strides = contiguous_strides(sizes);
  return make_tensor(dtype, std::move(sizes), std::move(strides), 0);
}

FakeTensorPtr FakeMode::make_view(const FakeTensor& base, std::vector<SymInt> sizes,
                                  std::vector<SymInt> strides, SymInt offset, DType dtype) {
  return std::make_shared<FakeTensor>(dtype, std::move(sizes), std::move(strides),
                                      std::move(offset), base.storage());
}

Value FakeMode::fakify_input(const program::InputDecl& decl, StatefulSymbolicContext* context) {
  auto mode_of = [](program::DimMode m) {
    switch (m) {
      case program::DimMode::kStatic:
        return DimDynamic::kStatic;
      case program::DimMode::kDynamic:
        return DimDynamic::kDuck;
      case program::DimMode::kUnbacked:
        return DimDynamic::kSizeLikeUnbacked;
    }
    return DimDynamic::kStatic;
  };
  if (!decl.is_tensor) {
    if (decl.dtype == DType::kFloat32) return Value(SymFloat(decl.data.literal.at(0)));
    if (decl.dtype == DType::kBool) return Value(SymBool(decl.data.literal.at(0) != 0));
    int64_t v = static_cast<int64_t>(decl.data.literal.at(0));
    switch (decl.scalar_mode) {
      case program::DimMode::kStatic:
        return Value(SymInt(v));
      case program::DimMode::kDynamic:
        return Value(
            env_->create_symbol(v, decl.name, DimDynamic::kDynamic, /*positive=*/false, context));
      case program::DimMode::kUnbacked:
        // An unbacked int input: an unbacked input symbol (may replace, and be replaced by,
        // other input symbols), bound by its placeholder.
        return Value(env_->create_symbol(v, decl.name, DimDynamic::kSizeLikeUnbacked,
                                         /*positive=*/false, context));
    }
  }
  std::vector<SymInt> sizes;
  for (size_t d = 0; d < decl.sizes.size(); ++d) {
    std::string source = decl.name + ".size(" + std::to_string(d) + ")";
    sizes.push_back(
        env_->create_symbol(decl.sizes[d], source, mode_of(decl.dims[d]), true, context));
  }
  // An input's strides are expressions in its own size symbols, as upstream builds them from
  // the sizes' sources, never through the replacements learned since: re-fakified in a fresh
  // mode after the trace, a stride would otherwise mention a symbol only a later node binds
  // (u0 -> 2*u5 from a divisibility check). While tracing, no replacement exists yet.
  std::vector<SymInt> strides = contiguous_strides(sizes, /*through_replacements=*/false);
  return Value::tensor(make_tensor(decl.dtype, std::move(sizes), std::move(strides), 0));
}

std::optional<Value> FakeMode::memo_get(const FakeTensor& t, Memo FakeTensor::*memo) const {
  Memo& m = const_cast<Memo&>(t.*memo);  // the memo members are mutable
  if (!m.value) return std::nullopt;
  bool stale_version = m.version != t.version() && !fault_on(Fault::kMemoIgnoresVersion);
  bool stale_epoch = m.epoch != epoch_ && !fault_on(Fault::kMemoIgnoresEpoch);
  if (stale_version || stale_epoch) {
    m = Memo();  // stale: cleared on read, like UnbackedMemoDescriptor.__get__
    return std::nullopt;
  }
  return m.value;
}

void FakeMode::memo_set(const FakeTensor& t, Memo FakeTensor::*memo, const Value& v) const {
  if (inference_mode) return;            // inference tensors do not track versions: never memoize
  Memo& m = const_cast<Memo&>(t.*memo);  // the memo members are mutable
  m.value = v;
  m.version = t.version();
  m.epoch = epoch_;
}

}  // namespace sf::fake
