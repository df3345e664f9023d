// f32 division: @fast_math's approximate one, IEEE div.rn a value,
// @tile_division's fast path under one check for a tile, and an FP8
// quantization's quotient by a shared scale (docs/language.md, docs/dialect.md).
#include "IROps.h"
#include "KernelLowering.h"

#include "Tile/Math/ExactQuotient.h"
#include "Tile/Quant/Fp8Quotient.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

namespace megac::lowering {

// A float constant (a scalar or a splat), if c is one.
static FloatAttr constantFloatAttr(Value c) {
  if (auto splat = c.getDefiningOp<SplatOp>())
    c = splat.getOperand();
  auto k = c.getDefiningOp<arith::ConstantOp>();
  if (!k)
    return {};
  Attribute value = k.getValue();
  if (auto dense = dyn_cast<SplatElementsAttr>(value))
    value = dense.getSplatValue<Attribute>();
  return dyn_cast<FloatAttr>(value);
}

static std::optional<double> constantFloat(Value c) {
  if (FloatAttr f = constantFloatAttr(c))
    return f.getValueAsDouble();
  return std::nullopt;
}

static bool isOne(Value c) { return constantFloat(c) == 1.0; }

// True when v is at least 1 or NaN: `c + exp(..)` with a constant c >= 1
// (silu's and sigmoid's 1 + exp(-x)), or such a constant.
static bool atLeastOneOrNaN(Value v) {
  auto constantAtLeastOne = [](Value c) {
    std::optional<double> f = constantFloat(c);
    return f && *f >= 1.0;
  };
  if (constantAtLeastOne(v))
    return true;
  auto add = v.getDefiningOp<arith::AddFOp>();
  return add && ((constantAtLeastOne(add.getLhs()) && add.getRhs().getDefiningOp<math::ExpOp>()) ||
                 (constantAtLeastOne(add.getRhs()) && add.getLhs().getDefiningOp<math::ExpOp>()));
}

// The reciprocal of a constant f32 or f64 divisor that has an exact, normal
// one (APFloat::getExactInverse: a power of two, itself normal): x / c and
// x * (1 / c) are then the same real number for every x, so they round to
// the same value - zeros, infinities, NaN and subnormal results included.
static FloatAttr exactReciprocal(Value c) {
  FloatAttr f = constantFloatAttr(c);
  if (!f || !(f.getType().isF32() || f.getType().isF64()))
    return {};
  APFloat inverse(0.0);
  if (!f.getValue().getExactInverse(&inverse))
    return {};
  return FloatAttr::get(f.getType(), inverse);
}

// A float division: by a power of two, one multiply by its reciprocal
// (exact; gdn_norm_gate's mean of squares, `sum / 128.0`, was a division on
// its one-CTA critical path); else, for f32, by the function's division
// attribute or the quotient's kind; other types divide as arith does.
LogicalResult KernelLowering::lowerDivide(arith::DivFOp op) {
  if (FloatAttr reciprocal = exactReciprocal(op.getRhs())) {
    Value factor = constant(reciprocal);
    Regs out;
    for (int64_t i = 0, n = numRegsOf(op.getLhs()); i < n; ++i)
      out.push_back(arith::MulFOp::create(b, loc, reg(op.getLhs(), i), factor));
    values[op] = out;
    return success();
  }
  if (!getElementTypeOrSelf(op.getType()).isF32())
    return lowerElementwise(op);
  if (func->hasAttr(tile::attr::kFastMath) || func->hasAttr(tile::attr::kFastDivision))
    return lowerFastDivide(op);
  if (op->hasAttr(tile::attr::kFp8Quotient))
    return lowerFp8Quotient(op);
  return lowerIeeeDivide(op);
}

// @fast_math f32 division: __nv_fast_fdividef (div.approx.f32, about 2 ulp;
// no slow path for zero or denormal dividends; 0 for divisors beyond 2^126).
// @fast_division: div.full.f32, within 2 ulp over the full range (it scales
// the operands first), still without a slow path: a kernel that keeps its
// other math exact gets a bound on the division's error for any operands.
// FP8 quotients by a shared scale too: their exact path (a reciprocal, a range
// check and a fallback to div.rn) measured slower in gdn_norm_gate_fp8
// (results/tuning_fast_division_36be68f.md).
// A @fast_math divisor known to be at least 1 or NaN (silu's and sigmoid's
// 1 + exp(-x)) is x * rcp.approx.ftz(d): div.approx.f32 is that product
// too, behind a check that scales the operands of a divisor below 2^-126,
// which such a divisor never is, so the bits are the same for every x and d
// and the check's three instructions a value go (gdn_norm_gate: 8 a thread,
// M = 1 0.98 -> 0.99 of Triton). One value a thread keeps div.approx: three
// instructions a thread gain nothing measurable, and gdn_core's one sigmoid
// a thread measured 0.7% slower at B = 128 with the reciprocal
// (results/tuning_fast_logistic_325e6e6.md).
LogicalResult KernelLowering::lowerFastDivide(arith::DivFOp op) {
  Type f32 = b.getF32Type();
  bool fastMath = func->hasAttr(tile::attr::kFastMath);
  int64_t n = quotientRegs(op);
  bool normalDivisor = fastMath && n >= 2 && atLeastOneOrNaN(op.getRhs());
  if (fastMath && !normalDivisor)
    declareLibdevice("__nv_fast_fdividef", f32, 2);
  auto divide = [&](ValueRange operands) -> Value {
    if (normalDivisor)
      return arith::MulFOp::create(b, loc, operands[0], nvvm::rcpApprox(b, loc, operands[1]));
    if (fastMath)
      return LLVM::CallOp::create(b, loc, TypeRange{f32},
                                  FlatSymbolRefAttr::get(ctx, "__nv_fast_fdividef"), operands)
          .getResult();
    return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr("llvm.nvvm.div.full"),
                                         operands)
        .getResult(0);
  };
  Regs out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(divide(ValueRange{reg(op.getLhs(), i), reg(op.getRhs(), i)}));
  values[op] = out;
  return success();
}

