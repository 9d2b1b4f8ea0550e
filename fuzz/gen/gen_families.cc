// Program families shaped like the models where unbacked sizes arise: mixture-of-experts routing,
// detection post-processing and ragged batches. Each is a chain of statements over an existing
// tensor, accepted by eager one by one (a chain eager refuses midway keeps its valid prefix), at
// the top level or inside a cond branch, loop body or region; their variables are named after the
// family, which gen --stats reports.
#include "fuzz/gen/generator_internal.h"

namespace sf::fuzz::detail {

namespace {

// Row counts weighted towards the boundary shapes (0, 1 and 2 rows).
constexpr int64_t kBoundaryRows[] = {0, 1, 1, 2, 2, 3, 4};

}  // namespace

bool Generator::try_model_family() {
  const Var* t = pick([](const HostValue& x) { return is_tensor(x) && !x.tensor.sizes.empty(); });
  if (!t) return false;
  // X: [T, D] f32 tokens, the first rows of t (boundary row counts weighted up) as a matrix.
  std::string x = family_var("fam_", "x");
  ExprPtr rows = v(t->name);
  if (t->value.tensor.dtype != DType::kFloat32) rows = call("to", {rows, dt(DType::kFloat32)});
  if (src_.chance(1, 2)) {
    rows = call("slice", {rows, i(0), i(0), i(kBoundaryRows[src_.pick(std::size(kBoundaryRows))])});
  }
  ExprPtr matrix =
      rank(t->value) == 1 ? call("unsqueeze", {rows, i(1)}) : call("flatten", {rows, i(1)});
  if (!emit(x, matrix)) return false;
  switch (src_.pick(3)) {
    case 0:
      mixture_of_experts(x);
      break;
    case 1:
      detection(x);
      break;
    default:
      ragged_batch(x);
      break;
  }
  return true;
}

// A family's variable: its prefix (which gen --stats reads), what it holds, the statement line.
std::string Generator::family_var(const std::string& prefix, const std::string& what) const {
  return prefix + what + std::to_string(line_);
}

// A family's statement, unless the swarm policy disables its op (the chain then ends there).
bool Generator::emit(const std::string& name, ExprPtr e) {
  if (e->kind == program::Expr::Kind::kCall && !statement_allowed(program::op_name(e->op))) {
    return false;
  }
  return accept(program::ProgramBuilder::assign_stmt(name, std::move(e)), name);
}

bool Generator::emit_tuple(const std::vector<std::string>& names, ExprPtr e) {
  if (e->kind == program::Expr::Kind::kCall && !statement_allowed(program::op_name(e->op))) {
    return false;
  }
  Stmt st = program::ProgramBuilder::assign_stmt(names[0], std::move(e));
  st.targets = names;
  return accept(st, names);
}

// scores = X @ G -> top-k experts per token -> tokens per expert (one_hot summed: E static
// counts) -> tolist (E unbacked sizes, any of them 0: an empty expert) -> tokens sorted by expert
// -> split by the counts (their sum checked against T*k) -> one matmul per expert -> cat ->
// index_add back into [T, D]. Sometimes a capacity check on each count.
void Generator::mixture_of_experts(const std::string& x) {
  const int64_t experts = src_.range(2, 4), k = src_.range(1, 2);
  const std::string p = "moe_";
  ExprPtr d = call("size", {v(x), i(1)});
  std::string gate = family_var(p, "gate");
  // A gate matrix of small distinct-ish values: (j mod (E + 1)) - 1 over its elements.
  ExprPtr g = call("remainder", {call("arange", {mul(d, i(experts))}), i(experts + 1)});
  ExprPtr gate_value = sub(call("to", {g, dt(DType::kFloat32)}), f(1.0));
  if (!emit(gate, call("reshape", {gate_value, list({d, i(experts)})}))) return;
  std::string scores = family_var(p, "scores");
  if (!emit(scores, call("mm", {v(x), v(gate)}))) return;
  std::string top = family_var(p, "top");
  if (!emit_tuple({top + "v", top + "i"}, call("topk", {v(scores), i(k), i(1)}))) return;
  std::string flat = family_var(p, "expert");
  if (!emit(flat, call("flatten", {v(top + "i")}))) return;
  std::string counts = family_var(p, "counts");
  if (!emit(counts, call("sum", {call("one_hot", {v(flat), i(experts)}), list({i(0)})}))) return;
  std::vector<std::string> sizes;
  std::string c = family_var(p, "c") + "_";
  for (int64_t e = 0; e < experts; ++e) sizes.push_back(c + std::to_string(e));
  if (!emit_tuple(sizes, call("tolist", {v(counts)}))) return;
  if (src_.chance(1, 3)) {  // a capacity check: no expert takes more than T*k tokens
    for (const std::string& s : sizes) {
      Stmt st;
      st.kind = Stmt::Kind::kCheck;
      st.value = le(v(s), call("numel", {v(flat)}));
      st.message = "expert capacity " + std::to_string(line_);
      if (!accept(st, std::vector<std::string>{})) return;
    }
  }
  std::string order = family_var(p, "order");
  if (!emit(order, call("argsort", {v(flat), i(0)}))) return;
  std::string token = family_var(p, "token");
  if (!emit(token, call("floordiv", {v(order), i(k)}))) return;
  std::string routed = family_var(p, "routed");
  if (!emit(routed, call("index_select", {v(x), i(0), v(token)}))) return;
  std::vector<std::string> parts;
  std::vector<ExprPtr> size_args;
  std::string part = family_var(p, "part") + "_";
  for (int64_t e = 0; e < experts; ++e) {
    parts.push_back(part + std::to_string(e));
    size_args.push_back(v(sizes[e]));
  }
  if (!emit_tuple(parts, call("split_with_sizes", {v(routed), list(size_args)}))) return;
  std::vector<ExprPtr> outs;
  for (int64_t e = 0; e < experts; ++e) {
    std::string y = family_var(p, "y");
    ExprPtr w = call("full", {list({d, d}), f(0.5 * static_cast<double>(e + 1))});
    if (!emit(y, call("mm", {v(parts[e]), w}))) return;
    outs.push_back(v(y));
  }
  std::string merged = family_var(p, "merged");
  if (!emit(merged, call("cat", {list(outs), i(0)}))) return;
  std::string out = family_var(p, "out");
  emit(out, call("index_add", {call("zeros", {list({call("size", {v(x), i(0)}), d})}), i(0),
                               v(token), v(merged)}));
}

// Scores over a threshold -> the kept scores and boxes (index by one mask: one nonzero memo) ->
// sorted by score -> the top few -> a second data-dependent filter -> padded by one empty box.
void Generator::detection(const std::string& x) {
  const std::string p = "det_";
  std::string scores = family_var(p, "scores");
  if (!emit(scores, call("amax", {v(x), list({i(1)})}))) return;
  std::string keep = family_var(p, "keep");
  if (!emit(keep, gt(v(scores), f(0.5 * static_cast<double>(src_.range(-2, 1)))))) return;
  std::string kept = family_var(p, "kept");
  if (!emit(kept, call("index", {v(scores), v(keep)}))) return;
  std::string boxes = family_var(p, "boxes");
  if (!emit(boxes, call("index", {v(x), v(keep)}))) return;
  std::string order = family_var(p, "order");
  if (!emit(order, call("argsort", {v(kept), i(0), b(true)}))) return;
  std::string sorted = family_var(p, "sorted");
  if (!emit(sorted, call("index_select", {v(boxes), i(0), v(order)}))) return;
  std::string top = family_var(p, "top");
  ExprPtr count = call("min", {call("size", {v(kept), i(0)}), i(src_.range(1, 3))});
  if (!emit_tuple({top + "v", top + "i"}, call("topk", {v(kept), count}))) return;
  std::string again = family_var(p, "again");
  ExprPtr second = gt(call("index_select", {v(kept), i(0), v(order)}), f(1.0));
  if (!emit(again, call("index", {v(sorted), second}))) return;
  std::string out = family_var(p, "out");
  if (src_.chance(1, 2)) {
    emit(out, call("pad", {v(again), list({i(0), i(0), i(0), i(1)})}));
  } else {
    emit(out,
         call("cat",
              {list({v(again), call("zeros", {list({i(1), call("size", {v(x), i(1)})})})}), i(0)}));
  }
}

// Lengths per sequence (from the data, 0 to 2 each) -> segment ids (repeat_interleave) and
// offsets (cumsum) -> values of the packed batch -> per-segment sums (index_add) -> an embedding
// bag (embedding rows summed per segment) -> the first segment by narrow.
void Generator::ragged_batch(const std::string& x) {
  const std::string p = "rag_";
  std::string lengths = family_var(p, "lengths");
  ExprPtr raw = call("to", {call("amax", {v(x), list({i(1)})}), dt(DType::kInt64)});
  if (!emit(lengths, call("remainder", {call("abs", {raw}), i(3)}))) return;
  std::string ids = family_var(p, "ids");
  if (!emit(ids, call("repeat_interleave", {v(lengths)}))) return;
  std::string offsets = family_var(p, "offsets");
  if (!emit(offsets, call("cumsum", {v(lengths), i(0)}))) return;
  ExprPtr batch = call("size", {v(lengths), i(0)});
  std::string values = family_var(p, "values");
  if (!emit(values,
            call("to", {call("arange", {call("size", {v(ids), i(0)})}), dt(DType::kFloat32)})))
    return;
  std::string sums = family_var(p, "sums");
  if (!emit(sums, call("index_add", {call("zeros", {list({batch})}), i(0), v(ids), v(values)})))
    return;
  std::string bag = family_var(p, "bag");
  ExprPtr rows = call("embedding", {call("remainder", {v(ids), i(4)}),
                                    call("full", {list({i(4), i(2)}), f(0.25)})});
  if (!emit(bag, call("index_add", {call("zeros", {list({batch, i(2)})}), i(0), v(ids), rows})))
    return;
  if (!src_.chance(1, 2)) return;
  std::string first = family_var(p, "first");
  ExprPtr length = call("item", {call("select", {v(lengths), i(0), i(0)})});
  emit(first, call("sum", {call("narrow", {v(values), i(0), i(0), length})}));
}

}  // namespace sf::fuzz::detail
