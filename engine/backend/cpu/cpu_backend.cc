// The CPU backend: host storage per buffer, interpreted kernels, and extern kernels that call the
// eager reference implementations (as Inductor's fallback kernels call ATen).
#include "engine/backend/cpu/cpu_backend.h"

#include "engine/backend/cpu/kernels.h"
#include "engine/backend/cpu/storage.h"
#include "engine/base/check.h"
#include "engine/eager/internal.h"
#include "engine/program/op_cases.h"

namespace sf::backend {

namespace {

using cpu::Storage;
namespace ei = eager::internal;

class CpuBackend : public PlanRunner {
 public:
  std::string name() const override { return "cpu"; }
  bool available(std::string*) const override { return true; }

 protected:
  void begin_run() override { buffers_.clear(); }
  std::unique_ptr<PlanRunner> nested_runner() const override {
    return std::make_unique<CpuBackend>();
  }
  void end_run() override { buffers_.clear(); }

  void upload_input(int buffer, const program::HostTensor& t) override {
    buffers_[buffer] = Storage::of_host(t);
  }
  void allocate(int buffer, DType dtype, int64_t numel) override {
    buffers_[buffer] = Storage::of(dtype, numel);
  }
  void release(int buffer) override { buffers_.erase(buffer); }
  void launch(const lower::Plan&, const lower::Kernel& k, const SymbolEnv& sigma) override {
    cpu::run_kernel(k, sigma, buffers_);
  }
  program::HostTensor download(const ResolvedLayout& l) override {
    return cpu::gather_layout(buffers_.at(l.buffer), l);
  }

  ExternOutputs run_extern(const lower::Plan&, const lower::Extern& e,
                           const std::vector<ResolvedLayout>& inputs) override {
    std::vector<program::HostTensor> tensors;
    for (const ResolvedLayout& l : inputs) {
      tensors.push_back(cpu::gather_layout(buffers_.at(l.buffer), l));
    }
    return cpu::run_eager_extern(
        e, std::move(tensors),
        [&](int buffer, const program::HostTensor& t) { buffers_[buffer] = Storage::of_host(t); });
  }

 private:
  std::map<int, Storage> buffers_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

ExternOutputs cpu::run_eager_extern(
    const lower::Extern& e, std::vector<program::HostTensor> inputs,
    const std::function<void(int buffer, const program::HostTensor& t)>& store) {
  std::vector<ei::Value> tensors;
  for (program::HostTensor& t : inputs) tensors.push_back(ei::Value::of_tensor(std::move(t)));
  ExternOutputs out;
  ei::Value result;
  switch (e.op) {
    case program::OpKind::kItem: {
      ei::Value v = ei::item(ei::Call(e.op, {tensors.at(0)}));
      if (v.kind == ei::Value::Kind::kFloat) {
        out.scalar = sym::Concrete::of_float(v.f);
      } else if (v.kind == ei::Value::Kind::kBool) {
        out.scalar = sym::Concrete::of_bool(v.b);
      } else {
        out.scalar = sym::Concrete::of_int(v.i);
      }
      return out;
    }
    case program::OpKind::kNonzero:
      result = ei::nonzero(ei::Call(e.op, {tensors.at(0)}));
      break;
    case program::OpKind::kIndex:
      result = ei::index(ei::Call(e.op, {tensors.at(0), tensors.at(1)}));
      break;
    case program::OpKind::kMaskedSelect:
      result = ei::masked_select(ei::Call(e.op, {tensors.at(0), tensors.at(1)}));
      break;
    case program::OpKind::kUnique:
      result = ei::unique(ei::Call(e.op, {tensors.at(0), ei::Value::of_bool(e.return_counts)}));
      break;
    case program::OpKind::kRepeatInterleave: {
      std::vector<ei::Value> args{tensors.at(0)};
      args.push_back(e.repeats_only ? ei::Value() : tensors.at(1));
      args.push_back(e.dim >= 0 ? ei::Value::of_int(e.dim) : ei::Value());
      result = ei::repeat_interleave(ei::Call(e.op, args));
      break;
    }
    case program::OpKind::kTolist:  // expanded into select + item by the tracer
#define SF_OP SF_NO_UNBACKED_CASE
#include "engine/program/ops.def"
      SF_CHECK(false) << "no CPU extern for " << e.name;
  }
  std::vector<const program::HostTensor*> results;
  if (result.kind == ei::Value::Kind::kTuple) {
    for (const ei::Value& v : result.elems) results.push_back(v.tensor.get());
  } else {
    results.push_back(result.tensor.get());
  }
  SF_CHECK(results.size() == e.outputs.size()) << e.name << ": output count mismatch";
  for (size_t i = 0; i < results.size(); ++i) {
    store(e.outputs[i], *results[i]);
    out.shapes.push_back(results[i]->sizes);
  }
  return out;
}

}  // namespace sf::backend
