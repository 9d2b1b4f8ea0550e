// Meta dispatch by op family, plus the helpers every family shares.
#include "engine/fake/meta/meta.h"

#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/op_cases.h"
#include "engine/sym/make.h"

namespace sf::fake {

namespace detail {

namespace {
// "line 3: select" + "select: index 5 ..." reads as "line 3: select: index 5 ...".
std::string located(const MetaContext& ctx, const std::string& msg) {
  size_t colon = ctx.where.rfind(": ");
  std::string op = colon == std::string::npos ? "" : ctx.where.substr(colon + 2);
  if (!op.empty() && msg.rfind(op + ": ", 0) == 0) return ctx.where + msg.substr(op.size());
  return ctx.where + ": " + msg;
}
}  // namespace

void fail(const MetaContext& ctx, UserErrorKind kind, const std::string& msg) {
  throw_user_error(kind, located(ctx, msg));
}

void require(MetaContext& ctx, const SymBool& cond, UserErrorKind kind, const std::string& msg) {
  if (auto c = cond.maybe_as_bool()) {
    if (!*c) fail(ctx, kind, msg);
    return;
  }
  try {
    // Tagged: an engine-made assumption (unbacked semantics), not a user check. If it fails at
    // run time while eager succeeds, the program is rejected rather than the engine blamed.
    ctx.env().check(cond, located(ctx, msg) + " " + std::string(kImplicitAssertTag));
  } catch (const UserError& e) {
    if (e.kind() != UserErrorKind::kCheckFailed && e.kind() != UserErrorKind::kValueRange) throw;
    fail(ctx, kind, msg);
  }
}

std::string shape_str(const std::vector<SymInt>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + sizes[i].str();
  return out + "]";
}

int64_t normalize_dim(const MetaContext& ctx, int64_t dim, int64_t rank, const char* what) {
  int64_t r = rank == 0 ? 1 : rank;  // like PyTorch, a scalar tensor accepts dim 0 / -1
  if (dim < -r || dim >= r) {
    fail(ctx, UserErrorKind::kShape,
         std::string(what) + " " + std::to_string(dim) + " out of range for a tensor of rank " +
             std::to_string(rank));
  }
  return dim < 0 ? dim + r : dim;
}

bool is_tensor(const Value& v) { return v.kind() == Value::Kind::kTensor; }
bool is_scalar(const Value& v) {
  return v.kind() == Value::Kind::kInt || v.kind() == Value::Kind::kFloat ||
         v.kind() == Value::Kind::kBool;
}

DType scalar_dtype(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kInt:
      return DType::kInt64;
    case Value::Kind::kFloat:
      return DType::kFloat32;
    case Value::Kind::kBool:
      return DType::kBool;
    case Value::Kind::kTensor:
    case Value::Kind::kTuple:
    case Value::Kind::kNone:
      break;
  }
  return fake_of(v).dtype();  // checks that v is a tensor
}

DType arithmetic_dtype(const Value& a, const Value& b) {
  std::vector<DType> tensors, scalars;
  for (const Value* v : {&a, &b}) (is_tensor(*v) ? tensors : scalars).push_back(scalar_dtype(*v));
  return program::result_type(tensors, scalars);
}

const FakeTensor& tensor_arg(const MetaContext& ctx, const MetaArg& arg, const char* name) {
  if (!is_tensor(arg.value)) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         std::string("argument '") + name + "' must be a tensor, got " + arg.value.str());
  }
  return fake_of(arg.value);
}

SymInt simplified(const MetaContext& ctx, const SymInt& s) {
  if (s.is_constant()) return s;
  return SymInt(ctx.env().simplify(s.expr()));
}

std::optional<bool> static_bool(const MetaContext& ctx, const SymBool& b) {
  if (auto c = b.maybe_as_bool()) return c;
  std::optional<ExprRef> st = ctx.env().maybe_evaluate_static(b.expr());
  if (!st) return std::nullopt;
  return (*st)->bool_value();
}

std::vector<SymInt> broadcast(MetaContext& ctx, const std::vector<SymInt>& a,
                              const std::vector<SymInt>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<SymInt> out(n);
  for (size_t i = 0; i < n; ++i) {
    bool has_a = i < a.size(), has_b = i < b.size();
    const SymInt& sa = has_a ? a[a.size() - 1 - i] : b[b.size() - 1 - i];
    const SymInt& sb = has_b ? b[b.size() - 1 - i] : sa;
    SymInt& o = out[n - 1 - i];
    if (!has_a || !has_b || sa.same_as(sb)) {
      o = has_a ? sa : sb;
    } else if (ctx.env().guard_or_false(sym_eq(sa, 1))) {
      o = sb;
    } else if (ctx.env().guard_or_false(sym_eq(sb, 1))) {
      o = sa;
    } else {
      size_t dim = n - 1 - i;
      require(ctx, sym_eq(sa, sb), UserErrorKind::kShape,
              "cannot broadcast dim " + std::to_string(dim) + ": " + sa.str() + " vs " + sb.str() +
                  " (shapes " + shape_str(a) + " and " + shape_str(b) + ")");
      o = sa;
    }
  }
  return out;
}

}  // namespace detail

Value run_meta(MetaContext& ctx, program::OpKind op, const std::vector<MetaArg>& args) {
  using program::OpKind;
  switch (op) {  // no default: a new op must be given a meta function here
    case OpKind::kZeros:
    case OpKind::kOnes:
    case OpKind::kFull:
    case OpKind::kArange:
      return detail::meta_creation(ctx, op, args);
#define SF_OP SF_ELEMENTWISE_BINARY_CASE
#include "engine/program/ops.def"
#define SF_OP SF_ELEMENTWISE_UNARY_CASE
#include "engine/program/ops.def"
    case OpKind::kRelu:
    case OpKind::kTo:
    case OpKind::kWhere:
      return detail::meta_pointwise(ctx, op, args);
    case OpKind::kSum:
    case OpKind::kAmax:
    case OpKind::kAmin:
    case OpKind::kAny:
    case OpKind::kAll:
    case OpKind::kCountNonzero:
      return detail::meta_reduction(ctx, op, args);
    case OpKind::kView:
    case OpKind::kReshape:
    case OpKind::kPermute:
    case OpKind::kTranspose:
    case OpKind::kUnsqueeze:
    case OpKind::kSqueeze:
    case OpKind::kExpand:
    case OpKind::kSlice:
    case OpKind::kNarrow:
    case OpKind::kSelect:
    case OpKind::kFlatten:
      return detail::meta_view(ctx, op, args);
    case OpKind::kCat:
    case OpKind::kStack:
    case OpKind::kIndexSelect:
      return detail::meta_join(ctx, op, args);
    case OpKind::kNonzero:
    case OpKind::kIndex:
    case OpKind::kMaskedSelect:
    case OpKind::kUnique:
    case OpKind::kItem:
    case OpKind::kTolist:
    case OpKind::kRepeatInterleave:
      return detail::meta_data_dependent(ctx, op, args);
    case OpKind::kSize:
    case OpKind::kStride:
    case OpKind::kNumel:
    case OpKind::kMin:
    case OpKind::kMax:
      return detail::meta_scalar(ctx, op, args);
    case OpKind::kAddInplace:
      return detail::meta_mutation(ctx, op, args);
  }
  SF_UNREACHABLE();
}

}  // namespace sf::fake
