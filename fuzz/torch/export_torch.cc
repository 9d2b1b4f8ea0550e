// The .sfz -> PyTorch translation: inputs as literal tensors (the values make_input_values gives),
// statements as Python over torch calls, def blocks as functions for torch.cond / while_loop, then
// the fixed prelude (torch_prelude.py: helpers and the driver).
#include "fuzz/torch/export_torch.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "engine/base/check.h"
#include "engine/program/input_data.h"
#include "engine/program/number_text.h"
#include "engine/program/op_cases.h"
#include "engine/program/operand_mutation.h"
#include "engine/program/schema.h"
#include "fuzz/torch/prelude_text.h"

namespace sf::torch_ref {

namespace {

using program::DimMode;
using program::DType;
using program::Expr;
using program::ExprPtr;
using program::OpKind;
using program::Stmt;

std::string torch_dtype(DType d) {
  switch (d) {
    case DType::kBool:
      return "torch.bool";
    case DType::kInt64:
      return "torch.int64";
    case DType::kFloat32:
      return "torch.float32";
  }
  return "?";
}

// Python names may clash with the prelude's or with Python's keywords and builtins we call:
// every program name gets a prefix.
std::string py_name(const std::string& name) { return "v_" + name; }
// The nested compile region wrapping function `name` (user names all start with v_).
std::string region_name(const std::string& name) { return "sf_region_" + name; }

// ", keep=(i, ...)": the operands of a region call that its function mutates ("" if none).
std::string mutated_indices(const program::Program& p, const Stmt& s) {
  const program::FunctionDef* f = p.function(s.functions.at(0));
  if (!f) return "";
  std::vector<size_t> mutated =
      program::mutated_operands(*f, std::vector<bool>(f->params.size(), true));
  if (mutated.empty()) return "";
  std::string out = ", keep=(";
  for (size_t i : mutated) out += std::to_string(i) + ",";
  return out + ")";
}

std::string py_float(double v) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v < 0 ? "float('-inf')" : "float('inf')";
  return program::format_double(v);
}

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

class Emitter {
 public:
  Emitter(const program::Program& p, std::string source) : p_(p), source_(std::move(source)) {
    // The functions used as a loop condition return their value bare (while_loop wants a
    // scalar); every other function returns a tuple.
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& body) {
      for (const Stmt& s : body) {
        if (s.kind == Stmt::Kind::kWhileLoop) loop_conditions_.insert(s.functions[0]);
        if (s.kind == Stmt::Kind::kInvokeSubgraph) regions_.insert(s.functions[0]);
        walk(s.then_body);
        walk(s.else_body);
      }
    };
    walk(p_.body);
    for (const program::FunctionDef& f : p_.functions) walk(f.body);
  }

  std::string expr(const ExprPtr& e) {
    if (!e) return "None";
    switch (e->kind) {
      case Expr::Kind::kVar:
        return py_name(e->name);
      case Expr::Kind::kInt:
        return std::to_string(e->int_value);
      case Expr::Kind::kFloat:
        return py_float(e->float_value);
      case Expr::Kind::kBool:
        return e->bool_value ? "True" : "False";
      case Expr::Kind::kString:
        return py_string(e->name);
      case Expr::Kind::kDType:
        return torch_dtype(e->dtype);
      case Expr::Kind::kNone:
        return "None";
      case Expr::Kind::kList: {
        std::string out = "[";
        for (size_t i = 0; i < e->elems.size(); ++i) out += (i ? ", " : "") + expr(e->elems[i]);
        return out + "]";
      }
      case Expr::Kind::kCall:
        return call(*e);
    }
    return "None";
  }

