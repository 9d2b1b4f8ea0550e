// Graph construction, use lists, and the FX-style printer.
#include "engine/graph/graph.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <map>

#include "engine/base/check.h"
#include "engine/fake/fake_tensor.h"
#include "engine/program/schema.h"

namespace sf::graph {

const char* node_kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::kPlaceholder:
      return "placeholder";
    case NodeKind::kCall:
      return "call";
    case NodeKind::kGetItem:
      return "getitem";
    case NodeKind::kStorageOffset:
      return "storage_offset";
    case NodeKind::kCheck:
      return "check";
    case NodeKind::kAssertScalar:
      return "assert_scalar";
    case NodeKind::kOutput:
      return "output";
    case NodeKind::kCond:
      return "cond";
    case NodeKind::kWhileLoop:
      return "while_loop";
    case NodeKind::kInvokeSubgraph:
      return "invoke_subgraph";
    case NodeKind::kMap:
      return "map";
    case NodeKind::kScan:
      return "scan";
    case NodeKind::kAssociativeScan:
      return "associative_scan";
  }
  return "?";
}

Node* Graph::before(const Node* n) const {
  return n->pos == nodes_.begin() ? nullptr : std::prev(n->pos)->get();
}

NodeArg NodeArg::of(Node* n) {
  NodeArg a;
  a.kind = Kind::kNode;
  a.node = n;
  return a;
}
NodeArg NodeArg::integer(int64_t v) {
  NodeArg a;
  a.kind = Kind::kInt;
  a.i = v;
  return a;
}
NodeArg NodeArg::floating(double v) {
  NodeArg a;
  a.kind = Kind::kFloat;
  a.f = v;
  return a;
}
NodeArg NodeArg::boolean(bool v) {
  NodeArg a;
  a.kind = Kind::kBool;
  a.b = v;
  return a;
}
NodeArg NodeArg::dtype_of(program::DType d) {
  NodeArg a;
  a.kind = Kind::kDType;
  a.dtype = d;
  return a;
}
NodeArg NodeArg::list_of(std::vector<NodeArg> elems) {
  NodeArg a;
  a.kind = Kind::kList;
  a.list = std::move(elems);
  return a;
}

Node* Graph::add(NodeKind kind, std::string base_name, std::vector<NodeArg> args, Node* after) {
  auto node = std::make_unique<Node>();
  Node* n = node.get();
  n->id = next_id_++;
  int count = name_counts_[base_name]++;
  n->name = count == 0 ? base_name : base_name + "_" + std::to_string(count);
  n->kind = kind;
  n->args = std::move(args);
  for (const NodeArg& a : n->args) a.for_each_node([n](Node* used) { used->users.push_back(n); });
  if (after) {
    n->pos = nodes_.insert(std::next(after->pos), std::move(node));
  } else {
    nodes_.push_back(std::move(node));
    n->pos = std::prev(nodes_.end());
  }
  return n;
}

void Graph::erase(Node* n) {
  SF_CHECK(n->users.empty()) << "erasing %" << n->name << " which still has users";
  for (const NodeArg& a : n->args) {
    a.for_each_node([n](Node* used) {
      auto it = std::find(used->users.begin(), used->users.end(), n);
      if (it != used->users.end()) used->users.erase(it);
    });
  }
  nodes_.erase(n->pos);
}

void Graph::replace_all_uses(Node* from, Node* to) {
  std::vector<Node*> users = from->users;
  std::function<void(NodeArg&)> fix = [&](NodeArg& a) {
    if (a.kind == NodeArg::Kind::kNode && a.node == from) a.node = to;
    for (NodeArg& e : a.list) fix(e);
  };
  for (Node* u : users) {
    for (NodeArg& a : u->args) fix(a);
    to->users.push_back(u);
  }
  from->users.clear();
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  for (const auto& n : nodes_) out.push_back(n.get());
  return out;
}

std::vector<Node*> Graph::placeholders() const {
  std::vector<Node*> out;
  for (const auto& n : nodes_) {
    if (n->kind == NodeKind::kPlaceholder) out.push_back(n.get());
  }
  return out;
}

Node* Graph::output() const {
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    if ((*it)->kind == NodeKind::kOutput) return it->get();
  }
  return nullptr;
}

