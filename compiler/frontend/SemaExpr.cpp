//===- SemaExpr.cpp - Typing expressions ----------------------------------===//
//
// Literals and constants start untyped and adapt to the other operand;
// constant subtrees fold into a single literal. Operands are then made to
// agree on one element type and one shape, with BroadcastExpr nodes
// inserted where a side is smaller.
//
//===----------------------------------------------------------------------===//
#include "frontend/ConstFold.h"
#include "frontend/Diagnostics.h"
#include "frontend/Sema.h"

#include <algorithm>

namespace megac::fe {

void Sema::error(SourceRange r, std::string msg, std::string hint) {
  diags_.error(r, std::move(msg), std::move(hint));
}

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool Sema::checkTileShape(SourceRange r, const std::vector<int64_t> &shape) {
  if (shape.empty() || shape.size() > 3) {
    error(r, "tiles have 1 to 3 dims, got " + std::to_string(shape.size()));
    return false;
  }
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (!isPowerOfTwo(d)) {
      error(r, "tile dimension " + std::to_string(d) + " is not a power of two",
            "pad to the next power of two and mask");
      return false;
    }
    elements *= d; // d <= 2^62 and the product is checked each step
    if (elements > kMaxTileElements) {
      error(r, "tile " + shapeStr(shape) + " is too large (more than " +
                   std::to_string(kMaxTileElements) + " elements)");
      return false;
    }
  }
  return true;
}

ExprPtr Sema::makeLiteral(SourceRange r, const ConstValue &v, const Type &t) {
  ExprPtr lit;
  if (t.isValue() && isBool(t.elem.scalar))
    lit = std::make_unique<BoolLitExpr>(r, v.isBool() ? v.b : v.i != 0);
  else if (t.kind == Type::Kind::UntypedFloat ||
           (t.isValue() && !isInteger(t.elem.scalar)))
    lit = std::make_unique<FloatLitExpr>(r, v.asDouble());
  else
    lit = std::make_unique<IntLitExpr>(r, static_cast<uint64_t>(v.i));
  lit->type = t;
  if (t.kind == Type::Kind::UntypedFloat ||
      (t.isValue() && isFloat(t.elem.scalar)))
    lit->constValue = ConstValue::ofFloat(v.asDouble());
  else
    lit->constValue = v;
  return lit;
}

bool Sema::adapt(ExprPtr &e, ElementType target) {
  if (!e->type.isUntyped())
    return true;
  const ConstValue v = *e->constValue;
  std::string text = v.str();
  if (target.isPointer) {
    error(e->range, "the number " + text + " cannot be used as a pointer");
    return false;
  }
  ScalarKind k = target.scalar;
  Type t = Type::scalar(k);
  if (isBool(k)) {
    error(e->range, "the number " + text + " cannot be used as i1",
          "use true/false, or compare: x != 0");
    return false;
  }
  if (isStorageOnly(k)) {
    error(e->range,
          "a literal cannot be " + std::string(scalarKindName(k)) + " directly",
          std::string("write it as f32 and cast: (") + text + " as " +
              scalarKindName(k) + ")");
    return false;
  }
  if (isInteger(k)) {
    if (v.isFloat()) {
      error(e->range,
            "float literal " + text + " cannot be used as " + scalarKindName(k),
            "write an integer, or cast one side with 'as'");
      return false;
    }
    if (!intFits(v.i, k)) {
      error(e->range,
            "integer " + text + " does not fit in " + scalarKindName(k));
      return false;
    }
  }
  e = makeLiteral(e->range, v, t);
  return true;
}

void Sema::finalize(ExprPtr &e) {
  if (e->type.kind == Type::Kind::UntypedFloat)
    adapt(e, {ScalarKind::F32, false});
  else if (e->type.kind == Type::Kind::UntypedInt)
    adapt(e, {intFits(e->constValue->i, ScalarKind::I32) ? ScalarKind::I32
                                                         : ScalarKind::I64,
              false});
}

