// Each step kind's buffers and expressions.
#include "engine/lower/step_uses.h"

namespace sf::lower {

namespace {

struct Visit {
  const StepUses& uses;
  void buffer(int b) const {
    if (uses.buffer && b >= 0) uses.buffer(b);
  }
  void expr(const sym::ExprRef& e) const {
    if (uses.expr && e) uses.expr(e);
  }
  void layout(const Layout& l) const {
    for (const sym::ExprRef& e : l.sizes) expr(e);
    for (const sym::ExprRef& e : l.strides) expr(e);
    expr(l.offset);
  }
  void access(const Access& a) const {
    buffer(a.buffer);
    expr(a.offset);
    for (const sym::ExprRef& e : a.strides) expr(e);
  }
  void kexpr(const KExpr& e) const {
    expr(e.scalar);
    expr(e.gather_size);
    expr(e.gather_stride);
    if (e.gather) kexpr(*e.gather);
    for (const KExprPtr& a : e.args) kexpr(*a);
  }
  void output(const OutputRef& o) const {
    if (o.kind == OutputRef::Kind::kTensor) {
      buffer(o.layout.buffer);
      layout(o.layout);
    }
    expr(o.scalar);
    for (const OutputRef& e : o.elems) output(e);
  }
};

}  // namespace

void for_each_step_use(const Plan& plan, const Step& s, const StepUses& uses) {
  Visit v{uses};
  switch (s.kind) {
    case Step::Kind::kBindInput:
      v.expr(s.symbol);
      break;
    case Step::Kind::kGuard:
    case Step::Kind::kAssert:
      v.expr(s.expr);
      break;
    case Step::Kind::kAlloc:
      for (const sym::ExprRef& e : plan.buffers[s.buffer].sizes) v.expr(e);
      break;
    case Step::Kind::kLaunch: {
      const Kernel& k = plan.kernels[s.kernel];
      for (const sym::ExprRef& e : k.sizes) v.expr(e);
      for (const Access& a : k.inputs) v.access(a);
      v.access(k.output);
      v.kexpr(*k.body);
      break;
    }
    case Step::Kind::kExtern: {
      const Extern& e = plan.externs[s.kernel];
      for (const Layout& l : e.inputs) {
        v.buffer(l.buffer);
        v.layout(l);
      }
      for (int b : e.outputs) v.buffer(b);
      break;
    }
    case Step::Kind::kBind:
      v.expr(s.expr);
      if (s.kernel >= 0) {
        for (int b : plan.externs[s.kernel].outputs) v.buffer(b);
      }
      break;
    case Step::Kind::kOutput:
      for (const OutputRef& o : s.outputs) v.output(o);
      break;
    case Step::Kind::kCond:
    case Step::Kind::kWhileLoop:
    case Step::Kind::kInvokeSubgraph:
    case Step::Kind::kMap:
    case Step::Kind::kScan:
    case Step::Kind::kAssociativeScan:
      for (const OutputRef& o : s.operands) v.output(o);
      for (int b : s.result_buffers) v.buffer(b);
      break;
    case Step::Kind::kFree:
      break;
  }
}

}  // namespace sf::lower
