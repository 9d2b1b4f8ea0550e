// Printing of kernels and plans.
#include "engine/lower/plan.h"

#include <sstream>

#include "engine/program/schema.h"

namespace sf::lower {

namespace {

std::string exprs_str(const std::vector<ExprRef>& es) {
  std::string out = "[";
  for (size_t i = 0; i < es.size(); ++i) out += (i ? ", " : "") + es[i]->str();
  return out + "]";
}

std::string access_str(const Plan& p, const Access& a) {
  return p.buffers.at(a.buffer).name + "[" + a.offset->str() + " + j.*" + exprs_str(a.strides) +
         "]";
}

std::string output_str(const Plan& p, const OutputRef& o) {
  switch (o.kind) {
    case OutputRef::Kind::kNone:
      return "None";
    case OutputRef::Kind::kScalar:
      return o.scalar->str();
    case OutputRef::Kind::kTensor:
      return p.buffers.at(o.layout.buffer).name + " as " + program::dtype_name(o.layout.dtype) +
             exprs_str(o.layout.sizes) + " stride " + exprs_str(o.layout.strides) + " offset " +
             o.layout.offset->str();
    case OutputRef::Kind::kTuple: {
      std::string out = "(";
      for (size_t i = 0; i < o.elems.size(); ++i)
        out += (i ? ", " : "") + output_str(p, o.elems[i]);
      return out + ")";
    }
  }
  return "?";
}

}  // namespace

std::string kexpr_str(const KExpr& e) {
  switch (e.kind) {
    case KExpr::Kind::kConst:
      if (e.dtype == DType::kFloat32) {
        std::ostringstream s;
        s << e.fvalue;
        return s.str();
      }
      if (e.dtype == DType::kBool) return e.ivalue ? "True" : "False";
      return std::to_string(e.ivalue);
    case KExpr::Kind::kScalar:
      return "{" + e.scalar->str() + "}";
    case KExpr::Kind::kLoad:
      if (e.gather) {
        return "in" + std::to_string(e.input) + "[dim " + std::to_string(e.gather_dim) + " <- " +
               kexpr_str(*e.gather) + "]";
      }
      return "in" + std::to_string(e.input);
    case KExpr::Kind::kIndex:
      return "j" + std::to_string(e.dim);
    case KExpr::Kind::kUnary:
      return std::string(program::unary_op_name(e.unary)) + "(" + kexpr_str(*e.args[0]) + ")";
    case KExpr::Kind::kBinary:
      return std::string(program::binary_op_name(e.binary)) + "(" + kexpr_str(*e.args[0]) + ", " +
             kexpr_str(*e.args[1]) + ")";
    case KExpr::Kind::kWhere:
      return "where(" + kexpr_str(*e.args[0]) + ", " + kexpr_str(*e.args[1]) + ", " +
             kexpr_str(*e.args[2]) + ")";
    case KExpr::Kind::kCast:
      return std::string(program::dtype_name(e.dtype)) + "(" + kexpr_str(*e.args[0]) + ")";
  }
  return "?";
}

std::string Plan::kernel_str(const Kernel& k) const {
  std::string out = k.name + " " + (k.kind == Kernel::Kind::kPointwise ? "pointwise" : "reduction");
  out += " over " + exprs_str(k.sizes);
  if (k.kind == Kernel::Kind::kReduction) {
    out += " " + std::string(reduce_op_name(k.reduce)) + " dims [";
    bool first = true;
    for (size_t d = 0; d < k.reduced.size(); ++d) {
      if (!k.reduced[d]) continue;
      out += (first ? "" : ", ") + std::to_string(d);
      first = false;
    }
    out += "]";
  }
  out += ": " + access_str(*this, k.output) + " = " + kexpr_str(*k.body);
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    out += "; in" + std::to_string(i) + " = " + access_str(*this, k.inputs[i]);
  }
  return out;
}

