// The meta-function table harness (meta_harness.h): parsing of input declarations and calls by
// the op's ops.def signature, and renderings of results and of what a call added to the ShapeEnv.
#include "tests/fake/meta_harness.h"

#include <algorithm>
#include <cctype>

#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::fake::testing {

using program::OpKind;
using program::ParamKind;

namespace {

[[noreturn]] void bad_row(const std::string& why) { throw BadRow(why); }

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// "[a, b]" -> {"a", "b"}; a bare item is a one-element list.
std::vector<std::string> list_items(const std::string& s) {
  std::string t = trim(s);
  if (t.empty() || t.front() != '[') return {t};
  if (t.back() != ']') bad_row("unterminated list " + t);
  return split_top(t.substr(1, t.size() - 2), ',');
}

std::optional<int64_t> int_literal(const std::string& t) {
  if (t.empty()) return std::nullopt;
  size_t i = t[0] == '-' ? 1 : 0;
  if (i == t.size()) return std::nullopt;
  for (size_t j = i; j < t.size(); ++j) {
    if (!isdigit(static_cast<unsigned char>(t[j]))) return std::nullopt;
  }
  return std::stoll(t);
}

}  // namespace

std::vector<std::string> split_top(const std::string& s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == sep && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

void Harness::declare(const std::string& decl) {
  size_t colon = decl.find(':');
  if (colon == std::string::npos) bad_row("input without ':' " + decl);
  std::string name = trim(decl.substr(0, colon)), type = trim(decl.substr(colon + 1));
  Value v;
  if (type.rfind("int ", 0) == 0) {
    v = Value(symbol(trim(type.substr(4)), name, /*positive=*/false));
  } else {
    size_t open = type.find('[');
    if (open == std::string::npos || type.back() != ']') bad_row("bad input type " + type);
    std::optional<program::DType> dtype = program::dtype_from_name(type.substr(0, open));
    if (!dtype) bad_row("bad dtype in " + type);
    std::vector<SymInt> sizes;
    std::vector<std::string> items = split_top(type.substr(open + 1, type.size() - open - 2), ',');
    for (size_t d = 0; d < items.size(); ++d) {
      std::string source = name + ".size(" + std::to_string(d) + ")";
      if (auto lit = int_literal(items[d])) {
        sizes.push_back(*lit);
      } else {
        sizes.push_back(symbol(items[d], source, /*positive=*/true));
      }
    }
    // As FakeMode::fakify_input: strides from the sizes' own symbols.
    std::vector<SymInt> strides = mode_.contiguous_strides(sizes, false);
    v = Value::tensor(mode_.make_tensor(*dtype, std::move(sizes), std::move(strides), 0));
  }
  env_.compute_unbacked_bindings(v);  // the placeholder binds its unbacked symbols
  vars_[name] = v;
}

Harness::Result Harness::exec(const std::string& stmt) {
  size_t open = stmt.find('(');
  if (open == std::string::npos || stmt.back() != ')') bad_row("bad statement " + stmt);
  std::string head = stmt.substr(0, open), target;
  if (size_t eq = head.find('='); eq != std::string::npos) {
    target = trim(head.substr(0, eq));
    head = head.substr(eq + 1);
  }
  head = trim(head);
  std::vector<std::string> args = split_top(stmt.substr(open + 1, stmt.size() - open - 2), ',');
  if (head == "constrain") {
    std::optional<int64_t> lo = args.size() == 3 ? int_literal(args[1]) : std::nullopt;
    std::optional<int64_t> hi = args.size() == 3 ? int_literal(args[2]) : std::nullopt;
    if (!lo || !hi) bad_row("constrain(sym, lo, hi) takes int literal bounds: " + stmt);
    env_.constrain_symbol_range(lookup_symbol(args[0]), sym::ExtInt(*lo), sym::ExtInt(*hi));
    return {};
  }
  if (head == "bump_epoch") {  // a retrace: memos from before are stale
    mode_.bump_epoch();
    return {};
  }
  if (head == "inference_mode") {  // memos are never written
    mode_.inference_mode = true;
    return {};
  }
  std::optional<OpKind> op = program::op_by_name(head);
  if (!op) bad_row("unknown op " + head);
  std::vector<MetaArg> meta_args = bind(*op, args);
  MetaContext ctx{
      mode_, std::string("line 1: ") + program::op_name(*op), std::nullopt, {}, std::nullopt};
  Result r;
  r.value = run_meta(ctx, *op, meta_args);
  r.bindings = env_.compute_unbacked_bindings(r.value);  // as the tracer's add_node
  if (!target.empty()) vars_[target] = r.value;
  return r;
}

std::string Harness::show_text(const std::string& text) const {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool word_start =
        i == 0 || !(isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
    size_t j = i + 1;
    while (j < text.size() && isdigit(static_cast<unsigned char>(text[j]))) ++j;
    bool word_end =
        j == text.size() || !(isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_');
    if (text[i] == 's' && word_start && j > i + 1 && word_end) {
      std::string word = text.substr(i, j - i);
      auto it = std::find_if(rename_.begin(), rename_.end(),
                             [&](const auto& kv) { return kv.first->str() == word; });
      out += it == rename_.end() ? word : it->second->str();
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string Harness::render(const Value& v, bool strides) const {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return "None";
    case Value::Kind::kInt:
      return "int " + show(v.expr());
    case Value::Kind::kFloat:
      return "float " + show(v.expr());
    case Value::Kind::kBool:
      return "bool " + show(v.expr());
    case Value::Kind::kTuple: {
      std::string out = "(";
      for (size_t i = 0; i < v.elems().size(); ++i) {
        out += (i ? ", " : "") + render(v.elems()[i], strides);
      }
      return out + ")";
    }
    case Value::Kind::kTensor:
      break;
  }
  const FakeTensor& t = fake_of(v);
  auto list = [&](const std::vector<SymInt>& xs) {
    std::string out = "[";
    for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + show(xs[i].expr());
    return out + "]";
  };
  std::string out = program::dtype_name(t.dtype()) + list(t.sizes());
  if (!strides) return out;
  out += " stride=" + list(t.strides());
  if (!(t.storage_offset().is_constant() && t.storage_offset().as_int() == 0)) {
    out += " offset=" + show(t.storage_offset().expr());
  }
  return out;
}

std::string Harness::render_bindings(const std::optional<Bindings>& b) const {
  std::string out = "{";
  if (b) {
    bool first = true;
    for (const auto& [s, path] : *b) {
      KeyPath p = path;
      for (KeyEntry& k : p) {
        if (k.kind == KeyEntry::Kind::kDivideBy) k.divisor = sym::xreplace(k.divisor, rename_);
      }
      out += (first ? "" : ", ") + show(s) + ": " + keypath_str(p);
      first = false;
    }
  }
  return out + "}";
}

Harness::Snapshot Harness::snapshot() const {
  Snapshot s;
  s.guards = env_.guards().size();
  for (const auto& [key, list] : env_.deferred_runtime_asserts()) s.asserts[key] = list.size();
  s.replacements = env_.replacements();
  for (const auto& [sym, vr] : env_.var_to_range()) s.ranges[sym] = range_str(sym, vr);
  return s;
}

std::vector<std::string> Harness::facts_since(const Snapshot& before,
                                              std::vector<std::string>* untagged) const {
  std::vector<std::string> out;
  for (size_t i = before.guards; i < env_.guards().size(); ++i) {
    out.push_back("guard " + show(env_.guards()[i].expr));
  }
  for (const auto& [key, list] : env_.deferred_runtime_asserts()) {
    auto it = before.asserts.find(key);
    for (size_t i = it == before.asserts.end() ? 0 : it->second; i < list.size(); ++i) {
      out.push_back("assert " + show(list[i].expr));
      if (list[i].msg.find(kImplicitAssertTag) == std::string::npos) {
        untagged->push_back(list[i].msg);
      }
    }
  }
  for (const auto& [from, to] : env_.replacements()) {
    auto it = before.replacements.find(from);
    if (it == before.replacements.end() || it->second != to) {
      out.push_back(show(from) + " -> " + show(to));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Harness::ranges_since(const Snapshot& before) const {
  std::vector<std::string> out;
  for (const auto& [sym, vr] : env_.var_to_range()) {
    std::string now = range_str(sym, vr);
    auto it = before.ranges.find(sym);
    if (it == before.ranges.end() || it->second != now) out.push_back(show(sym) + ": " + now);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Harness::range_str(const ExprRef& sym, const ValueRange& vr) const {
  return vr.str() + (env_.is_size_like(sym) ? " size-like" : "");
}

ExprRef Harness::lookup_symbol(const std::string& name) const {
  auto it = symbols_.find(name);
  if (it == symbols_.end()) {
    // A symbol a statement allocated (u2 from nonzero): found by its printed name.
    for (const auto& [s, vr] : env_.var_to_range()) {
      if (s->str() == name) return s;
    }
    bad_row("unknown symbol " + name);
  }
  return it->second;
}

SymInt Harness::symbol(const std::string& text, const std::string& source, bool positive) {
  size_t eq = text.find('=');
  std::string name = trim(text.substr(0, eq));
  std::optional<int64_t> index =
      name.size() > 1 ? int_literal(name.substr(1)) : std::optional<int64_t>();
  if (!index || (name[0] != 's' && name[0] != 'u')) bad_row("bad symbol " + text);
  if (auto it = symbols_.find(name); it != symbols_.end()) {
    if (eq != std::string::npos) bad_row("hint given again for " + name);
    return SymInt(it->second);
  }
  SymInt s;
  if (name[0] == 'u') {
    if (eq != std::string::npos) bad_row("unbacked " + name + " takes no hint");
    if (env_.unbacked_symint_counter() != *index) {
      bad_row(name + " is not the next unbacked symbol (u" +
              std::to_string(env_.unbacked_symint_counter()) + ")");
    }
    s = env_.create_symbol(0, source, DimDynamic::kSizeLikeUnbacked, positive);
  } else {
    std::optional<int64_t> hint =
        eq == std::string::npos ? *index + 3 : int_literal(trim(text.substr(eq + 1)));
    if (!hint) bad_row("bad hint in " + text);
    s = env_.create_symbol(*hint, source, DimDynamic::kDynamic, positive);
    if (s.is_constant() || rename_.count(s.expr())) bad_row(name + " is not a fresh symbol");
    rename_[s.expr()] = sym::symbol(sym::SymKind::kSize, *index);
  }
  symbols_[name] = s.expr();
  return s;
}

Value Harness::value(const std::string& t) {
  if (auto it = vars_.find(t); it != vars_.end()) return it->second;
  if (t == "True" || t == "False") return Value(SymBool(t == "True"));
  if (auto i = int_literal(t)) return Value(SymInt(*i));
  if (t.find('.') != std::string::npos) return Value(SymFloat(std::stod(t)));
  return Value(SymInt(lookup_symbol(t)));
}

std::vector<MetaArg> Harness::bind(OpKind op, const std::vector<std::string>& args) {
  const program::OpSchema& s = program::schema(op);
  std::vector<std::optional<std::string>> text(s.params.size());
  size_t positional = 0;
  for (const std::string& a : args) {
    size_t eq = a.find('=');
    bool keyword = eq != std::string::npos && a.find('[') > eq && a.find('(') > eq;
    if (!keyword) {
      if (positional >= text.size()) bad_row("too many arguments for " + s.name);
      text[positional++] = a;
      continue;
    }
    std::string key = trim(a.substr(0, eq));
    auto p = std::find_if(s.params.begin(), s.params.end(),
                          [&](const program::Param& q) { return q.name == key; });
    if (p == s.params.end()) bad_row(s.name + " has no parameter " + key);
    text[p - s.params.begin()] = trim(a.substr(eq + 1));
  }
  std::vector<MetaArg> out(s.params.size());
  for (size_t i = 0; i < s.params.size(); ++i) {
    const program::Param& p = s.params[i];
    MetaArg& m = out[i];
    m.kind = p.kind;
    std::string t;
    if (text[i]) {
      t = *text[i];
    } else if (p.default_value && p.default_value->kind != program::Expr::Kind::kNone) {
      const program::Expr& d = *p.default_value;
      t = d.kind == program::Expr::Kind::kBool    ? (d.bool_value ? "True" : "False")
          : d.kind == program::Expr::Kind::kDType ? program::dtype_name(d.dtype)
                                                  : std::to_string(d.int_value);
    } else if (p.optional) {
      continue;
    } else {
      bad_row("missing argument " + p.name + " of " + s.name);
    }
    if (t == "None") continue;
    m.present = true;
    switch (p.kind) {
      case ParamKind::kTensor:
      case ParamKind::kScalar:
      case ParamKind::kAny:
      case ParamKind::kInt:
        m.value = value(t);
        break;
      case ParamKind::kInts:
        for (const std::string& x : list_items(t)) m.ints.push_back(value(x).as_int());
        break;
      case ParamKind::kDim:
      case ParamKind::kDims:
        for (const std::string& x : list_items(t)) {
          if (trim(x).empty()) continue;  // "[]"
          std::optional<int64_t> d = int_literal(x);
          if (!d) bad_row("dims are literal ints: " + t);
          m.dims.push_back(*d);
        }
        break;
      case ParamKind::kTensors:
        for (const std::string& x : list_items(t)) m.tensors.push_back(value(x));
        break;
      case ParamKind::kDType: {
        std::optional<program::DType> d = program::dtype_from_name(t);
        if (!d) bad_row("bad dtype " + t);
        m.dtype = *d;
        break;
      }
      case ParamKind::kFlag:
        m.flag = t == "True";
        break;
      case ParamKind::kStr:
        bad_row("no op takes a string");
    }
  }
  return out;
}

}  // namespace sf::fake::testing
