// The program generator's candidates: for an op drawn, arguments built from the concrete shapes and
// values of earlier variables (a switch over every op, so a new op fails to compile until the
// generator can make it), and the helper expressions they use (masks, int vectors, broadcasts).
#include "fuzz/gen/generator_internal.h"

namespace sf::fuzz {

namespace detail {

// The most multiply-adds a generated contraction may do (batch * m * n * k).
constexpr int64_t kMaxContractionWork = int64_t{1} << 16;

ExprPtr Generator::dim_lit(const HostValue& t, int64_t* dim) {
  int64_t r = std::max<int64_t>(rank(t), 1);
  int64_t d = src_.range(0, r - 1);
  if (dim) *dim = d;
  return i(src_.chance(1, 4) ? d - r : d);
}

// An int expression: a literal or an existing int scalar.
ExprPtr Generator::int_expr(int64_t lo, int64_t hi) {
  const Var* s = src_.chance(1, 2) ? pick(is_int) : nullptr;
  if (s && s->value.i >= lo && s->value.i <= hi) return v(s->name);
  return i(src_.range(lo, hi));
}

// A boolean mask for `t`: an existing bool tensor of t's shape (a mask shared by several
// index/masked_select calls shares their data-dependent size through the memo), a new named
// mask statement that later calls may share, or `cmp(t, c)` inline.
ExprPtr Generator::mask_for(const Var& t, const char* cmp, int64_t c) {
  std::vector<int64_t> shape = t.value.tensor.sizes;
  if (src_.chance(2, 3)) {
    if (const Var* m = pick([&](const HostValue& x) {
          return is_tensor(x) && x.tensor.dtype == DType::kBool && x.tensor.sizes == shape;
        })) {
      return v(m->name);
    }
  }
  if (src_.chance(1, 2) && statement_allowed(cmp)) {
    std::string name = "k" + std::to_string(line_);
    if (accept(program::ProgramBuilder::assign_stmt(name, call(cmp, {v(t.name), i(c)})), name)) {
      return v(name);
    }
  }
  return call(cmp, {v(t.name), i(c)});
}

// The tensor as an operand of ops that refuse bool (argmax, scatter_add): bool cast to i64.
ExprPtr Generator::numeric(const Var& t) {
  if (t.value.tensor.dtype != DType::kBool) return v(t.name);
  return call("to", {v(t.name), dt(DType::kInt64)});
}

// A 1-D i64 tensor variable (repeats, indices).
const Var* Generator::int_vector() {
  return pick([](const HostValue& x) {
    return is_tensor(x) && x.tensor.dtype == DType::kInt64 && x.tensor.sizes.size() == 1;
  });
}

// A call of `op` on existing values (null when no suitable operand exists). The switch lists
// every op: a new row in ops.def does not compile until the generator can make it.
ExprPtr Generator::candidate(OpKind op) {
  const Var* t = pick(is_tensor);
  if (!t) return nullptr;
  const HostValue& tv = t->value;
  const std::string name = program::op_name(op);
  auto size_expr = [&]() { return call("size", {v(t->name), dim_lit(tv)}); };
  switch (op) {
    // creation, sized by existing (possibly data-dependent) sizes
    case OpKind::kZeros:
    case OpKind::kOnes:
    case OpKind::kFull: {
      std::vector<ExprPtr> shape;
      if (src_.chance(1, 2)) shape.push_back(size_expr());
      shape.push_back(i(src_.range(1, 4)));
      if (op == OpKind::kZeros) return call(name, {list(shape)});
      if (op == OpKind::kOnes) return call(name, {list(shape), dt(pick_dtype())});
      return call(name, {list(shape), f(0.5 * static_cast<double>(src_.range(-4, 4)))});
    }
    case OpKind::kArange:
      return call(name, {call("numel", {v(t->name)})});
      // pointwise: on a tensor (and a same-shaped tensor or a literal), or on an int scalar
#define SF_OP SF_ELEMENTWISE_BINARY_CASE
#include "engine/program/ops.def"
      {
        ExprPtr lhs = v(t->name);
        ExprPtr rhs = i(src_.range(1, 3));
        const Var* s = src_.chance(1, 4) ? pick(is_int) : nullptr;
        if (s) {
          lhs = v(s->name);  // SymInt arithmetic
          // Half the time // and % divide by another int (an item() that may be negative, a
          // size): rules for FloorDiv and Mod over a divisor of unknown sign are where unsound
          // rewrites hide. Eager drops a statement that divides by zero.
          if ((op == OpKind::kFloorDiv || op == OpKind::kRemainder) && src_.chance(1, 2)) {
            if (const Var* d = pick(is_int)) {
              rhs = v(d->name);
              // Sometimes a small literal of either sign by that int: -2 // s0 is -1, not 0.
              if (src_.chance(1, 3)) lhs = i(src_.range(-3, 3));
            }
          }
        } else if (const Var* o = pick([&](const HostValue& x) {
                     return is_tensor(x) && x.tensor.sizes == tv.tensor.sizes;
                   });
                   o && src_.chance(2, 3)) {
          rhs = v(o->name);
        } else if ((op == OpKind::kFloorDiv || op == OpKind::kRemainder) && src_.chance(1, 2)) {
          // A tensor divided by an int scalar (an item() of either sign, a size): the
          // division's rules meet a data-dependent divisor at the tensor level too.
          if (const Var* d = pick(is_int)) rhs = v(d->name);
        }
        bool infix_op = op == OpKind::kAdd || op == OpKind::kSub || op == OpKind::kMul ||
                        op == OpKind::kLt || op == OpKind::kLe;
        return infix_op ? infix(name, lhs, rhs) : call(name, {lhs, rhs});
      }
#define SF_OP SF_ELEMENTWISE_UNARY_CASE
#include "engine/program/ops.def"
    case OpKind::kRelu:
      return call(name, {v(t->name)});
    case OpKind::kTo:
      return call(name, {v(t->name), dt(pick_dtype())});
    case OpKind::kWhere:
      return call(name, {call("gt", {v(t->name), i(0)}), v(t->name), i(src_.range(-2, 2))});
    case OpKind::kMaskedFill: {  // mask_for may append a statement: read t's name first
      std::string tensor = t->name;
      ExprPtr mask = mask_for(*t, "gt", 0);
      const Var* s = src_.chance(1, 3) ? pick(is_int) : nullptr;
      ExprPtr value = s ? v(s->name) : f(0.5 * static_cast<double>(src_.range(-4, 4)));
      return call(name, {v(tensor), mask, value});
    }
    // reductions
    case OpKind::kSum:
    case OpKind::kAmax:
    case OpKind::kAmin:
    case OpKind::kAny:
    case OpKind::kAll:
    case OpKind::kCountNonzero: {
      if (src_.chance(1, 3)) return call(name, {v(t->name)});
      std::vector<std::pair<std::string, ExprPtr>> kw;
      if (op != OpKind::kCountNonzero && src_.chance(1, 3)) kw.emplace_back("keepdim", b(true));
      return call(name, {v(t->name), list({dim_lit(tv)})}, kw);
    }
    // contractions: an operand with its own transpose (or a vector of its row length), so the
    // contracted sizes agree by construction, symbolic or not; bool operands are cast first
    case OpKind::kMm:
    case OpKind::kBmm:
    case OpKind::kMatmul: {
      ExprPtr a = v(t->name);
      if (tv.tensor.dtype == DType::kBool) a = call("to", {a, dt(DType::kFloat32)});
      int64_t want = op == OpKind::kMm    ? 2
                     : op == OpKind::kBmm ? 3
                                          : std::max<int64_t>(rank(tv), 1);
      if (rank(tv) != want) {  // [-1], [-1, 1] or [1, -1, 1]
        std::vector<ExprPtr> shape{i(-1)};
        if (want >= 2) shape.push_back(i(1));
        if (want == 3) shape.insert(shape.begin(), i(1));
        a = call("reshape", {a, list(shape)});
      }
      if (want == 1) return call(name, {a, a});  // a dot product: a 0-dim result
      // a @ a^T over [.., m, k] costs batch * m * m * k: a chain of outer products squares the
      // size each time, past what a program may take (a campaign's timeout).
      int64_t m = 1, k = 1, numel = 1;
      for (int64_t d : tv.tensor.sizes) numel *= d;
      if (rank(tv) == want) {
        m = tv.tensor.sizes[static_cast<size_t>(want - 2)];
        k = tv.tensor.sizes[static_cast<size_t>(want - 1)];
      } else {
        m = numel;
      }
      if (m > 0 && k > 0 && numel / k * m > kMaxContractionWork / k) return nullptr;
      if (op == OpKind::kMatmul && src_.chance(1, 3)) {
        DType d = tv.tensor.dtype == DType::kBool ? DType::kFloat32 : tv.tensor.dtype;
        return call(name, {a, call("ones", {list({call("size", {a, i(-1)})}), dt(d)})});
      }
      return call(name, {a, call("transpose", {a, i(-1), i(-2)})});
    }
    // ordering and scanning along a dim (bool operands are cast first: argmax refuses them)
    case OpKind::kArgmax:
    case OpKind::kArgmin: {
      ExprPtr a = numeric(*t);
      // Sometimes a / a: NaN wherever a is 0, which the index of the extremum must follow (a NaN
      // is the extremum, the first one wins: PR #118358's rule).
      if (src_.chance(1, 4)) a = call("div", {a, a});
      if (src_.chance(1, 3)) return call(name, {a});
      std::vector<std::pair<std::string, ExprPtr>> kw;
      if (src_.chance(1, 3)) kw.emplace_back("keepdim", b(true));
      return call(name, {a, dim_lit(tv)}, kw);
    }
    case OpKind::kCumsum:
      return call(name, {v(t->name), dim_lit(tv)});
    case OpKind::kSort:
    case OpKind::kArgsort: {
      std::vector<std::pair<std::string, ExprPtr>> kw;
      if (src_.chance(1, 3)) kw.emplace_back("descending", b(true));
      return call(name, {v(t->name), dim_lit(tv)}, kw);
    }
    case OpKind::kTopk: {  // k within the dim's size: a literal, the size, or min(size, an int)
      int64_t d = 0;
      ExprPtr dim = dim_lit(tv, &d);
      int64_t n = rank(tv) == 0 ? 1 : tv.tensor.sizes[static_cast<size_t>(d)];
      ExprPtr size = rank(tv) == 0 ? i(1) : call("size", {v(t->name), i(d)});
      const Var* s = pick([](const HostValue& x) { return is_int(x) && x.i >= 0; });
      ExprPtr k = src_.chance(1, 3)        ? size
                  : s && src_.chance(1, 2) ? call("min", {size, v(s->name)})
                                           : i(src_.range(0, n));
      std::vector<std::pair<std::string, ExprPtr>> kw;
      if (src_.chance(1, 3)) kw.emplace_back("largest", b(false));
      return call(name, {numeric(*t), k, dim}, kw);
    }
    case OpKind::kHistc: {
      std::vector<std::pair<std::string, ExprPtr>> kw{{"bins", i(src_.range(1, 6))}};
      if (src_.chance(1, 2)) {
        kw.emplace_back("min", f(static_cast<double>(src_.range(-2, 0))));
        kw.emplace_back("max", f(static_cast<double>(src_.range(1, 3))));
      }
      return call(name, {call("to", {v(t->name), dt(DType::kFloat32)})}, kw);
    }
    case OpKind::kSearchsorted: {  // a running sum of |t| is sorted (NaN aside)
      ExprPtr a = numeric(*t);
      ExprPtr seq = call("cumsum", {call("abs", {call("reshape", {a, list({i(-1)})})}), i(0)});
      std::vector<std::pair<std::string, ExprPtr>> kw;
      if (src_.chance(1, 2)) kw.emplace_back("right", b(true));
      return call(name, {seq, a}, kw);
    }
    // views
    case OpKind::kView: {
      // Over backed sizes the trace decides a view as eager does (its guards read the same
      // numbers); over unbacked ones a layout eager views may not be provably viewable (a
      // slice clamped to Min(5, u0) under a stride of u0), and the trace refuses it as PyTorch
      // does: then the program is no longer valid by construction.
      views_strided_ = unbacked_vars_.count(t->name) > 0;
      size_t form = src_.pick(rank(tv) >= 2 ? 4 : 3);
      std::vector<ExprPtr> shape = form == 0   ? std::vector<ExprPtr>{i(-1)}
                                   : form == 1 ? std::vector<ExprPtr>{i(-1), i(1)}
                                   : form == 2 ? std::vector<ExprPtr>{i(1), i(-1)}
                                               : std::vector<ExprPtr>{size_expr(), i(-1)};
      return call(name, {v(t->name), list(shape)});
    }
    case OpKind::kReshape:
      return call(name, {v(t->name), list({i(-1)})});
    case OpKind::kPermute: {
      std::vector<ExprPtr> dims;
      for (int64_t d = rank(tv); d-- > 0;) dims.push_back(i(d));
      return call(name, {v(t->name), list(dims)});
    }
    case OpKind::kTranspose:
      return call(name, {v(t->name), dim_lit(tv), dim_lit(tv)});
    case OpKind::kUnsqueeze:
      return call(name, {v(t->name), i(src_.range(0, rank(tv)))});
    case OpKind::kSqueeze: {
      int64_t d = 0;
      ExprPtr dim = dim_lit(tv, &d);
      squeezes_a_one_ = rank(tv) > 0 && tv.tensor.sizes[static_cast<size_t>(d)] == 1;
      return call(name, {v(t->name), dim});
    }
    case OpKind::kFlatten:
      return call(name, {v(t->name)});
    case OpKind::kSlice:
      return call(name,
                  {v(t->name), dim_lit(tv), int_expr(-3, 3), int_expr(-3, 8), i(src_.range(1, 2))});
    case OpKind::kSplitWithSizes: {  // [s, size - s] with s = min(size, an int or a literal)
      if (rank(tv) == 0) return nullptr;
      ExprPtr size = call("size", {v(t->name), i(0)});
      const Var* s = pick([](const HostValue& x) { return is_int(x) && x.i >= 0; });
      ExprPtr first =
          call("min", {size, s && src_.chance(2, 3) ? v(s->name) : i(src_.range(0, 3))});
      if (src_.chance(1, 4)) return call(name, {v(t->name), list({size})});
      return call(name, {v(t->name), list({first, infix("sub", size, first)})});
    }
    case OpKind::kTensorSplit: {  // at one or two indices: ints (maybe unbacked) or literals
      if (rank(tv) == 0) return nullptr;
      std::vector<ExprPtr> indices;
      for (int64_t k = src_.range(1, 2); k-- > 0;) {
        const Var* s = src_.chance(1, 2) ? pick(is_int) : nullptr;
        if (!s && src_.chance(1, 3)) {
          // A split point relative to the size, of either sign (-1 // n is -1, not 0): the
          // FloorDiv and Mod rules over a negative dividend meet a symbolic divisor.
          ExprPtr n = call("size", {v(t->name), i(0)});
          indices.push_back(
              call(src_.chance(1, 2) ? "floordiv" : "remainder", {i(src_.range(-3, 3)), n}));
          continue;
        }
        indices.push_back(s ? v(s->name) : int_expr(-2, 4));
      }
      if (src_.chance(1, 2)) return call(name, {v(t->name), list(indices)});
      return call(name, {v(t->name), list(indices), dim_lit(tv)});
    }
    case OpKind::kSelect:
      if (rank(tv) == 0 || tv.tensor.sizes[0] == 0) return nullptr;
      return call(name, {v(t->name), i(0), int_expr(-1, 0)});
    case OpKind::kNarrow:
      // A start of -1 counts from the end; from an unbacked value its sign is unknown to the
      // trace (narrow then slices to a fresh size equated with the length).
      if (rank(tv) == 0 || tv.tensor.sizes[0] == 0)
        return call(name, {v(t->name), i(0), i(0), i(0)});
      return call(name, {v(t->name), i(0), int_expr(-1, 0), i(1)});
    case OpKind::kExpand: {
      std::vector<ExprPtr> shape;
      shape.push_back(i(src_.range(1, 3)));
      for (int64_t d = 0; d < rank(tv); ++d) shape.push_back(i(-1));
      return call(name, {v(t->name), list(shape)});
    }
    // joins and gathers
    case OpKind::kCat:
    case OpKind::kStack: {
      const Var* o = pick([&](const HostValue& x) { return is_tensor(x) && rank(x) == rank(tv); });
      std::vector<ExprPtr> items{v(t->name), v(o ? o->name : t->name)};
      return call(name, {list(items), i(0)});
    }
    case OpKind::kFlip: {
      std::vector<ExprPtr> dims;
      int64_t first = 0;
      if (src_.chance(3, 4)) dims.push_back(dim_lit(tv, &first));
      if (rank(tv) >= 2 && src_.chance(1, 3)) dims.push_back(i((first + 1) % rank(tv)));
      return call(name, {v(t->name), list(dims)});
    }
    // gathers: indices reduced modulo the gathered size (a floor remainder, so never negative;
    // a size of 0 is a zero division eager refuses, and the generator drops the statement)
    case OpKind::kGather: {
      int64_t d = 0;
      ExprPtr dim = dim_lit(tv, &d);
      ExprPtr index = call("remainder", {call("to", {v(t->name), dt(DType::kInt64)}),
                                         call("size", {v(t->name), i(d)})});
      return call(name, {v(t->name), dim, index});
    }
    case OpKind::kEmbedding: {
      ExprPtr weight = v(t->name);
      if (rank(tv) != 2) weight = call("reshape", {weight, list({i(-1), i(1)})});
      const Var* idx = int_vector();
      ExprPtr indices = idx ? v(idx->name) : call("arange", {i(src_.range(0, 4))});
      return call(name, {call("remainder", {indices, call("size", {weight, i(0)})}), weight});
    }
    case OpKind::kRoll:
      if (rank(tv) == 0) return nullptr;
      return call(name, {v(t->name), int_expr(-3, 5), dim_lit(tv)});
    // copies: small non-negative repeats (an int of at most 2 keeps sizes bounded), pads of
    // -1..2 (a crop only where the dim has room)
    case OpKind::kRepeat:
    case OpKind::kTile: {
      std::vector<ExprPtr> reps;
      size_t count = static_cast<size_t>(rank(tv)) + (src_.chance(1, 3) ? 1 : 0);
      if (op == OpKind::kTile && count > 0 && src_.chance(1, 3)) --count;
      for (size_t d = 0; d < count; ++d) {
        const Var* s = pick([](const HostValue& x) { return is_int(x) && x.i >= 0 && x.i <= 2; });
        reps.push_back(s && src_.chance(1, 3) ? v(s->name) : i(src_.range(0, 2)));
      }
      if (op == OpKind::kRepeat && reps.empty()) reps.push_back(i(2));
      return call(name, {v(t->name), list(reps)});
    }
    case OpKind::kPad: {
      if (rank(tv) == 0) return nullptr;
      std::vector<ExprPtr> pads;
      size_t dims = rank(tv) >= 2 && src_.chance(1, 3) ? 2 : 1;
      for (size_t p = 0; p < dims; ++p) {
        int64_t size = tv.tensor.sizes[tv.tensor.sizes.size() - 1 - p];
        for (int side = 0; side < 2; ++side) pads.push_back(i(src_.range(size >= 2 ? -1 : 0, 2)));
      }
      return call(name, {v(t->name), list(pads), f(0.5 * static_cast<double>(src_.range(-2, 2)))});
    }
    case OpKind::kScatterAdd: {  // index: t's own values modulo the size of the dim
      int64_t d = 0;
      ExprPtr dim = dim_lit(tv, &d);
      ExprPtr a = numeric(*t);
      ExprPtr index =
          call("remainder", {call("to", {v(t->name), dt(DType::kInt64)}), call("size", {a, i(d)})});
      return call(name, {a, dim, index, a});
    }
    case OpKind::kIndexAdd: {  // the source: the rows the index selects
      const Var* idx = int_vector();
      if (!idx || rank(tv) == 0) return nullptr;
      ExprPtr a = numeric(*t);
      ExprPtr index = call("remainder", {v(idx->name), call("size", {a, i(0)})});
      return call(name, {a, i(0), index, call("index_select", {a, i(0), index})});
    }
    case OpKind::kIndexSelect: {
      const Var* idx = int_vector();
      if (!idx) return nullptr;
      int64_t n = std::max<int64_t>(1, rank(tv) ? tv.tensor.sizes[0] : 1);
      return call(name, {v(t->name), i(0), call("remainder", {v(idx->name), i(n)})});
    }
    // data-dependent
    case OpKind::kNonzero:
      return call(name, {v(t->name)});
    // mask_for may append a statement (and so move vars_): read t's name first.
    case OpKind::kIndex:
    case OpKind::kMaskedSelect: {
      std::string tensor = t->name;
      ExprPtr mask = op == OpKind::kIndex ? mask_for(*t, "gt", 0) : mask_for(*t, "ne", 1);
      return call(name, {v(tensor), mask});
    }
    case OpKind::kUnique:
      return call(name, {v(t->name)},
                  src_.chance(1, 2)
                      ? std::vector<std::pair<std::string, ExprPtr>>{{"return_counts", b(true)}}
                      : std::vector<std::pair<std::string, ExprPtr>>{});
    case OpKind::kUniqueConsecutive:
      return call(name, {v(t->name)},
                  src_.chance(1, 2)
                      ? std::vector<std::pair<std::string, ExprPtr>>{{"return_counts", b(true)}}
                      : std::vector<std::pair<std::string, ExprPtr>>{});
    case OpKind::kArgwhere:
      return call(name, {v(t->name)});
    case OpKind::kUniqueDim: {  // f32 as i64: PyTorch leaves the order of rows holding NaN open
      if (rank(tv) == 0) return nullptr;
      ExprPtr a = tv.tensor.dtype == DType::kFloat32 ? call("to", {v(t->name), dt(DType::kInt64)})
                                                     : v(t->name);
      if (src_.chance(1, 2)) return call(name, {a, dim_lit(tv), b(true)});
      return call(name, {a, dim_lit(tv)});
    }
    case OpKind::kBincount: {  // non-negative by a floor remainder; weights of the same length
      const Var* idx = int_vector();
      ExprPtr flat =
          idx ? v(idx->name)
              : call("to", {call("reshape", {v(t->name), list({i(-1)})}), dt(DType::kInt64)});
      ExprPtr a = call("remainder", {flat, i(src_.range(1, 5))});
      std::vector<std::pair<std::string, ExprPtr>> kw;
      if (src_.chance(1, 3)) kw.emplace_back("minlength", i(src_.range(0, 4)));
      if (src_.chance(1, 3)) return call(name, {a, call("to", {a, dt(DType::kFloat32)})}, kw);
      return call(name, {a}, kw);
    }
    case OpKind::kOneHot: {  // classes in [0, c) by a floor remainder; c a literal or a size
      // num_classes is an int parameter: a backed size is specialized (a guard), an unbacked
      // one is a data-dependent guard, as in Dynamo: only backed sizes keep it valid.
      int64_t c = src_.range(1, 4);
      ExprPtr a = call("remainder", {call("to", {v(t->name), dt(DType::kInt64)}), i(c)});
      if (rank(tv) > 0 && tv.tensor.sizes[0] > 0 && !unbacked_vars_.count(t->name) &&
          src_.chance(1, 3)) {
        ExprPtr size = call("size", {v(t->name), i(0)});
        a = call("remainder", {call("to", {v(t->name), dt(DType::kInt64)}), size});
        return call(name, {a, size});
      }
      return call(name, {a, i(c)});
    }
    case OpKind::kItem: {
      // An int (sum of ints, a count), a float (sum of floats) or a bool (any/all: a SymBool
      // bound through its int indicator).
      static const char* const kReducers[] = {"sum", "count_nonzero", "any", "all"};
      const char* reducer = kReducers[src_.pick(4)];
      ExprPtr operand = v(t->name);
      if (std::string(reducer) == "all") operand = call("ge", {v(t->name), i(src_.range(-1, 0))});
      return call(name, {call(reducer, {operand})});
    }
    case OpKind::kTolist:  // a 1-D tensor of static length 2
      return call(
          name, {call("stack", {list({call("count_nonzero", {v(t->name)}),
                                      call("count_nonzero", {call("gt", {v(t->name), i(0)})})})})});
    case OpKind::kRepeatInterleave: {
      const Var* r = int_vector();
      if (!r) return nullptr;
      // Repair, not reject: repeats in [0, 2] keep the output within twice the input's length
      // (abs alone lets chains of repeat_interleave grow tensors to millions of elements).
      ExprPtr repeats = call("remainder", {call("abs", {v(r->name)}), i(3)});
      // Sometimes the caller's count (PyTorch's output_size, which saves the sync): item of
      // the repeats' sum, an unbacked int the output size then is.
      if (src_.chance(1, 3)) {
        return call(name, {repeats}, {{"output_size", call("item", {call("sum", {repeats})})}});
      }
      return call(name, {repeats});
    }
    // scalars
    case OpKind::kSize:
      return size_expr();
    case OpKind::kStride:
      return call(name, {v(t->name), dim_lit(tv)});
    case OpKind::kNumel:
      return call(name, {v(t->name)});
    case OpKind::kMin:
    case OpKind::kMax: {
      const Var* s = pick(is_int);
      ExprPtr a = s ? v(s->name) : size_expr();
      return op == OpKind::kMin ? call(name, {a, call("numel", {v(t->name)})})
                                : call(name, {a, i(src_.range(0, 2))});
    }
    case OpKind::kAddInplace:  // two statements: see try_mutation
    case OpKind::kIndexPutInplace:
      return nullptr;
  }
  return nullptr;
}

// ones([n]) + t for a 1-D t: n (0 or 1, just checked as a size) is a broadcast size. A backed n
// is specialized to its value; an unbacked one is assumed not 1 by the trace (the compiled
// program then raises where eager broadcasts). Eager drops it when 0 cannot broadcast.
void Generator::broadcast_by(const Var& n) {
  const Var* t = pick([](const HostValue& x) { return is_tensor(x) && rank(x) == 1; });
  if (!t) return;
  std::string name = "v" + std::to_string(line_);
  // Broadcasting by a size of 1 is what the trace assumes away for an unbacked one (the
  // size-oblivious rule): the program may then be rejected rightly.
  if (accept(program::ProgramBuilder::assign_stmt(
                 name, call("add", {call("ones", {list({v(n.name)})}), v(t->name)})),
             name)) {
    size_oblivious_squeeze_ = size_oblivious_squeeze_ || n.value.i == 1;
  }
}

}  // namespace detail
}  // namespace sf::fuzz
