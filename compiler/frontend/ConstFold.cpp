//===- ConstFold.cpp ------------------------------------------------------===//
#include "frontend/ConstFold.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace megac::fe {

static FoldResult ok(ConstValue v) { return {v, {}}; }
static FoldResult fail(std::string why) {
  return {std::nullopt, std::move(why)};
}

// The six comparisons, for integers and floats alike.
template <class T> static bool compare(BinaryOp op, T a, T b) {
  switch (op) {
  case BinaryOp::Eq:
    return a == b;
  case BinaryOp::Ne:
    return a != b;
  case BinaryOp::Lt:
    return a < b;
  case BinaryOp::Le:
    return a <= b;
  case BinaryOp::Gt:
    return a > b;
  default:
    return a >= b;
  }
}

static FoldResult foldInt(BinaryOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
  case BinaryOp::Add:
    if (__builtin_add_overflow(a, b, &r))
      return fail("integer overflow in constant expression");
    return ok(ConstValue::ofInt(r));
  case BinaryOp::Sub:
    if (__builtin_sub_overflow(a, b, &r))
      return fail("integer overflow in constant expression");
    return ok(ConstValue::ofInt(r));
  case BinaryOp::Mul:
    if (__builtin_mul_overflow(a, b, &r))
      return fail("integer overflow in constant expression");
    return ok(ConstValue::ofInt(r));
  case BinaryOp::Div:
  case BinaryOp::Rem:
    if (b == 0)
      return fail("division by zero in constant expression");
    if (a == INT64_MIN && b == -1)
      return fail("integer overflow in constant expression");
    return ok(ConstValue::ofInt(op == BinaryOp::Div ? a / b : a % b));
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    if (b < 0 || b > 63)
      return fail("shift amount " + std::to_string(b) +
                  " is out of range [0, 63]");
    if (op == BinaryOp::Shr)
      return ok(ConstValue::ofInt(a >> b));
    return ok(
        ConstValue::ofInt(static_cast<int64_t>(static_cast<uint64_t>(a) << b)));
  case BinaryOp::BitAnd:
    return ok(ConstValue::ofInt(a & b));
  case BinaryOp::BitOr:
    return ok(ConstValue::ofInt(a | b));
  case BinaryOp::BitXor:
    return ok(ConstValue::ofInt(a ^ b));
  case BinaryOp::Eq:
  case BinaryOp::Ne:
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
    return ok(ConstValue::ofBool(compare(op, a, b)));
  default:
    return fail(std::string("'") + binaryOpSpelling(op) +
                "' does not apply to integers");
  }
}

static FoldResult foldFloat(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::Add:
    return ok(ConstValue::ofFloat(a + b));
  case BinaryOp::Sub:
    return ok(ConstValue::ofFloat(a - b));
  case BinaryOp::Mul:
    return ok(ConstValue::ofFloat(a * b));
  case BinaryOp::Div:
    return ok(ConstValue::ofFloat(a / b));
  case BinaryOp::Rem:
    return ok(ConstValue::ofFloat(std::fmod(a, b)));
  case BinaryOp::Eq:
  case BinaryOp::Ne:
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
    return ok(ConstValue::ofBool(compare(op, a, b)));
  default:
    return fail(std::string("'") + binaryOpSpelling(op) +
                "' does not apply to floats");
  }
}

static FoldResult foldBool(BinaryOp op, bool a, bool b) {
  switch (op) {
  case BinaryOp::LogicalAnd:
  case BinaryOp::BitAnd:
    return ok(ConstValue::ofBool(a && b));
  case BinaryOp::LogicalOr:
  case BinaryOp::BitOr:
    return ok(ConstValue::ofBool(a || b));
  case BinaryOp::BitXor:
  case BinaryOp::Ne:
    return ok(ConstValue::ofBool(a != b));
  case BinaryOp::Eq:
    return ok(ConstValue::ofBool(a == b));
  default:
    return fail(std::string("'") + binaryOpSpelling(op) +
                "' does not apply to booleans");
  }
}

FoldResult foldBinary(BinaryOp op, const ConstValue &a, const ConstValue &b) {
  if (a.isBool() && b.isBool())
    return foldBool(op, a.b, b.b);
  if (a.isBool() || b.isBool())
    return fail("cannot mix booleans and numbers");
  if (a.isInt() && b.isInt())
    return foldInt(op, a.i, b.i);
  return foldFloat(op, a.asDouble(), b.asDouble());
}

FoldResult foldUnary(UnaryOp op, const ConstValue &a) {
  switch (op) {
  case UnaryOp::Neg:
    if (a.isFloat())
      return ok(ConstValue::ofFloat(-a.f));
    if (a.isInt() && a.i != INT64_MIN)
      return ok(ConstValue::ofInt(-a.i));
    return fail(a.isInt() ? "integer overflow in constant expression"
                          : "'-' does not apply to booleans");
  case UnaryOp::Not:
    if (a.isBool())
      return ok(ConstValue::ofBool(!a.b));
    return fail("'!' applies to booleans (i1)");
  case UnaryOp::BitNot:
    if (a.isInt())
      return ok(ConstValue::ofInt(~a.i));
    return fail("'~' applies to integers");
  }
  return fail("bad operator");
}

FoldResult foldCdiv(const ConstValue &a, const ConstValue &b) {
  if (!a.isInt() || !b.isInt())
    return fail("cdiv expects integers");
  if (b.i <= 0)
    return fail("cdiv by a non-positive constant");
  int64_t sum;
  if (__builtin_add_overflow(a.i, b.i - 1, &sum))
    return fail("integer overflow in constant expression");
  return ok(ConstValue::ofInt(sum / b.i));
}

std::optional<ConstValue> parseDefineValue(const std::string &text) {
  if (text == "true" || text == "false")
    return ConstValue::ofBool(text == "true");
  if (text.empty())
    return std::nullopt;
  std::string s;
  for (char c : text)
    if (c != '_')
      s += c;
  const char *begin = s.c_str();
  char *end = nullptr;
  errno = 0;
  long long i = std::strtoll(begin, &end, 0);
  if (*end == '\0' && errno == 0 && end != begin)
    return ConstValue::ofInt(i);
  double d = std::strtod(begin, &end);
  if (*end == '\0' && end != begin && std::isfinite(d))
    return ConstValue::ofFloat(d);
  return std::nullopt;
}

bool intFits(int64_t v, ScalarKind k) {
  switch (k) {
  case ScalarKind::I1:
    return v == 0 || v == 1;
  case ScalarKind::I8:
    return v >= INT8_MIN && v <= INT8_MAX;
  case ScalarKind::I16:
    return v >= INT16_MIN && v <= INT16_MAX;
  case ScalarKind::I32:
    return v >= INT32_MIN && v <= INT32_MAX;
  case ScalarKind::U8:
    return v >= 0 && v <= UINT8_MAX;
  case ScalarKind::U16:
    return v >= 0 && v <= UINT16_MAX;
  case ScalarKind::U32:
    return v >= 0 && v <= int64_t(UINT32_MAX);
  case ScalarKind::U64:
    return v >= 0;
  default:
    return true;
  }
}

} // namespace megac::fe