std::string Plan::print() const {
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    std::string line = "  " + std::to_string(i) + ": ";
    switch (s.kind) {
      case Step::Kind::kGuard:
        line += "guard " + s.expr->str();
        break;
      case Step::Kind::kBindInput: {
        std::string src = s.input_name + (s.path.empty() ? "" : "." + keypath_str(s.path));
        line += s.symbol->is(sym::ExprKind::kSymbol) ? "bind " + s.symbol->str() + " = " + src
                                                     : "check " + src + " == " + s.symbol->str();
        break;
      }
      case Step::Kind::kAlloc: {
        const Buffer& b = buffers.at(s.buffer);
        line += "alloc " + b.name + ": " + program::dtype_name(b.dtype) + exprs_str(b.sizes);
        break;
      }
      case Step::Kind::kLaunch:
        line += "launch " + kernel_str(kernels.at(s.kernel));
        break;
      case Step::Kind::kExtern: {
        const Extern& e = externs.at(s.kernel);
        line += "extern " + e.name + " = " + program::op_name(e.op) + "(";
        for (size_t k = 0; k < e.inputs.size(); ++k) {
          line += (k ? ", " : "") + buffers.at(e.inputs[k].buffer).name;
        }
        line += ") ->";
        for (int b : e.outputs) line += " " + buffers.at(b).name;
        line += "  defines " + bindings_str(e.unbacked_bindings);
        break;
      }
      case Step::Kind::kBind:
        if (s.kernel >= 0) {
          line += "bind " + s.symbol->str() + " = " + externs.at(s.kernel).name + "." +
                  keypath_str(s.path);
        } else {
          line += "bind " + s.symbol->str() + " = " + s.expr->str();
          if (s.rederived) line += "  # the caller's, re-derived";
        }
        break;
      case Step::Kind::kAssert:
        line += "assert " + s.expr->str() + (s.message.empty() ? "" : "  # " + s.message);
        break;
      case Step::Kind::kFree:
        line += "free " + buffers.at(s.buffer).name;
        break;
      case Step::Kind::kOutput: {
        line += "return (";
        for (size_t k = 0; k < s.outputs.size(); ++k)
          line += (k ? ", " : "") + output_str(*this, s.outputs[k]);
        line += ")";
        break;
      }
      case Step::Kind::kCond:
      case Step::Kind::kWhileLoop:
      case Step::Kind::kInvokeSubgraph:
      case Step::Kind::kMap:
      case Step::Kind::kScan:
      case Step::Kind::kAssociativeScan: {
        line += std::string(s.kind == Step::Kind::kCond        ? "cond"
                            : s.kind == Step::Kind::kWhileLoop ? "while_loop"
                            : s.kind == Step::Kind::kMap       ? "map"
                            : s.kind == Step::Kind::kScan      ? "scan"
                            : s.kind == Step::Kind::kAssociativeScan
                                ? "associative_scan dim " + std::to_string(s.dim)
                                : "invoke_subgraph") +
                (s.subplans.size() == 1 ? " plan " : " plans ");
        for (size_t k = 0; k < s.subplans.size(); ++k)
          line += (k ? ", " : "") + std::to_string(s.subplans[k]);
        line += " on (";
        for (size_t k = 0; k < s.operands.size(); ++k)
          line += (k ? ", " : "") + output_str(*this, s.operands[k]);
        line += ") ->";
        for (int b : s.result_buffers) line += " " + (b >= 0 ? buffers.at(b).name : "int");
        if (!s.result_binds.empty()) {
          line += "  defines {";
          for (size_t k = 0; k < s.result_binds.size(); ++k) {
            line += (k ? ", " : "") + s.result_binds[k].first->str() + ": " +
                    keypath_str(s.result_binds[k].second);
          }
          line += "}";
        }
        break;
      }
    }
    out += line + "\n";
  }
  for (size_t i = 0; i < subplans.size(); ++i) {
    out += "plan " + std::to_string(i) + "(";
    for (size_t k = 0; k < subplans[i].input_order.size(); ++k)
      out += (k ? ", " : "") + subplans[i].input_order[k];
    out += "):\n";
    std::string sub = subplans[i].print();
    size_t start = 0;
    while (start < sub.size()) {
      size_t end = sub.find('\n', start);
      out += "  " + sub.substr(start, end - start + 1);
      start = end + 1;
    }
  }
  return out;
}

}  // namespace sf::lower