bool Sema::unifyElements(ExprPtr &a, ExprPtr &b, const std::string &what,
                         SourceRange where) {
  if (a->type.isUntyped() && b->type.isUntyped()) {
    if (a->type.kind == Type::Kind::UntypedFloat ||
        b->type.kind == Type::Kind::UntypedFloat)
      return adapt(a, {ScalarKind::F32, false}) &&
             adapt(b, {ScalarKind::F32, false});
    finalize(a);
    finalize(b);
    return unifyElements(a, b, what, where);
  }
  if (a->type.isUntyped())
    return adapt(a, b->type.elem);
  if (b->type.isUntyped())
    return adapt(b, a->type.elem);
  if (a->type.elem != b->type.elem) {
    error(where,
          "mismatched types in " + what + ": " + a->type.str() + " and " +
              b->type.str(),
          "cast one side with 'as', e.g. (x as " + b->type.elem.str() + ")");
    return false;
  }
  return true;
}

bool Sema::broadcastShapes(const std::vector<int64_t> &a,
                           const std::vector<int64_t> &b,
                           std::vector<int64_t> &out) const {
  // numpy rules: right-align, each pair equal or one of them 1. `out` may be
  // `a` (a running shape) and is left as it was on failure: callers name it
  // in their message.
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    shape[i] = da == 1 ? db : da;
  }
  out = std::move(shape);
  return true;
}

void Sema::broadcastTo(ExprPtr &e, const std::vector<int64_t> &shape) {
  if (e->type.shape == shape || shape.empty())
    return;
  Type to = e->type.withShape(shape);
  e = std::make_unique<BroadcastExpr>(std::move(e), to);
}

bool Sema::requireArithmetic(const ExprPtr &e, const std::string &what) {
  const Type &t = e->type;
  if (t.isUntyped())
    return true;
  if (t.isPointer() || isBool(t.elem.scalar)) {
    error(e->range, what + " expects numbers, got " + t.str());
    return false;
  }
  if (isStorageOnly(t.elem.scalar)) {
    error(e->range,
          std::string("arithmetic on ") + scalarKindName(t.elem.scalar) +
              " is not supported (got " + t.str() + ")",
          "cast to f32 first: (x as f32)");
    return false;
  }
  return true;
}

std::optional<int64_t> Sema::constInt(ExprPtr &e, const char *what) {
  checkExpr(e);
  if (e->type.isInvalid())
    return std::nullopt;
  if (!e->constValue || !e->constValue->isInt() || !e->type.isIntLike()) {
    error(e->range, std::string(what) + " must be a compile-time integer",
          "use a literal or a 'const'");
    return std::nullopt;
  }
  int64_t v = e->constValue->i;
  finalize(e);
  return v;
}

bool Sema::resolveTypeRef(TypeRef &t) {
  if (t.tileDims.empty()) {
    t.resolved = Type::value(t.elem, {});
    return true;
  }
  std::vector<int64_t> shape;
  for (ExprPtr &d : t.tileDims) {
    std::optional<int64_t> v = constInt(d, "a tile dimension");
    if (!v)
      return false;
    shape.push_back(*v);
  }
  if (!checkTileShape(t.range, shape))
    return false;
  t.resolved = Type::value(t.elem, shape);
  return true;
}

//===----------------------------------------------------------------------===//
// Expression kinds
//===----------------------------------------------------------------------===//

