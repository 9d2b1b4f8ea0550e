// The capture's expressions are sympy trees by class name; each PyTorch function maps to the
// expression of ours with the same meaning (Python floor division and modulo, n-ary Max/Min,
// Piecewise as nested Where), and the divisions PyTorch rounds (CeilToInt(IntTrueDiv(a, b)))
// to integer division.
#include "fuzz/torch/capture_json.h"

#include <optional>

#include "engine/base/errors.h"
#include "engine/sym/make.h"

namespace sf::torch_ref {

namespace {

using json = nlohmann::json;
using torch_graph::CapturedValue;

[[noreturn]] void unreadable(const std::string& what) {
  throw_user_error(UserErrorKind::kUnsupported, "unreadable PyTorch expression: " + what);
}

[[noreturn]] void malformed(const std::string& what) {
  throw_user_error(UserErrorKind::kInvalidProgram, "malformed capture: " + what);
}

ExprRef symbol_named(const std::string& name) {
  static const std::pair<const char*, sym::SymKind> kPrefixes[] = {
      {"zuf", sym::SymKind::kUnbackedFloat},
      {"zf", sym::SymKind::kFloat},
      {"u", sym::SymKind::kUnbackedInt},
      {"s", sym::SymKind::kSize},
  };
  for (const auto& [prefix, kind] : kPrefixes) {
    size_t n = std::string(prefix).size();
    if (name.rfind(prefix, 0) != 0 || name.size() == n) continue;
    if (name.find_first_not_of("0123456789", n) != std::string::npos) continue;
    return sym::symbol(kind, std::stoll(name.substr(n)));
  }
  unreadable("the symbol " + name);
}

// A JSON number as an int64, if it is one that fits (PyTorch's ints are unbounded; nlohmann
// reads a positive one as unsigned).
std::optional<int64_t> int64_of(const json& t) {
  if (t.is_number_integer() && !t.is_number_unsigned()) return t.get<int64_t>();
  if (t.is_number_unsigned() && t.get<uint64_t>() <= uint64_t{INT64_MAX}) {
    return static_cast<int64_t>(t.get<uint64_t>());
  }
  return std::nullopt;
}

ExprRef of_call(const std::string& f, const json& tree) {
  std::vector<ExprRef> args;
  auto need = [&](size_t n) {
    if (tree.size() != n + 1) malformed(f + " with " + std::to_string(tree.size() - 1) + " args");
  };
  // Piecewise's pairs and the rounding functions read their arguments' trees themselves.
  if (f == "Piecewise") {
    if (tree.size() < 2) malformed("an empty Piecewise");
    ExprRef out;
    for (size_t i = tree.size() - 1; i >= 1; --i) {
      const json& pair = tree[i];
      if (!pair.is_array() || pair.size() != 3 || pair[0] != "ExprCondPair") {
        malformed("a Piecewise argument that is not an ExprCondPair");
      }
      ExprRef value = expr_of_tree(pair[1]);
      ExprRef cond = expr_of_tree(pair[2]);
      if (!out) {
        // The last pair's condition is True in PyTorch's printing; anything else has no else.
        if (!(cond->is(sym::ExprKind::kBoolConst) && cond->bool_value())) {
          unreadable("a Piecewise without a True case");
        }
        out = value;
      } else {
        out = sym::where(cond, value, out);
      }
    }
    return out;
  }
  if (f == "CeilToInt" || f == "FloorToInt" || f == "TruncToInt") {
    need(1);
    const json& inner = tree[1];
    bool int_division = inner.is_array() && inner.size() == 3 &&
                        (inner[0] == "IntTrueDiv" || inner[0] == "FloatTrueDiv");
    if (f == "TruncToInt" && !int_division) return sym::trunc_to_int(expr_of_tree(inner));
    if (!int_division) unreadable(f + " of a float");
    ExprRef a = expr_of_tree(inner[1]), b = expr_of_tree(inner[2]);
    if (!a->is_int() || !b->is_int()) unreadable(f + " of a float division");
    if (f == "FloorToInt") return sym::floordiv(a, b);
    if (f == "CeilToInt") return sym::neg(sym::floordiv(sym::neg(a), b));
    unreadable("TruncToInt of an integer division");
  }
  for (size_t i = 1; i < tree.size(); ++i) args.push_back(expr_of_tree(tree[i]));
  if (f == "Add") return sym::add(args);
  if (f == "Mul") return sym::mul(args);
  if (f == "Pow" || f == "PowByNatural") {
    need(2);
    if (!args[1]->is(sym::ExprKind::kInteger) || args[1]->int_value() < 0) {
      unreadable(f + " with a symbolic or negative exponent");
    }
    return sym::pow(args[0], args[1]->int_value());
  }
  if (f == "FloorDiv") return need(2), sym::floordiv(args[0], args[1]);
  if (f == "PythonMod" || f == "Mod") return need(2), sym::mod(args[0], args[1]);
  if (f == "CleanDiv") return need(2), sym::clean_div(args[0], args[1]);
  if (f == "IntTrueDiv" || f == "FloatTrueDiv") return need(2), sym::true_div(args[0], args[1]);
  if (f == "ToFloat") return need(1), sym::to_float(args[0]);
  if (f == "Identity") return need(1), args[0];
  if (f == "Abs") return need(1), sym::max(args[0], sym::neg(args[0]));
  if (f == "Max" && !args.empty()) return sym::max(args);
  if (f == "Min" && !args.empty()) return sym::min(args);
  if (f == "Equality") return need(2), sym::eq(args[0], args[1]);
  if (f == "Unequality") return need(2), sym::ne(args[0], args[1]);
  if (f == "StrictLessThan") return need(2), sym::lt(args[0], args[1]);
  if (f == "LessThan") return need(2), sym::le(args[0], args[1]);
  if (f == "StrictGreaterThan") return need(2), sym::gt(args[0], args[1]);
  if (f == "GreaterThan") return need(2), sym::ge(args[0], args[1]);
  if (f == "And" && !args.empty()) return sym::and_(args);
  if (f == "Or" && !args.empty()) return sym::or_(args);
  if (f == "Not") return need(1), sym::not_(args[0]);
  unreadable(f);
}

// An expression, or null with why recorded in `unreadable` when it is one we cannot read.
ExprRef read_or_record(const json& t, const std::string& where,
                       std::vector<std::string>* unreadable) {
  try {
    return expr_of_tree(t);
  } catch (const UserError& e) {
    // Past our expression limits (a power of 128, say) is as unreadable as an unknown function:
    // our limit, not a fault of PyTorch's capture.
    if (e.kind() == UserErrorKind::kTooComplex) {
      std::string what = e.what();
      unreadable->push_back(where + ": unreadable PyTorch expression: past our limits (" +
                            what.substr(0, what.find(';')) + ")");
      return ExprRef();
    }
    if (e.kind() != UserErrorKind::kUnsupported) throw;
    unreadable->push_back(where + ": " + e.what());
    return ExprRef();
  }
}

CapturedValue value_of(const json& v, bool real, std::vector<std::string>* unreadable_out,
                       const std::string& where) {
  CapturedValue out;
  auto read = [&](const json& t) { return read_or_record(t, where, unreadable_out); };
  if (v.is_null()) return out;
  if (v.is_array()) {
    out.kind = CapturedValue::Kind::kTuple;
    for (const json& x : v) out.items.push_back(value_of(x, real, unreadable_out, where));
    return out;
  }
  if (!v.is_object()) malformed(where + ": a value that is not an object, list or null");
  if (v.contains("sizes")) {
    out.kind = CapturedValue::Kind::kTensor;
    for (const json& s : v.at("sizes")) out.sizes.push_back(read(s));
    for (const json& s : v.at("strides")) out.strides.push_back(read(s));
    out.offset = read(v.at("offset"));
    return out;
  }
  out.kind = CapturedValue::Kind::kScalar;
  const json& x = v.at("value");
  if (real && x.is_boolean()) {
    out.scalar = sym::boolean(x.get<bool>());
  } else if (real && x.is_number_float()) {
    out.scalar = sym::real(x.get<double>());
  } else if (real && x.is_string()) {
    out.non_finite = true;  // "nan", "inf": no value to compare
  } else {
    out.scalar = read(x);
  }
  return out;
}

torch_graph::KeyStep step_of(const json& s) {
  if (!s.is_array() || s.empty() || !s[0].is_string()) malformed("a keypath step " + s.dump());
  std::string k = s[0];
  using K = torch_graph::KeyStep::Kind;
  torch_graph::KeyStep step;
  step.text = s.dump();
  if (k == "size")
    step.kind = K::kSize;
  else if (k == "stride")
    step.kind = K::kStride;
  else if (k == "storage_offset")
    step.kind = K::kStorageOffset;
  else if (k == "int")
    step.kind = K::kConvertInt;
  else if (k == "index" && s.size() == 2 && s[1].is_number_integer()) {
    step.kind = K::kIndex;
    step.n = s[1];
  } else if (k == "divide" && s.size() == 2 && s[1].is_number_integer()) {
    step.kind = K::kDivideBy;
    step.n = s[1];
  } else if (k == "inner" && s.size() == 2) {
    step.kind = K::kInner;
  } else {
    malformed("a keypath step " + s.dump());
  }
  return step;
}

// A bound past int64 (PyTorch's ints are unbounded) is read as infinite: looser, never wrong.
sym::ExtInt bound_of(const json& b) {
  if (std::optional<int64_t> v = int64_of(b)) return sym::ExtInt(*v);
  if (b == "inf" || (b.is_number() && b.get<double>() > 0)) return sym::ExtInt::pos_inf();
  if (b == "-inf" || b.is_number()) return sym::ExtInt::neg_inf();
  malformed("a range bound " + b.dump());
}

torch_graph::CapturedGraph graph_of(const json& g) {
  torch_graph::CapturedGraph out;
  std::vector<std::string>& bad = out.unreadable;
  auto read = [&](const json& t, const std::string& where) {
    return read_or_record(t, where, &bad);
  };
  auto nodes_of = [&](const json& list, const std::string& where) {
    std::vector<torch_graph::CapturedNode> nodes;
    for (const json& n : list) {
      torch_graph::CapturedNode node;
      node.name = n.at("name");
      node.op = n.at("op");
      node.target = n.value("target", "");
      if (n.contains("args") && n["args"].is_array()) {
        for (const json& a : n["args"]) node.args.push_back(a.get<std::string>());
      }
      if (n.contains("call") && n["call"].is_array()) {
        for (const json& a : n["call"]) node.call.push_back(a.get<std::string>());
      }
      if (n.contains("val")) node.val = value_of(n["val"], false, &bad, where + node.name);
      if (n.contains("bindings")) {
        for (const auto& [name, path] : n["bindings"].items()) {
          torch_graph::Binding b;
          b.symbol = symbol_named(name);
          for (const json& s : path) b.path.push_back(step_of(s));
          node.bindings.push_back(std::move(b));
        }
      }
      nodes.push_back(std::move(node));
    }
    return nodes;
  };
  out.nodes = nodes_of(g.at("nodes"), "");
  if (g.contains("subgraphs") && g["subgraphs"].is_object()) {
    for (const auto& [name, list] : g["subgraphs"].items()) {
      out.subgraphs.emplace_back(name, nodes_of(list, name + "."));
    }
  }
  if (g.contains("real") && g["real"].is_object()) {
    for (const auto& [name, v] : g["real"].items()) {
      out.real[name] = value_of(v, true, &bad, name + " (real)");
    }
  }
  const json& env = g.value("shape_env", json());
  if (env.is_object()) {
    for (const auto& [name, r] : env.at("ranges").items()) {
      if (!r.is_array() || r.size() != 2) malformed("the range of " + name);
      sym::ExtInt lo = bound_of(r[0]), hi = bound_of(r[1]);
      if (hi < lo) {
        out.empty_ranges.push_back(name + " in [" + lo.str() + ", " + hi.str() + "]");
        continue;
      }
      out.ranges.emplace_back(symbol_named(name), sym::ValueRange::ints(lo, hi));
    }
    for (const auto& [name, e] : env.at("replacements").items()) {
      if (ExprRef r = read(e, "replacement of " + name)) {
        out.replacements.emplace_back(symbol_named(name), r);
      }
    }
    for (const auto& [from, to] : env.at("renamings").items()) {
      out.renamings.emplace_back(symbol_named(from), symbol_named(to.get<std::string>()));
    }
    auto list = [&](const char* key, std::vector<ExprRef>* into) {
      for (const json& e : env.at(key)) {
        if (ExprRef r = read(e, key)) into->push_back(r);
      }
    };
    list("guards", &out.guards);
    list("asserts", &out.asserts);
    list("divisible", &out.divisible);
    if (env.contains("size_like")) list("size_like", &out.size_like);  // symbol names
  }
  return out;
}

}  // namespace

ExprRef expr_of_tree(const json& t) {
  if (std::optional<int64_t> v = int64_of(t)) return sym::integer(*v);
  if (t.is_number()) unreadable("the number " + t.dump() + " (past int64)");
  if (t.is_string()) return symbol_named(t.get<std::string>());
  if (!t.is_array() || t.empty() || !t[0].is_string()) malformed("an expression " + t.dump());
  std::string f = t[0];
  if (f == "Bool" && t.size() == 2 && t[1].is_boolean()) return sym::boolean(t[1].get<bool>());
  if (f == "Float" && t.size() == 2 && t[1].is_number()) return sym::real(t[1].get<double>());
  if (f == "Rational" || f == "Infinity" || f == "Float") unreadable(t.dump());
  return of_call(f, t);
}

torch_graph::Capture capture_of_json(const json& c) {
  if (!c.is_object() || !c.contains("graphs") || !c["graphs"].is_array()) {
    malformed("no graphs");
  }
  torch_graph::Capture out;
  out.torch_version = c.value("torch", "");
  try {
    for (const json& g : c["graphs"]) out.graphs.push_back(graph_of(g));
  } catch (const json::exception& e) {
    malformed(e.what());
  }
  return out;
}

}  // namespace sf::torch_ref