// An FP8 quantization's x / s (tile-expand-fp8 marks it): when the tile's
// divisors are few (a per-tensor or per-group scale, one register reused),
// one reciprocal per distinct divisor (ieee::refinedReciprocal: rcp.rn's fast
// path, RN(1 / s) in the range checked; rcp.rn's own check and slow-path
// branch would repeat that check) and every quotient is
// Tile/Quant/Fp8Quotient.h's five instructions. The path is taken only when
// every divisor is in the range where that rounds to the same FP8 bytes as
// IEEE division (one branch for the tile); otherwise, or when nearly every
// element has its own divisor, each element takes div.rn as before.
LogicalResult KernelLowering::lowerFp8Quotient(arith::DivFOp op) {
  int64_t n = quotientRegs(op);
  llvm::MapVector<Value, Value> reciprocals; // divisor -> RN(1 / divisor)
  for (int64_t i = 0; i < n; ++i)
    reciprocals.insert({reg(op.getRhs(), i), Value()});
  if (int64_t(reciprocals.size()) * 2 > n)
    return lowerIeeeDivide(op);
  IRInverseOps ops{b, loc};
  Value inRange;
  for (auto &[s, y] : reciprocals) {
    y = ieee::refinedReciprocal(ops, s);
    Value ok = inClosedRange(s, quant::kMinDivisor, quant::kMaxDivisor);
    inRange = inRange ? arith::AndIOp::create(b, loc, inRange, ok).getResult() : ok;
  }
  values[op] = fastOrExact(
      inRange, n,
      [&](int64_t i) {
        Value s = reg(op.getRhs(), i);
        return quant::fp8Quotient(ops, reg(op.getLhs(), i), s, reciprocals.lookup(s));
      },
      [&](int64_t i) {
        return arith::DivFOp::create(b, loc, reg(op.getLhs(), i), reg(op.getRhs(), i)).getResult();
      });
  return success();
}

