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

void require_leading_mask(MetaContext& ctx, const char* op, const FakeTensor& a,
                          const FakeTensor& mask, UserErrorKind kind) {
  if (mask.dtype() != DType::kBool) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         std::string(op) + ": the mask must be bool, got " + mask.type_str());
  }
  if (mask.dim() > a.dim()) {
    fail(ctx, kind,
         std::string(op) + ": mask " + mask.type_str() + " does not match the leading dims of " +
             a.type_str());
  }
  for (int64_t d = 0; d < mask.dim(); ++d) {
    if (mask.sizes()[d].same_as(a.sizes()[d])) continue;
    require(ctx, sym_eq(mask.sizes()[d], a.sizes()[d]), kind,
            std::string(op) + ": the shape of the mask " + mask.type_str() + " at index " +
                std::to_string(d) + " does not match the shape of the indexed tensor " +
                a.type_str());
  }
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
  // By family: a new row in a family needs no edit here (each family's meta dispatches on its
  // ops); a new family fails to compile until it has its meta function.
  switch (program::schema(op).family) {
    case program::OpFamily::kCreation:
      return detail::meta_creation(ctx, op, args);
    case program::OpFamily::kPointwise:
      return detail::meta_pointwise(ctx, op, args);
    case program::OpFamily::kReduction:
      return detail::meta_reduction(ctx, op, args);
    case program::OpFamily::kView:
      return detail::meta_view(ctx, op, args);
    case program::OpFamily::kJoin:
      return detail::meta_join(ctx, op, args);
    case program::OpFamily::kDataDependent:
      return detail::meta_data_dependent(ctx, op, args);
    case program::OpFamily::kScalar:
      return detail::meta_scalar(ctx, op, args);
    case program::OpFamily::kMutation:
      return detail::meta_mutation(ctx, op, args);
  }
  SF_UNREACHABLE();
}

}  // namespace sf::fake