  // Every op of ops.def; a new op fails to compile here until it has a translation.
  std::string call(const Expr& e) {
    std::vector<ExprPtr> a = program::bind_call(e);
    auto arg = [&](size_t i) { return expr(a.at(i)); };
    // The bound arguments from `from` on, comma-separated (a method's start at 1).
    auto args_from = [&](size_t from) {
      std::string out;
      for (size_t i = from; i < a.size(); ++i) out += (i > from ? ", " : "") + arg(i);
      return out;
    };
    auto method = [&](const std::string& m, size_t from) {
      return arg(0) + "." + m + "(" + args_from(from) + ")";
    };
    // A function of every argument, in order (`lead`: an argument of the translation's own).
    auto fn = [&](const std::string& name, const std::string& lead = "") {
      return name + "(" + lead + args_from(0) + ")";
    };
    // The ops.def Torch column's spelling: a function, a method or Python's operator.
    auto plain = [&](const program::OpSchema& s) -> std::string {
      switch (s.torch.kind) {
        case program::TorchSpelling::Kind::kFunction:
          return fn(s.torch.name);
        case program::TorchSpelling::Kind::kMethod:
          return method(s.torch.name, 1);
        case program::TorchSpelling::Kind::kOperator:
          SF_CHECK(s.syntax.is_operator()) << s.name << ": torch_operator without an operator";
          if (s.syntax.arity() == 1) return "(" + std::string(s.syntax.text) + arg(0) + ")";
          return "(" + arg(0) + " " + s.syntax.text + " " + arg(1) + ")";
        case program::TorchSpelling::Kind::kCustom:
          break;
      }
      SF_CHECK(false) << s.name << " is torch_custom: it needs a case in export_torch.cc";
      return "";
    };
    switch (e.op) {  // no default: a torch_custom row needs its case here
#define SF_OP SF_TORCH_PLAIN_CASE
#include "engine/program/ops.def"
      return plain(program::schema(e.op));
      case OpKind::kZeros:
        return "torch.zeros(" + arg(0) + ", dtype=" + arg(1) + ")";
      case OpKind::kOnes:
        return "torch.ones(" + arg(0) + ", dtype=" + arg(1) + ")";
      case OpKind::kFull:
        return "torch.full(" + arg(0) + ", " + arg(1) + ", dtype=" + arg(2) + ")";
      case OpKind::kArange:
        return a[1] ? "torch.arange(" + arg(0) + ", " + arg(1) + ", dtype=" + arg(2) + ")"
                    : "torch.arange(" + arg(0) + ", dtype=" + arg(2) + ")";
      case OpKind::kSum:
        return fn("sf_reduce", "torch.sum, ");
      case OpKind::kAmax:
        return fn("sf_reduce", "torch.amax, ");
      case OpKind::kAmin:
        return fn("sf_reduce", "torch.amin, ");
      case OpKind::kAny:
        return fn("sf_reduce", "torch.any, ");
      case OpKind::kAll:
        return fn("sf_reduce", "torch.all, ");
      case OpKind::kIndex:
        return arg(0) + "[" + arg(1) + "]";
      case OpKind::kUnique:
        return "torch.unique(" + arg(0) + ", sorted=True, return_counts=" + arg(1) + ")";
    }
    SF_CHECK(false) << "export-torch: no translation for op " << program::op_name(e.op);
    return "";
  }

  std::string targets(const Stmt& s) {
    std::string out;
    for (size_t i = 0; i < s.targets.size(); ++i) out += (i ? ", " : "") + py_name(s.targets[i]);
    return out;
  }

  std::string tuple(const std::vector<ExprPtr>& xs) {
    std::string out = "(";
    for (const ExprPtr& x : xs) out += expr(x) + ", ";
    if (!xs.empty()) out.resize(out.size() - 2);
    return out + (xs.size() == 1 ? ",)" : ")");
  }

