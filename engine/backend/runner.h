// The plan interpreter shared by every backend: guards, input binding, σ, asserts, keypath
// bindings, buffer lifetimes and outputs live here; a backend supplies storage, kernel launches
// and extern kernels through the hooks.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/program/run_limits.h"

namespace sf::backend {

// σ: concrete values of symbols, with fallback through the ShapeEnv's replacements (a renamed or
// replaced symbol is evaluated as its target).
class SymbolEnv {
 public:
  explicit SymbolEnv(const ShapeEnv& env) : env_(env) {}
  void bind(const ExprRef& sym, sym::Concrete value);
  bool is_bound(const ExprRef& sym) const { return values_.count(sym) > 0; }
  // Evaluates e; an unbound symbol is an internal error (the plan guarantees definitions come
  // first), an undefined result (e.g. int64 overflow) a user error.
  sym::Concrete eval(const ExprRef& e) const;
  int64_t eval_int(const ExprRef& e) const;
  bool eval_bool(const ExprRef& e) const;
  const sym::Assignment& values() const { return values_; }
  std::string describe(const ExprRef& e) const;  // "u0=3, u1=9" for the symbols of e

 private:
  ExprRef resolve(const ExprRef& e) const;
  const ShapeEnv& env_;
  sym::Assignment values_;
};

struct ResolvedLayout {
  int buffer = -1;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  int64_t numel() const;
};

// What an extern produced: its output tensors' shapes (contiguous) or, for item, the scalar.
struct ExternOutputs {
  std::vector<std::vector<int64_t>> shapes;  // one per Extern::outputs
  std::optional<sym::Concrete> scalar;
};

class PlanRunner : public Backend {
 public:
  RunResult run(const lower::Plan& plan, const ShapeEnv& env,
                const std::map<std::string, program::HostValue>& inputs) override;

 protected:
  virtual void upload_input(int buffer, const program::HostTensor& t) = 0;
  virtual void allocate(int buffer, DType dtype, int64_t numel) = 0;
  virtual void release(int buffer) = 0;
  virtual void launch(const lower::Plan& plan, const lower::Kernel& k, const SymbolEnv& sigma) = 0;
  // Runs an extern on resolved input layouts (its scalar arguments evaluate in σ); it allocates
  // its output buffers itself.
  virtual ExternOutputs run_extern(const lower::Plan& plan, const lower::Extern& e,
                                   const std::vector<ResolvedLayout>& inputs,
                                   const SymbolEnv& sigma) = 0;
  virtual program::HostTensor download(const ResolvedLayout& layout) = 0;
  virtual void begin_run() {}
  virtual void end_run() {}
  // A runner of the same kind for the nested plans of cond / while_loop (their buffers are
  // their own); null: this backend does not run them.
  virtual std::unique_ptr<PlanRunner> nested_runner() const { return nullptr; }

  ResolvedLayout resolve(const lower::Layout& l, const SymbolEnv& sigma) const;

 private:
  // A kCond / kWhileLoop step: its nested plans run on a nested runner with the step's operands
  // as inputs (downloaded tensors, evaluated scalars); outputs uploaded into the step's buffers.
  void run_higher_order(const lower::Plan& plan, const lower::Step& s, const ShapeEnv& env,
                        SymbolEnv& sigma, RunResult& result);
  program::HostValue host_value(const lower::OutputRef& o, const SymbolEnv& sigma);

  // A nested runner shares its run's while_loop iterations (eager's bound: run_limits.h).
  bool nested_in_run_ = false;
  std::shared_ptr<program::LoopBudget> loop_budget_;
};

// Like eager, a plan never allocates a buffer of more than 2^26 elements (too_complex instead),
// and never reads or iterates over more: eager materializes every view, so a kernel's iteration
// space or a layout (an expand of a small buffer) past the limit is refused too.
inline constexpr int64_t kMaxElements = int64_t{1} << 26;

// Elements of a concrete shape, as eager's checked_numel: 0 when a size is 0 (however big the
// others), else too_complex when the product passes kMaxElements or int64. `what` names the
// tensor and `context` the symbols' values, for the message. Sizes must be >= 0.
int64_t checked_numel(const std::vector<int64_t>& sizes, const std::string& what,
                      const std::string& context);

// Contiguous strides of a concrete shape (a size-0 dim counts as 1 for the dims before it).
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

}  // namespace sf::backend
