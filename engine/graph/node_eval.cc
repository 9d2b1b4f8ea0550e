// Argument conversion and per-kind fake evaluation of graph nodes.
#include "engine/graph/node_eval.h"

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/sym/make.h"

namespace sf::graph {

using program::ParamKind;

namespace {

[[noreturn]] void type_error(const fake::MetaContext& ctx, const std::string& what) {
  throw_user_error(UserErrorKind::kInvalidProgram, ctx.where + ": " + what);
}

}  // namespace

Value arg_value(const NodeArg& a, const std::function<const Value&(Node*)>& value_of) {
  switch (a.kind) {
    case NodeArg::Kind::kNode:
      return value_of(a.node);
    case NodeArg::Kind::kInt:
      return Value(SymInt(a.i));
    case NodeArg::Kind::kFloat:
      return Value(SymFloat(a.f));
    case NodeArg::Kind::kBool:
      return Value(SymBool(a.b));
    case NodeArg::Kind::kNone:
    case NodeArg::Kind::kDType:
    case NodeArg::Kind::kList:
      break;
  }
  return Value();
}

std::vector<fake::MetaArg> to_meta_args(const fake::MetaContext& ctx, program::OpKind op,
                                        const std::vector<NodeArg>& args,
                                        const std::function<const Value&(Node*)>& value_of) {
  const program::OpSchema& s = program::schema(op);
  SF_CHECK(args.size() == s.params.size()) << "node args do not match the schema of " << s.name;
  std::vector<fake::MetaArg> out(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const program::Param& p = s.params[i];
    const NodeArg& a = args[i];
    fake::MetaArg& m = out[i];
    m.kind = p.kind;
    if (a.kind == NodeArg::Kind::kNone) continue;
    m.present = true;
    const std::string pname = "argument '" + p.name + "' of " + s.name;
    switch (p.kind) {
      case ParamKind::kTensor:
      case ParamKind::kScalar:
      case ParamKind::kAny:
      case ParamKind::kInt: {
        m.value = arg_value(a, value_of);
        Value::Kind k = m.value.kind();
        bool tensor = k == Value::Kind::kTensor;
        bool scalar = k == Value::Kind::kInt || k == Value::Kind::kFloat || k == Value::Kind::kBool;
        if (p.kind == ParamKind::kTensor && !tensor) type_error(ctx, pname + " must be a tensor");
        if (p.kind == ParamKind::kScalar && !scalar) type_error(ctx, pname + " must be a scalar");
        if (p.kind == ParamKind::kAny && !tensor && !scalar) {
          type_error(ctx, pname + " must be a tensor or a scalar");
        }
        if (p.kind == ParamKind::kInt && k != Value::Kind::kInt) {
          type_error(ctx, pname + " must be an int, got " + m.value.str());
        }
        break;
      }
      case ParamKind::kInts: {
        std::vector<NodeArg> elems =
            a.kind == NodeArg::Kind::kList ? a.list : std::vector<NodeArg>{a};
        for (const NodeArg& e : elems) {
          Value v = arg_value(e, value_of);
          if (v.kind() != Value::Kind::kInt) type_error(ctx, pname + " must be a list of ints");
          m.ints.push_back(v.as_int());
        }
        break;
      }
      case ParamKind::kDim:
      case ParamKind::kDims: {
        std::vector<NodeArg> elems =
            a.kind == NodeArg::Kind::kList ? a.list : std::vector<NodeArg>{a};
        if (p.kind == ParamKind::kDim && elems.size() != 1)
          type_error(ctx, pname + " must be one dim");
        for (const NodeArg& e : elems) {
          if (e.kind != NodeArg::Kind::kInt) type_error(ctx, pname + " must be literal ints");
          m.dims.push_back(e.i);
        }
        break;
      }
      case ParamKind::kTensors: {
        if (a.kind != NodeArg::Kind::kList) type_error(ctx, pname + " must be a list of tensors");
        for (const NodeArg& e : a.list) {
          Value v = arg_value(e, value_of);
          if (v.kind() != Value::Kind::kTensor)
            type_error(ctx, pname + " must be a list of tensors");
          m.tensors.push_back(v);
        }
        break;
      }
      case ParamKind::kDType:
        if (a.kind != NodeArg::Kind::kDType) type_error(ctx, pname + " must be a dtype");
        m.dtype = a.dtype;
        break;
      case ParamKind::kFlag:
        if (a.kind != NodeArg::Kind::kBool) type_error(ctx, pname + " must be True or False");
        m.flag = a.b;
        break;
      case ParamKind::kStr:
        type_error(ctx, pname + ": strings are not values");
    }
  }
  return out;
}

Value eval_call(fake::MetaContext& ctx, program::OpKind op, const std::vector<NodeArg>& args,
                const std::function<const Value&(Node*)>& value_of) {
  return fake::run_meta(ctx, op, to_meta_args(ctx, op, args, value_of));
}

Value eval_node(fake::MetaContext& ctx, const Node& n,
                const std::function<const Value&(Node*)>& value_of) {
  switch (n.kind) {
    case NodeKind::kCall:
      return eval_call(ctx, n.op, n.args, value_of);
    case NodeKind::kGetItem: {
      const Value& t = value_of(n.args[0].node);
      SF_CHECK(t.kind() == Value::Kind::kTuple) << "getitem of a non-tuple";
      return t.elems().at(n.args[1].i);
    }
    case NodeKind::kStorageOffset:
      return Value(value_of(n.args[0].node).tensor()->storage_offset());
    case NodeKind::kCheck:
    case NodeKind::kAssertScalar:
    case NodeKind::kOutput:
    case NodeKind::kPlaceholder:
      return Value();
    case NodeKind::kCond:
    case NodeKind::kWhileLoop:
    case NodeKind::kInvokeSubgraph:
    case NodeKind::kMap:
    case NodeKind::kScan:
    case NodeKind::kAssociativeScan:
      break;  // re-propagation re-runs their subgraphs itself
  }
  SF_UNREACHABLE() << "eval_node of " << node_kind_name(n.kind);
}

}  // namespace sf::graph