  void block(const std::vector<Stmt>& body, int indent, bool function_returns_tuple) {
    std::string pad(indent, ' ');
    if (body.empty()) out_ += pad + "pass\n";
    for (const Stmt& s : body) {
      switch (s.kind) {
        case Stmt::Kind::kAssign:
          out_ += pad + targets(s) + " = " + expr(s.value) + "\n";
          break;
        case Stmt::Kind::kCheck:
          // The message is a lambda written here, over a literal: Dynamo only traces a
          // torch._check whose message function is defined inside the compiled region.
          out_ += pad + "torch._check(sf_cond(" + expr(s.value) +
                  "), lambda: " + py_string("sfz check failed: " + s.message) + ")\n";
          break;
        case Stmt::Kind::kCheckIsSize:
          out_ += pad + "torch._check_is_size(" + expr(s.value) +
                  (s.max ? ", max=" + expr(s.max) : "") + ")\n";
          break;
        case Stmt::Kind::kIf:
          out_ += pad + "if " + expr(s.value) + ":\n";
          block(s.then_body, indent + 4, function_returns_tuple);
          if (!s.else_body.empty()) {
            out_ += pad + "else:\n";
            block(s.else_body, indent + 4, function_returns_tuple);
          }
          break;
        case Stmt::Kind::kReturn:
          if (function_returns_tuple && in_function_) {
            out_ += pad + "return sf_fresh(" + tuple(s.returns) + ")\n";
          } else if (function_returns_tuple || s.returns.size() != 1) {
            out_ += pad + "return " + tuple(s.returns) + "\n";
          } else {
            out_ += pad + "return " + expr(s.returns[0]) + "\n";
          }
          break;
        case Stmt::Kind::kCond:
        case Stmt::Kind::kWhileLoop: {
          // Functions return tuples (torch.cond and while_loop keep the pytree): one target
          // takes the only element.
          bool cond = s.kind == Stmt::Kind::kCond;
          std::string call =
              cond ? "torch.cond(" + expr(s.value) + ", " + py_name(s.functions[0]) + ", " +
                         py_name(s.functions[1]) + ", sf_fresh(" + tuple(s.operands) + ")" + ")"
                   : "sf_while_loop(" + py_name(s.functions[0]) + ", " + py_name(s.functions[1]) +
                         ", sf_fresh(" + tuple(s.operands) + "))";
          out_ += pad + targets(s) + (s.targets.size() == 1 ? ", = " : " = ") + call + "\n";
          break;
        }
        case Stmt::Kind::kScan: {
          // sf_scan (the prelude) adapts a flat function to torch's combine_fn(carry, x).
          auto split =
              s.operands.begin() + static_cast<long>(std::min(s.carries, s.operands.size()));
          std::vector<ExprPtr> init(s.operands.begin(), split), xs(split, s.operands.end());
          out_ += pad + targets(s) + (s.targets.size() == 1 ? ", = " : " = ") + "sf_scan(" +
                  py_name(s.functions[0]) + ", sf_fresh(" + tuple(init) + "), sf_fresh(" +
                  tuple(xs) + "))\n";
          break;
        }
        case Stmt::Kind::kAssociativeScan:
          // sf_associative_scan (the prelude) adapts a flat function to torch's
          // combine_fn(left, right) in the "generic" combine mode.
          out_ += pad + targets(s) + (s.targets.size() == 1 ? ", = " : " = ") +
                  "sf_associative_scan(" + py_name(s.functions[0]) + ", sf_fresh(" +
                  tuple(s.operands) + "), " + std::to_string(s.dim) + ")\n";
          break;
        case Stmt::Kind::kMap:
          // torch's map hands the function one row of xs (here the tuple of operands); the
          // operands enter as fresh tensors as the other HOPs' do.
          out_ += pad + targets(s) + (s.targets.size() == 1 ? ", = " : " = ") +
                  "sf_map(lambda rows: " + py_name(s.functions[0]) + "(*rows), sf_fresh(" +
                  tuple(s.operands) + "))\n";
          break;
        case Stmt::Kind::kInvokeSubgraph:
          // The function wrapped once as a nested compile region (torch.ops.higher_order.
          // invoke_subgraph once compiled), called on fresh operands as the other HOPs are, but
          // for those it mutates: the caller's own tensors (torch functionalizes the mutation).
          out_ += pad + targets(s) + (s.targets.size() == 1 ? ", = " : " = ") +
                  region_name(s.functions[0]) + "(*sf_fresh(" + tuple(s.operands) +
                  mutated_indices(p_, s) + "))\n";
          break;
      }
    }
  }

  std::string run() {
    out_ += "# Generated by `shapefuzz export-torch` from " + source_ + ".\n";
    out_ += "# Runs as-is: `python3 THIS.py [eager] [aot_eager] [inductor] [export] [capture]\n";
    out_ +=
        "# [capture_export]` prints one JSON verdict per backend (capture*: with PyTorch's "
        "graph).\n";
    out_ += kTorchPrelude;
    out_ += "\nSF_INFERENCE_MODE = " + std::string(p_.header.inference_mode ? "True" : "False") +
            "\n\n\n";
    inputs();
    for (const program::FunctionDef& f : p_.functions) {
      out_ += "def " + py_name(f.name) + "(";
      for (size_t i = 0; i < f.params.size(); ++i) out_ += (i ? ", " : "") + py_name(f.params[i]);
      out_ += "):\n";
      in_function_ = true;
      block(f.body, 4, !loop_conditions_.count(f.name));
      in_function_ = false;
      out_ += "\n\n";
      if (regions_.count(f.name)) {
        out_ += region_name(f.name) + " = torch.compiler.nested_compile_region(" + py_name(f.name) +
                ")\n\n\n";
      }
    }
    // The program: tensor and non-static scalar inputs are parameters; a static int is a
    // constant (dynamic=True would make a parameter symbolic); an unbacked int comes in as a
    // one-element tensor whose .item() makes the unbacked symbol. Of a clone: Dynamo (torch 2.15)
    // makes `input.item()` a backed symbol guarded on its value, a computed tensor's item is
    // unbacked.
    out_ += "def sf_program(";
    bool first = true;
    for (const program::InputDecl& d : p_.inputs) {
      if (!d.is_tensor && d.scalar_mode == DimMode::kStatic && d.dtype == DType::kInt64) continue;
      out_ += (first ? "" : ", ") + py_name(d.name);
      first = false;
    }
    out_ += "):\n";
    for (const program::InputDecl& d : p_.inputs) {
      if (d.is_tensor || d.dtype != DType::kInt64) continue;
      if (d.scalar_mode == DimMode::kStatic) {
        out_ += "    " + py_name(d.name) + " = " + scalar_text(d) + "\n";
      } else if (d.scalar_mode == DimMode::kUnbacked) {
        out_ += "    " + py_name(d.name) + " = " + py_name(d.name) + ".clone().item()\n";
      }
    }
    block(p_.body, 4, true);  // always a tuple: one entry per returned expression, as ours
    out_ += "\n\nif __name__ == \"__main__\":\n    sf_main()\n";
    return out_;
  }

