//===- WhenFacts.cpp - What a variant's `when` tells its body -------------===//

#include "frontend/WhenFacts.h"

#include <algorithm>
#include <numeric>

namespace megac::fe {
namespace {

// `P % K` with P an integer kernel parameter and K a positive literal:
// P's index and K.
bool remainderOfParam(const Expr &e, int &param, int64_t &divisor) {
  auto *rem = dyn_cast<BinaryExpr>(&e);
  if (!rem || rem->op != BinaryOp::Rem)
    return false;
  auto *name = dyn_cast<NameExpr>(rem->lhs.get());
  auto *lit = dyn_cast<IntLitExpr>(rem->rhs.get());
  if (!name || !lit || !name->decl || name->decl->kind != VarDecl::Kind::KernelParam ||
      lit->value == 0 || lit->value > uint64_t(INT64_MAX))
    return false;
  param = name->decl->paramIndex;
  divisor = int64_t(lit->value);
  return param >= 0;
}

bool isZero(const Expr &e) {
  auto *lit = dyn_cast<IntLitExpr>(&e);
  return lit && lit->value == 0;
}

void collect(const Expr &e, std::map<int, int64_t> &out) {
  auto *bin = dyn_cast<BinaryExpr>(&e);
  if (!bin)
    return;
  if (bin->op == BinaryOp::LogicalAnd) {
    collect(*bin->lhs, out);
    collect(*bin->rhs, out);
    return;
  }
  if (bin->op != BinaryOp::Eq)
    return;
  int param = -1;
  int64_t divisor = 0;
  if ((isZero(*bin->rhs) && remainderOfParam(*bin->lhs, param, divisor)) ||
      (isZero(*bin->lhs) && remainderOfParam(*bin->rhs, param, divisor))) {
    auto it = out.find(param);
    out[param] = it == out.end() ? divisor : combineDivisors(it->second, divisor);
  }
}

} // namespace

std::map<int, int64_t> divisorsFromWhen(const Expr &when) {
  std::map<int, int64_t> out;
  collect(when, out);
  return out;
}

int64_t combineDivisors(int64_t a, int64_t b) {
  int64_t g = std::gcd(a, b);
  int64_t q = a / g;
  if (q > INT64_MAX / b)
    return std::max(a, b);
  return q * b;
}

} // namespace megac::fe