std::string value_type_str(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return "None";
    case Value::Kind::kInt:
      return v.is_constant_scalar() ? v.expr()->str() : "Sym(" + v.expr()->str() + ")";
    case Value::Kind::kFloat:
    case Value::Kind::kBool:
      return v.is_constant_scalar() ? v.expr()->str() : "Sym(" + v.expr()->str() + ")";
    case Value::Kind::kTuple: {
      std::string out = "(";
      for (size_t i = 0; i < v.elems().size(); ++i) {
        out += (i ? ", " : "") + value_type_str(v.elems()[i]);
      }
      return out + ")";
    }
    case Value::Kind::kTensor:
      if (fake::is_fake_tensor(v)) return fake::fake_of(v).type_str();
      return v.tensor()->describe();
  }
  return "?";
}

std::string arg_str(const NodeArg& a) {
  switch (a.kind) {
    case NodeArg::Kind::kNone:
      return "None";
    case NodeArg::Kind::kNode:
      return "%" + a.node->name;
    case NodeArg::Kind::kInt:
      return std::to_string(a.i);
    case NodeArg::Kind::kFloat: {
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof(buf), a.f);  // shortest round-trip text
      std::string s(buf, res.ptr);
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
    case NodeArg::Kind::kBool:
      return a.b ? "True" : "False";
    case NodeArg::Kind::kDType:
      return program::dtype_name(a.dtype);
    case NodeArg::Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < a.list.size(); ++i) out += (i ? ", " : "") + arg_str(a.list[i]);
      return out + "]";
    }
  }
  return "?";
}

std::string Graph::print() const {
  std::string out = "graph(";
  bool first = true;
  for (const auto& n : nodes_) {
    if (n->kind != NodeKind::kPlaceholder) continue;
    out += (first ? "" : ", ") + n->name + ": " + value_type_str(n->value);
    first = false;
  }
  out += "):\n";
  for (const auto& up : nodes_) {
    const Node& n = *up;
    std::string line = "  ";
    switch (n.kind) {
      case NodeKind::kPlaceholder:
        continue;
      case NodeKind::kOutput: {
        line += "return (";
        for (size_t i = 0; i < n.args.size(); ++i) line += (i ? ", " : "") + arg_str(n.args[i]);
        line += n.args.size() == 1 ? ",)" : ")";
        out += line + "\n";
        continue;
      }
      case NodeKind::kCheck:
      case NodeKind::kAssertScalar:
        line += std::string(n.kind == NodeKind::kCheck ? "check" : "_assert_scalar") + "(" +
                n.assert_expr->str() + ")";
        if (!n.message.empty()) line += "  # " + n.message;
        out += line + "\n";
        continue;
      case NodeKind::kCall:
      case NodeKind::kGetItem:
      case NodeKind::kStorageOffset:
      case NodeKind::kCond:
      case NodeKind::kWhileLoop:
      case NodeKind::kInvokeSubgraph:
      case NodeKind::kMap:
      case NodeKind::kScan:
      case NodeKind::kAssociativeScan:
        break;
    }
    line += "%" + n.name + ": " + value_type_str(n.value) + " = ";
    if (n.kind == NodeKind::kCall) {
      line += program::op_name(n.op);
    } else {
      line += node_kind_name(n.kind);
    }
    line += "(";
    bool first_arg = true;
    for (const NodeArg& a : n.args) {
      if (a.kind == NodeArg::Kind::kNone) continue;
      line += (first_arg ? "" : ", ") + arg_str(a);
      first_arg = false;
    }
    if (is_higher_order(n.kind)) line += (first_arg ? "" : "; ") + n.function_names;
    if (n.kind == NodeKind::kAssociativeScan) line += ", dim=" + std::to_string(n.scan_dim);
    line += ")";
    if (!n.unbacked_bindings.empty()) line += "  " + bindings_str(n.unbacked_bindings);
    out += line + "\n";
  }
  // Subgraphs after their graph, indented, as FX prints submodules; a shared one once.
  std::map<const Graph*, std::string> printed;
  for (const auto& up : nodes_) {
    for (size_t i = 0; i < up->subgraphs.size(); ++i) {
      std::string name = "%" + up->name + "." + std::to_string(i);
      auto [first, fresh] = printed.emplace(up->subgraphs[i].get(), name);
      if (!fresh) {
        out += name + " = " + first->second + "\n";
        continue;
      }
      std::string sub = up->subgraphs[i]->print();
      out += name + " = ";
      size_t start = 0;
      while (start < sub.size()) {
        size_t end = sub.find('\n', start);
        out += (start ? "  " : "") + sub.substr(start, end - start + 1);
        start = end + 1;
      }
    }
  }
  return out;
}

}  // namespace sf::graph
