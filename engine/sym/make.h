// The checked factories: the only way to build expressions. They fold locally (constants,
// identities, sum-of-products expansion, canonical relations) and never consult ranges.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "engine/sym/expr.h"

namespace sf::sym {

ExprRef integer(int64_t v);
ExprRef real(double v);
ExprRef boolean(bool v);
ExprRef true_expr();
ExprRef false_expr();
ExprRef symbol(SymKind kind, int64_t index);

ExprRef add(const ExprRef& a, const ExprRef& b);
ExprRef add(const std::vector<ExprRef>& terms);
ExprRef sub(const ExprRef& a, const ExprRef& b);
ExprRef neg(const ExprRef& a);
ExprRef mul(const ExprRef& a, const ExprRef& b);
ExprRef mul(const std::vector<ExprRef>& factors);
ExprRef pow(const ExprRef& base, int64_t exp);  // exp >= 0
ExprRef floordiv(const ExprRef& a, const ExprRef& b);
ExprRef mod(const ExprRef& a, const ExprRef& b);
ExprRef clean_div(const ExprRef& a, const ExprRef& b);
ExprRef max(const ExprRef& a, const ExprRef& b);
ExprRef max(const std::vector<ExprRef>& args);
ExprRef min(const ExprRef& a, const ExprRef& b);
ExprRef min(const std::vector<ExprRef>& args);
ExprRef where(const ExprRef& cond, const ExprRef& then_value, const ExprRef& else_value);
ExprRef to_float(const ExprRef& a);
ExprRef trunc_to_int(const ExprRef& a);
ExprRef true_div(const ExprRef& a, const ExprRef& b);

ExprRef eq(const ExprRef& a, const ExprRef& b);
ExprRef ne(const ExprRef& a, const ExprRef& b);
ExprRef lt(const ExprRef& a, const ExprRef& b);
ExprRef le(const ExprRef& a, const ExprRef& b);
ExprRef gt(const ExprRef& a, const ExprRef& b);
ExprRef ge(const ExprRef& a, const ExprRef& b);
ExprRef and_(const ExprRef& a, const ExprRef& b);
ExprRef and_(const std::vector<ExprRef>& args);
ExprRef or_(const ExprRef& a, const ExprRef& b);
ExprRef or_(const std::vector<ExprRef>& args);
ExprRef not_(const ExprRef& a);

// Piecewise((1, b), (0, True)): a SymBool cast to int without guarding.
ExprRef bool_to_int(const ExprRef& b);

// Rebuilds a node of e's kind from new arguments through the factories (mutators use this).
ExprRef rebuild(const ExprRef& e, const std::vector<ExprRef>& args);

// The canonical difference d of a relation rel(lhs, rhs): Le ⇔ d >= 0, Lt ⇔ d > 0,
// Eq ⇔ d == 0, Ne ⇔ d != 0 (d = rhs - lhs). e must be a relation.
ExprRef relation_difference(const ExprRef& rel);

// The factories keep their last results for small operands (a bounded memo, see make.cc), and
// with them the nodes involved. This drops those references, for leak checks.
void release_factory_memo();

// `e` as a * x + rest, with a a nonzero integer and the symbol x absent from rest: {a, rest};
// nullopt when e is not of that form (x in a product, a power, a call, or a float coefficient).
std::optional<std::pair<int64_t, ExprRef>> linear_in(const ExprRef& e, const ExprRef& x);

}  // namespace sf::sym