 private:
  std::string scalar_text(const program::InputDecl& d) const {
    double v = d.data.literal.at(0);
    switch (d.dtype) {
      case DType::kBool:
        return v != 0 ? "True" : "False";
      case DType::kInt64:
        return std::to_string(static_cast<int64_t>(v));
      case DType::kFloat32:
        return py_float(v);
    }
    return "None";
  }

  // sf_inputs(): fresh values each call (add_ may mutate them); sf_mark: the dim modes for
  // torch.compile; sf_export_dims: the same for torch.export's dynamic_shapes.
  void inputs() {
    std::map<std::string, program::HostValue> values = program::make_input_values(p_);
    out_ += "def sf_inputs():\n    return {\n";
    for (const program::InputDecl& d : p_.inputs) {
      const program::HostValue& v = values.at(d.name);
      if (!d.is_tensor && d.scalar_mode == DimMode::kStatic && d.dtype == DType::kInt64) continue;
      out_ += "        " + py_string(py_name(d.name)) + ": ";
      if (!d.is_tensor) {
        out_ += d.scalar_mode == DimMode::kUnbacked
                    ? "torch.tensor(" + std::to_string(v.i) + ", dtype=torch.int64)"
                    : scalar_text(d);
      } else {
        const program::HostTensor& t = v.tensor;
        std::string data = "[";
        for (int64_t i = 0; i < t.numel(); ++i) {
          if (i) data += ", ";
          if (t.dtype == DType::kFloat32) {
            data += py_float(t.floats[i]);
          } else if (t.dtype == DType::kBool) {
            data += t.ints[i] ? "True" : "False";
          } else {
            data += std::to_string(t.ints[i]);
          }
        }
        data += "]";
        std::string sizes = "[";
        for (size_t i = 0; i < t.sizes.size(); ++i)
          sizes += (i ? ", " : "") + std::to_string(t.sizes[i]);
        sizes += "]";
        out_ +=
            "torch.tensor(" + data + ", dtype=" + torch_dtype(t.dtype) + ").reshape(" + sizes + ")";
      }
      out_ += ",\n";
    }
    out_ += "    }\n\n\n";
    // maybe_mark_dynamic, not mark_dynamic: our dynamic(d) allows the specialization that
    // mark_dynamic refuses; mark_static keeps a static dim static under dynamic=True.
    std::string marks;
    for (const program::InputDecl& d : p_.inputs) {
      for (size_t i = 0; d.is_tensor && i < d.dims.size(); ++i) {
        const char* fn = d.dims[i] == DimMode::kDynamic ? "torch._dynamo.maybe_mark_dynamic"
                         : d.dims[i] == DimMode::kUnbacked
                             ? "torch._dynamo.decorators.mark_unbacked"
                             : "torch._dynamo.mark_static";
        marks += std::string("    ") + fn + "(inputs[" + py_string(py_name(d.name)) + "], " +
                 std::to_string(i) + ")\n";
      }
    }
    out_ += "def sf_mark(inputs):\n" + (marks.empty() ? "    pass\n" : marks);
    // torch.export has no unbacked Dim and clears mark_unbacked: a dim not static is AUTO, a
    // backed symbol export may specialize (as our dynamic(d)). DYNAMIC would add a constraint
    // ours does not have: it refuses a specialization (and every 0/1 size) ours would either
    // not need or reject as a data-dependent guard.
    out_ += "\n\ndef sf_export_dims(name, value):\n";
    out_ += "    # torch.export has no unbacked Dim: a dim not static is AUTO (export may specialize it).\n";
    out_ += "    modes = {\n";
    for (const program::InputDecl& d : p_.inputs) {
      if (!d.is_tensor) continue;
      out_ += "        " + py_string(py_name(d.name)) + ": [";
      for (size_t i = 0; i < d.dims.size(); ++i) {
        out_ +=
            std::string(i ? ", " : "") +
            (d.dims[i] == DimMode::kStatic ? "torch.export.Dim.STATIC" : "torch.export.Dim.AUTO");
      }
      out_ += "],\n";
    }
    out_ += "    }\n";
    out_ += "    return tuple(modes[name]) if name in modes and modes[name] else None\n\n\n";
  }

  const program::Program& p_;
  std::string source_;
  std::set<std::string> loop_conditions_;
  std::set<std::string> regions_;  // the functions invoke_subgraph calls
  bool in_function_ = false;       // emitting a def block (its tuple returns are cloned: sf_fresh)
  std::string out_;
};

}  // namespace

std::string export_torch(const program::Program& p, const std::string& source_name) {
  return Emitter(p, source_name).run();
}

}  // namespace sf::torch_ref