void Sema::checkExpr(ExprPtr &e) {
  switch (e->kind) {
  case ExprKind::IntLit: {
    uint64_t v = cast<IntLitExpr>(e.get())->value;
    if (v > uint64_t(INT64_MAX)) {
      error(e->range, "integer literal is too large for i64",
            "the largest integer is 9223372036854775807");
      return;
    }
    e->type = Type::untypedInt();
    e->constValue = ConstValue::ofInt(static_cast<int64_t>(v));
    return;
  }
  case ExprKind::FloatLit:
    e->type = Type::untypedFloat();
    e->constValue = ConstValue::ofFloat(cast<FloatLitExpr>(e.get())->value);
    return;
  case ExprKind::BoolLit:
    e->type = Type::scalar(ScalarKind::I1);
    e->constValue = ConstValue::ofBool(cast<BoolLitExpr>(e.get())->value);
    return;
  case ExprKind::Name:
    return checkName(e);
  case ExprKind::Unary:
    return checkUnary(e);
  case ExprKind::Binary:
    return checkBinary(e);
  case ExprKind::Cast:
    return checkCast(*cast<CastExpr>(e.get()));
  case ExprKind::Call:
    return checkCall(e);
  case ExprKind::Index:
    return checkIndex(*cast<IndexExpr>(e.get()));
  case ExprKind::TypeArg:
    error(e->range, "a type is not a value here",
          "types are arguments only of zeros, full, cast and bitcast, or follow 'as'");
    return;
  case ExprKind::Broadcast:
  case ExprKind::InlinedCall:
    return; // made by sema, already typed
  }
}

void Sema::checkName(ExprPtr &e) {
  auto *n = cast<NameExpr>(e.get());
  const Symbol *sym = lookup(n->name);
  if (!sym) {
    reportUnknownName(n->range, n->name);
    return;
  }
  if (sym->var) {
    n->decl = sym->var;
    n->type = sym->var->type;
    return;
  }
  std::optional<ConstValue> v = sym->inlineConst;
  if (sym->constant) {
    if (badConstants_.count(sym->constant))
      return; // already reported
    v = sym->constant->value;
  }
  Type t = v->isBool()    ? Type::scalar(ScalarKind::I1)
           : v->isFloat() ? Type::untypedFloat()
                          : Type::untypedInt();
  e = makeLiteral(n->range, *v, t);
}

void Sema::checkUnary(ExprPtr &e) {
  auto *u = cast<UnaryExpr>(e.get());
  // -9223372036854775808: the literal alone would overflow i64.
  if (u->op == UnaryOp::Neg && isa<IntLitExpr>(u->operand.get()) &&
      cast<IntLitExpr>(u->operand.get())->value == uint64_t(INT64_MAX) + 1) {
    e = makeLiteral(e->range, ConstValue::ofInt(INT64_MIN), Type::untypedInt());
    return;
  }
  checkExpr(u->operand);
  const Type &t = u->operand->type;
  if (t.isInvalid())
    return;
  std::string op = std::string("'") + unaryOpSpelling(u->op) + "'";
  if (t.isVoid()) {
    error(u->operand->range, "this call has no value");
    return;
  }
  // The operand's class first, so that a constant operand gets the message
  // a value would.
  switch (u->op) {
  case UnaryOp::Neg:
    if (!requireArithmetic(u->operand, op))
      return;
    break;
  case UnaryOp::Not:
    if (!t.isBoolLike()) {
      error(e->range, "'!' expects i1, got " + t.str(),
            "compare instead: x == 0");
      return;
    }
    break;
  case UnaryOp::BitNot:
    if (!t.isIntLike() && !t.isBoolLike()) {
      error(e->range, "'~' expects integers, got " + t.str());
      return;
    }
    break;
  }
  if (t.isUntyped() ||
      (t.isScalar() && u->operand->constValue && u->op == UnaryOp::Not)) {
    FoldResult r = foldUnary(u->op, *u->operand->constValue);
    if (!r.value) {
      error(e->range, r.error);
      return;
    }
    e = makeLiteral(e->range, *r.value,
                    r.value->isBool() ? Type::scalar(ScalarKind::I1) : t);
    return;
  }
  e->type = t;
}