// An IEEE f32 division: silu's and sigmoid's under one check of their
// argument, others under one check for the tile with @tile_division, else
// div.rn.f32 a value.
LogicalResult KernelLowering::lowerIeeeDivide(arith::DivFOp op) {
  if (std::optional<LogisticQuotient> logistic = matchLogisticQuotient(op))
    return lowerLogisticQuotient(op, *logistic);
  return func->hasAttr(tile::attr::kTileDivision) ? lowerTileDivide(op) : lowerElementwise(op);
}

// silu(x) = x / (1 + exp(-x)) and sigmoid(x) = 1 / (1 + exp(-x)), as IRGen
// writes them: the argument x and which of the two.
std::optional<KernelLowering::LogisticQuotient>
KernelLowering::matchLogisticQuotient(arith::DivFOp op) {
  auto add = op.getRhs().getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value e = isOne(add.getLhs()) ? add.getRhs() : isOne(add.getRhs()) ? add.getLhs() : Value();
  auto exp = e ? e.getDefiningOp<math::ExpOp>() : nullptr;
  auto neg = exp ? exp.getOperand().getDefiningOp<arith::NegFOp>() : nullptr;
  if (!neg)
    return std::nullopt;
  Value x = neg.getOperand();
  if (op.getLhs() == x)
    return LogisticQuotient{x, /*silu=*/true};
  if (isOne(op.getLhs()))
    return LogisticQuotient{x, /*silu=*/false};
  return std::nullopt;
}

// silu's and sigmoid's divisions of several values a thread: exactQuotient
// for all of them when every argument x is in range - |x| <= 87 for silu,
// x >= -87 for sigmoid (ExactQuotient.h, kLogisticBound): one max or min a
// value, one comparison, one branch - and otherwise silu's quotient for any x
// (ieee::siluQuotientAnywhere: no subroutine call, so no registers held for
// one) or sigmoid's div.rn (NaN fails the comparison). div.rn's own check
// and branch a value cost shared_act_quant about 4 of its 30 instructions a
// value at the H200's issue limit (results/tuning_logistic_quotient_e15a60d.md).
// One value a thread keeps div.rn: its check is as cheap.
LogicalResult KernelLowering::lowerLogisticQuotient(arith::DivFOp op, LogisticQuotient form) {
  int64_t n = quotientRegs(op);
  if (n < 2)
    return lowerElementwise(op);
  IRInverseOps ops{b, loc};
  llvm::SetVector<Value> args; // each distinct register once
  for (int64_t i = 0; i < n; ++i)
    args.insert(reg(form.x, i));
  // silu: the largest |x| (NaN-propagating); sigmoid: the smallest x.
  Value bound;
  for (Value x : args) {
    if (!form.silu)
      bound = bound ? arith::MinimumFOp::create(b, loc, bound, x).getResult() : x;
    else if (Value magnitude = ops.abs(x); bound)
      bound = arith::MaximumFOp::create(b, loc, bound, magnitude);
    else
      bound = magnitude;
  }
  Value limit = ops.f32(form.silu ? ieee::kLogisticBound : -ieee::kLogisticBound);
  Value inRange = arith::CmpFOp::create(
      b, loc, form.silu ? arith::CmpFPredicate::OLE : arith::CmpFPredicate::OGE, bound, limit);
  values[op] = fastOrExact(
      inRange, n,
      [&](int64_t i) { return ieee::exactQuotient(ops, reg(op.getLhs(), i), reg(op.getRhs(), i)); },
      [&](int64_t i) {
        if (form.silu)
          return ieee::siluQuotientAnywhere(ops, reg(op.getLhs(), i), reg(op.getRhs(), i));
        return arith::DivFOp::create(b, loc, reg(op.getLhs(), i), reg(op.getRhs(), i)).getResult();
      });
  return success();
}

