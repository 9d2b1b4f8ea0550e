// The CPU backend: host storage per buffer, interpreted kernels, and extern kernels that call the
// eager reference implementations (as Inductor's fallback kernels call ATen).
#include "engine/backend/cpu/cpu_backend.h"

#include "engine/backend/cpu/kernels.h"
#include "engine/backend/cpu/storage.h"
#include "engine/base/check.h"
#include "engine/eager/internal.h"

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
                           const std::vector<ResolvedLayout>& inputs,
                           const SymbolEnv& sigma) override {
    std::vector<program::HostTensor> tensors;
    for (const ResolvedLayout& l : inputs) {
      tensors.push_back(cpu::gather_layout(buffers_.at(l.buffer), l));
    }
    return cpu::run_eager_extern(
        e, std::move(tensors), sigma,
        [&](int buffer, const program::HostTensor& t) { buffers_[buffer] = Storage::of_host(t); });
  }

 private:
  std::map<int, Storage> buffers_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

namespace {

// An extern argument as eager's: its tensor input, or its scalar's value in σ.
ei::Value eager_arg(const lower::ExternArg& a, std::vector<ei::Value>& tensors,
                    const SymbolEnv& sigma) {
  switch (a.kind) {
    case lower::ExternArg::Kind::kNone:
      return ei::Value();
    case lower::ExternArg::Kind::kTensor:
      return tensors.at(static_cast<size_t>(a.input));
    case lower::ExternArg::Kind::kScalar: {
      sym::Concrete c = sigma.eval(a.scalar);
      switch (c.type) {
        case sym::ExprType::kInt:
          return ei::Value::of_int(c.i);
        case sym::ExprType::kFloat:
          return ei::Value::of_float(c.f);
        case sym::ExprType::kBool:
          return ei::Value::of_bool(c.b);
      }
      break;
    }
    case lower::ExternArg::Kind::kDType: {
      ei::Value v;
      v.kind = ei::Value::Kind::kDType;
      v.dtype = a.dtype;
      return v;
    }
    case lower::ExternArg::Kind::kList: {
      std::vector<ei::Value> elems;
      for (const lower::ExternArg& x : a.list) elems.push_back(eager_arg(x, tensors, sigma));
      return ei::Value::tuple(std::move(elems));
    }
  }
  SF_UNREACHABLE();
}

}  // namespace

ExternOutputs cpu::run_eager_extern(
    const lower::Extern& e, std::vector<program::HostTensor> inputs, const SymbolEnv& sigma,
    const std::function<void(int buffer, const program::HostTensor& t)>& store) {
  std::vector<ei::Value> tensors;
  for (program::HostTensor& t : inputs) tensors.push_back(ei::Value::of_tensor(std::move(t)));
  std::vector<ei::Value> args;
  for (const lower::ExternArg& a : e.args) args.push_back(eager_arg(a, tensors, sigma));
  ei::Value result = ei::dispatch(ei::Call(e.op, std::move(args)));
  ExternOutputs out;
  switch (result.kind) {
    case ei::Value::Kind::kInt:
      out.scalar = sym::Concrete::of_int(result.i);
      return out;
    case ei::Value::Kind::kFloat:
      out.scalar = sym::Concrete::of_float(result.f);
      return out;
    case ei::Value::Kind::kBool:
      out.scalar = sym::Concrete::of_bool(result.b);
      return out;
    default:
      break;
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