/// Operators that need a particular element class.
static bool isLogical(BinaryOp op) {
  return op == BinaryOp::LogicalAnd || op == BinaryOp::LogicalOr;
}
static bool isBitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
         op == BinaryOp::BitXor;
}
static bool isShift(BinaryOp op) {
  return op == BinaryOp::Shl || op == BinaryOp::Shr;
}

bool Sema::checkOperandClass(const BinaryExpr &b, const Type &t, const std::string &op) {
  if (isLogical(b.op)) {
    if (t.isBoolLike())
      return true;
    error(b.opRange, op + " expects i1 operands, got " + t.str(), "compare first, e.g. x != 0");
    return false;
  }
  if (isBitwise(b.op) || isShift(b.op)) {
    if (t.isIntLike() || (t.isBoolLike() && isBitwise(b.op)))
      return true;
    error(b.opRange, op + " expects integers, got " + t.str(),
          b.op == BinaryOp::BitXor && t.isFloatLike()
              ? "'^' is exclusive or: for a power, multiply (x * x)"
              : "");
    return false;
  }
  if (t.isBoolLike() && (b.op == BinaryOp::Eq || b.op == BinaryOp::Ne))
    return true;
  return requireArithmetic(b.lhs, op);
}

void Sema::checkBinary(ExprPtr &e) {
  auto *b = cast<BinaryExpr>(e.get());
  checkExpr(b->lhs);
  checkExpr(b->rhs);
  const Type lt = b->lhs->type, rt = b->rhs->type;
  if (lt.isInvalid() || rt.isInvalid())
    return;
  std::string op = std::string("'") + binaryOpSpelling(b->op) + "'";
  for (ExprPtr *side : {&b->lhs, &b->rhs})
    if ((*side)->type.isVoid()) {
      error((*side)->range, "this call has no value");
      return;
    }

  // Constant folding of untyped operands and of boolean literals.
  bool bothConst = b->lhs->constValue && b->rhs->constValue;
  bool bothBoolScalars =
      lt.isScalar() && rt.isScalar() && lt.isBoolLike() && rt.isBoolLike();
  if (bothConst && ((lt.isUntyped() && rt.isUntyped()) || bothBoolScalars)) {
    Type joined = bothBoolScalars                         ? lt
                  : lt.isFloatLike() || rt.isFloatLike() ? Type::untypedFloat()
                                                          : Type::untypedInt();
    if (!checkOperandClass(*b, joined, op))
      return;
    FoldResult r = foldBinary(b->op, *b->lhs->constValue, *b->rhs->constValue);
    if (!r.value) {
      error(b->opRange, r.error);
      return;
    }
    Type t = r.value->isBool()    ? Type::scalar(ScalarKind::I1)
             : r.value->isFloat() ? Type::untypedFloat()
                                  : Type::untypedInt();
    e = makeLiteral(e->range, *r.value, t);
    return;
  }

  std::vector<int64_t> shape;
  if (!broadcastShapes(lt.isUntyped() ? std::vector<int64_t>{} : lt.shape,
                       rt.isUntyped() ? std::vector<int64_t>{} : rt.shape,
                       shape)) {
    error(b->opRange,
          "incompatible shapes in " + op + ": " + shapeStr(lt.shape) + " and " +
              shapeStr(rt.shape),
          "dims must be equal or 1; insert a dim with x[:, None]");
    return;
  }

  // Pointer arithmetic: ptr + int, int + ptr, ptr - int (in elements).
  if (lt.isPointer() || rt.isPointer()) {
    bool ok = (b->op == BinaryOp::Add && !(lt.isPointer() && rt.isPointer())) ||
              (b->op == BinaryOp::Sub && lt.isPointer() && !rt.isPointer());
    if (!ok) {
      error(b->opRange,
            "invalid pointer arithmetic: " + lt.str() + " " +
                binaryOpSpelling(b->op) + " " + rt.str(),
            "pointers support ptr + int and ptr - int (offsets in elements)");
      return;
    }
    if (rt.isPointer())
      std::swap(b->lhs, b->rhs);
    if (b->rhs->type.isUntyped())
      finalize(b->rhs);
    if (b->rhs->type.isInvalid())
      return;
    if (!b->rhs->type.isIntLike()) {
      error(b->rhs->range,
            "pointer offset must be an integer, got " + b->rhs->type.str());
      return;
    }
    broadcastTo(b->lhs, shape);
    broadcastTo(b->rhs, shape);
    e->type = b->lhs->type.withShape(shape);
    return;
  }

  if (!unifyElements(b->lhs, b->rhs, op, b->opRange))
    return;
  const Type &t = b->lhs->type; // both sides now share the element type
  if (!checkOperandClass(*b, t, op))
    return;
  if (isShift(b->op)) {
    // A constant amount at or past the width is undefined in LLVM (and was
    // folded to garbage): refused where it is written.
    unsigned width = bitWidth(t.elem.scalar);
    if (b->rhs->constValue && b->rhs->constValue->isInt() &&
        (b->rhs->constValue->i < 0 || b->rhs->constValue->i >= int64_t(width))) {
      error(b->rhs->range,
            "shift amount " + std::to_string(b->rhs->constValue->i) + " is not in [0, " +
                std::to_string(width - 1) + "] for " + t.elem.str(),
            "shift a wider type: (x as i64) " + std::string(binaryOpSpelling(b->op)) + " " +
                std::to_string(b->rhs->constValue->i));
      return;
    }
  } else if ((b->op == BinaryOp::Div || b->op == BinaryOp::Rem) && t.isIntLike() &&
             b->rhs->constValue && b->rhs->constValue->isInt() && b->rhs->constValue->i == 0) {
    // Undefined in LLVM (and folded to garbage): refused where it is written.
    error(b->rhs->range, "integer division by zero", "divide by a nonzero constant");
    return;
  }
  broadcastTo(b->lhs, shape);
  broadcastTo(b->rhs, shape);
  e->type = isComparison(b->op) ? Type::value({ScalarKind::I1, false}, shape)
                                : b->lhs->type;
}