// `@tile_division`: an f32 division of several values a thread takes
// div.rn.f32's own fast path for all of them (Tile/Math/ExactQuotient.h)
// when every dividend and divisor is in the range where it is exact - one
// check, one branch - and div.rn for all of them otherwise. The check is a
// NaN-propagating min and max of the operands' magnitudes (a divisor known
// to be >= 1 needs only its max), computed from the operands before any
// quotient, so it keeps no extra value alive. Measured on the H200: faster
// than per-value div.rn on small, latency-bound grids, slower on large ones
// (results/tuning_saq_gng_7770c7c.md). One value a thread gains nothing.
LogicalResult KernelLowering::lowerTileDivide(arith::DivFOp op) {
  int64_t n = quotientRegs(op);
  if (n < 2)
    return lowerElementwise(op);
  IRInverseOps ops{b, loc};
  llvm::SetVector<Value> dividends, divisors; // each distinct register once
  for (int64_t i = 0; i < n; ++i) {
    dividends.insert(reg(op.getLhs(), i));
    divisors.insert(reg(op.getRhs(), i));
  }
  // The largest and (when `low`) the smallest of the values (magnitudes),
  // NaN if one is NaN.
  auto bounds = [&](ArrayRef<Value> vs, bool magnitude, bool low) {
    Value lo, hi;
    for (Value v : vs) {
      Value m = magnitude ? ops.abs(v) : v;
      if (low)
        lo = lo ? arith::MinimumFOp::create(b, loc, lo, m).getResult() : m;
      hi = hi ? arith::MaximumFOp::create(b, loc, hi, m).getResult() : m;
    }
    return std::pair(lo, hi);
  };
  auto cmp = [&](arith::CmpFPredicate p, Value v, float bound) {
    return arith::CmpFOp::create(b, loc, p, v, ops.f32(bound)).getResult();
  };
  using P = arith::CmpFPredicate;
  bool atLeastOne = atLeastOneOrNaN(op.getRhs());
  auto [xlo, xhi] = bounds(dividends.getArrayRef(), true, true);
  // A divisor >= 1 (or NaN) is checked only against the largest.
  auto [slo, shi] = bounds(divisors.getArrayRef(), !atLeastOne, !atLeastOne);
  // (Built in this order, the comparisons give the PTX the H200 measured.)
  Value xBelow = cmp(P::OLE, xhi, ieee::kMaxDividend);
  Value xAbove = cmp(P::OGE, xlo, ieee::kMinDividend);
  Value inRange = arith::AndIOp::create(b, loc, xAbove, xBelow);
  Value sBelow = cmp(P::OLE, shi, ieee::kMaxDivisor);
  inRange = arith::AndIOp::create(b, loc, inRange, sBelow);
  if (!atLeastOne) {
    Value sAbove = cmp(P::OGE, slo, ieee::kMinDivisor);
    inRange = arith::AndIOp::create(b, loc, inRange, sAbove);
  }
  values[op] = fastOrExact(
      inRange, n,
      [&](int64_t i) { return ieee::exactQuotient(ops, reg(op.getLhs(), i), reg(op.getRhs(), i)); },
      [&](int64_t i) {
        return arith::DivFOp::create(b, loc, reg(op.getLhs(), i), reg(op.getRhs(), i)).getResult();
      });
  return success();
}

Value KernelLowering::inClosedRange(Value v, float lo, float hi) {
  // One statement an op: C++ leaves the order of a call's arguments open, and
  // the IR (and the PTX) must not depend on the compiler megac is built with.
  // This order is the one the H200 measured.
  Value atMost = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v,
                                       constant(b.getF32FloatAttr(hi)));
  Value atLeast = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v,
                                        constant(b.getF32FloatAttr(lo)));
  return arith::AndIOp::create(b, loc, atLeast, atMost);
}

Regs KernelLowering::fastOrExact(Value take, int64_t n, function_ref<Value(int64_t)> fast,
                                 function_ref<Value(int64_t)> exact) {
  auto branch = scf::IfOp::create(b, loc, SmallVector<Type>(n, b.getF32Type()), take, true);
  OpBuilder::InsertionGuard guard(b);
  for (bool isFast : {true, false}) {
    b.setInsertionPointToStart(isFast ? branch.thenBlock() : branch.elseBlock());
    SmallVector<Value> results;
    for (int64_t i = 0; i < n; ++i)
      results.push_back(isFast ? fast(i) : exact(i));
    scf::YieldOp::create(b, loc, results);
  }
  return Regs(branch.getResults().begin(), branch.getResults().end());
}

} // namespace megac::lowering