void Sema::checkCast(CastExpr &c) {
  checkExpr(c.operand);
  if (!resolveTypeRef(c.target) || c.operand->type.isInvalid())
    return;
  if (c.operand->type.isVoid()) {
    error(c.operand->range, "this call has no value");
    return;
  }
  finalize(c.operand);
  if (c.operand->type.isInvalid())
    return;
  const Type &from = c.operand->type;
  ElementType to = c.target.elem;
  if (from.elem.isPointer != to.isPointer) {
    error(c.range, "cannot cast " + from.str() + " to " + to.str(),
          "casts convert numbers to numbers or pointers to pointers");
    return;
  }
  if (!checkCastSupported(c, from, to))
    return;
  bool fromFloat = !from.elem.isPointer && !isInteger(from.elem.scalar) &&
                   !isBool(from.elem.scalar);
  bool toInt = !to.isPointer && (isInteger(to.scalar) || isBool(to.scalar));
  if (c.rounding == Rounding::Default)
    c.rounding = fromFloat && toInt ? Rounding::RZ : Rounding::RNE;
  if (!c.saturate)
    c.saturate = !to.isPointer && isStorageOnly(to.scalar);
  c.type = from.withElem(to);
}

// Casts that code generation has no conversion for are refused where they
// are written (IR generation relies on it). Called before the rounding and
// saturation defaults are filled in, so they are what the user wrote.
bool Sema::checkCastSupported(const CastExpr &c, const Type &from,
                              const ElementType &to) {
  if (from.elem.isPointer) {
    if (from.elem.scalar == to.scalar)
      return true;
    error(c.range, "cannot cast " + from.str() + " to " + to.str(),
          "'as' keeps a pointer's element type: bitcast(p, " + to.str() +
              ") reads the same address as another type");
    return false;
  }
  ScalarKind fk = from.elem.scalar, tk = to.scalar;
  auto kindName = [](ScalarKind k) { return std::string(scalarKindName(k)); };
  if (fk == tk)
    return true;
  auto packedOrScale = [](ScalarKind k) {
    return k == ScalarKind::F4E2M1X2 || k == ScalarKind::E8M0;
  };
  auto fp8 = [](ScalarKind k) {
    return k == ScalarKind::F8E4M3 || k == ScalarKind::F8E5M2;
  };
  if (packedOrScale(fk) || packedOrScale(tk)) {
    error(c.range,
          "casts to or from " + kindName(packedOrScale(tk) ? tk : fk) +
              " are not supported",
          "use quantize/dequantize (or bitcast for raw bits)");
    return false;
  }
  bool fFloat = isFloat(fk), tFloat = isFloat(tk);
  if (fp8(tk)) {
    if (!fFloat) {
      error(c.range, "convert integers to f32 before casting to " + kindName(tk),
            "(x as f32) as " + kindName(tk));
      return false;
    }
    if (fk == ScalarKind::F64) {
      // The FP8 conversions take f32, f16 or bf16; through f32 a value
      // rounds twice, which may differ from one rounding: say so.
      error(c.range, "cast f64 to f32 before casting to " + kindName(tk),
            "(x as f32) as " + kindName(tk) + " (rounding twice)");
      return false;
    }
    if (c.rounding != Rounding::Default && c.rounding != Rounding::RNE) {
      error(c.range, "only rne rounding exists for " + kindName(tk),
            "drop the rounding mode");
      return false;
    }
    if (c.saturate && !*c.saturate) {
      error(c.range,
            "conversions to " + kindName(tk) +
                " always saturate to the finite range",
            "drop 'saturate = false'");
      return false;
    }
    return true;
  }
  if (fp8(fk)) {
    if (tFloat)
      return true;
    error(c.range, "cast " + kindName(fk) + " to f32 first",
          "(x as f32) as " + kindName(tk));
    return false;
  }
  // Conversions round to nearest even (float results) or toward zero (float
  // to int); other explicit modes are refused rather than ignored.
  Rounding natural = fFloat && !tFloat ? Rounding::RZ : Rounding::RNE;
  bool exact = (!fFloat && !tFloat) ||
               (fFloat && tFloat && bitWidth(tk) >= bitWidth(fk));
  if (!exact && c.rounding != Rounding::Default && c.rounding != natural) {
    error(c.range,
          "rounding '" + std::string(roundingName(c.rounding)) + "' is not supported from " +
              kindName(fk) + " to " + kindName(tk),
          std::string("this conversion rounds ") +
              (natural == Rounding::RZ ? "toward zero (rz)" : "to nearest even (rne)"));
    return false;
  }
  return true;
}

void Sema::checkIndex(IndexExpr &x) {
  checkExpr(x.base);
  const Type &t = x.base->type;
  if (t.isInvalid())
    return;
  finalize(x.base);
  if (!x.base->type.isValue()) {
    error(x.base->range, "cannot index " + x.base->type.str());
    return;
  }
  size_t kept = 0;
  std::vector<int64_t> shape;
  for (bool newDim : x.isNewDim) {
    if (newDim) {
      shape.push_back(1);
    } else if (kept < x.base->type.rank()) {
      shape.push_back(x.base->type.shape[kept++]);
    } else {
      ++kept;
    }
  }
  if (kept != x.base->type.rank()) {
    error(x.range,
          "index has " + std::to_string(kept) + " ':' but the value has " +
              std::to_string(x.base->type.rank()) + " dims (" +
              x.base->type.str() + ")",
          "write one ':' per existing dim and None for each new dim");
    return;
  }
  if (!checkTileShape(x.range, shape))
    return;
  x.type = x.base->type.withShape(shape);
}

} // namespace megac::fe
