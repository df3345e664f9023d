// IEEE f32 division (round to nearest even) without div.rn.f32's per-value
// check and branch, for `@tile_division` and for silu and sigmoid: a thread's
// quotients of one tile operation under one range check.
//
// div.rn.f32 compiles to a fast path - an approximate reciprocal, a Newton
// step on it, the quotient, its remainder (exact, one fma) and Markstein's
// correction - then a check of the operands (FCHK) and a branch to a slow
// subroutine for those where the fast path could over- or underflow. n
// divisions a thread pay n checks and n branches, which ptxas cannot schedule
// across. exactQuotient is that fast path; the lowering takes it for all n
// when every operand is in range (one branch), else div.rn for all n. Same
// bits either way.
//
// The range: dividends of magnitude [kMinDividend, kMaxDividend] and
// divisors of [kMinDivisor, kMaxDivisor]. There the reciprocal, the quotient
// (in [2^-100, 2^80]) and the remainder (its last bit at least 2^-87) are
// normal and exact where they must be, and the result scales with the
// operands' exponents. It is div.rn.f32's own fast path, and like it rests on
// the hardware's reciprocal: on the H200 it matched div.rn.f32 for every pair
// of significands (2^46 pairs; results/tuning_division_warm_ad392a1.md) and on
// 2^36 random pairs across [2^-60, 2^60] (results/tuning_saq_gng_7770c7c.md).
// The unit test checks random operands with the reciprocal off by up to two
// ulps either way, and shows the corner such a reciprocal gets wrong (a
// quotient just past a power of two, 1 / (2 - 2^-23)), which the H200's does
// not. A divisor known to be >= 1 or NaN
// (1 + exp(..)) needs only its upper bound checked. Zero, subnormal,
// infinite and NaN operands fail the check: a tiny dividend can make a
// subnormal quotient, which the fast path may round wrongly, the others need
// the slow path's scaling. silu and sigmoid need less (kLogisticBound).
// Written over an abstract set of operations like Quant/Fp8Quotient.h: the
// lowering instantiates it to emit IR, the test to run it.
#ifndef MEGAC_TILE_MATH_EXACTQUOTIENT_H
#define MEGAC_TILE_MATH_EXACTQUOTIENT_H

#include <limits>

namespace megac::ieee {

inline constexpr float kMinDividend = 0x1p-40f;
inline constexpr float kMaxDividend = 0x1p60f;
inline constexpr float kMinDivisor = 0x1p-20f;
inline constexpr float kMaxDivisor = 0x1p60f;

/// The reciprocal of s, refined: the approximate one and a Newton step with
/// fused operations (div.rn's and rcp.rn's own fast path). With the
/// hardware's rcp.approx.ftz it is RN(1 / s) for every normal s below 2^126
/// (checked on the H200 against rcp.rn.f32 for all of them,
/// test/gpu/check_rcp_fast_path.py): FP8 quotients by a range-checked scale
/// use it alone (compiler/conversion/DivisionLowering.cpp).
/// Ops must provide: Value rcpApprox(Value) (within two ulps), Value
/// fma(Value, Value, Value) (one rounding), Value neg(Value), Value f32(float).
template <class Ops>
typename Ops::Value refinedReciprocal(Ops &ops, typename Ops::Value s) {
  using V = typename Ops::Value;
  V y0 = ops.rcpApprox(s);
  V one = ops.f32(1.0f); // (its own statement: argument order is the compiler's)
  V e = ops.fma(ops.neg(s), y0, one); // 1 - s * y0
  return ops.fma(y0, e, y0);
}

/// Ops as refinedReciprocal's, and Value mul(Value, Value); all f32,
/// rounding to nearest even. The remainder is taken negated, s * q0 - x, and
/// subtracted: the same quotient (rounding to nearest is symmetric), and a
/// zero dividend keeps its sign (x - s * q0 would be +0 for x = -0, and
/// -0 + +0 is +0).
template <class Ops>
typename Ops::Value exactQuotient(Ops &ops, typename Ops::Value x, typename Ops::Value s) {
  using V = typename Ops::Value;
  V y = refinedReciprocal(ops, s);
  V q0 = ops.mul(x, y);
  V negX = ops.neg(x); // (its own statement: argument order is the compiler's)
  V r = ops.fma(s, q0, negX); // s * q0 - x, exactly
  V negR = ops.neg(r);
  return ops.fma(negR, y, q0);
}

/// silu's x / (1 + exp(-x)) and sigmoid's 1 / (1 + exp(-x)) take
/// exactQuotient without a check of the dividend: the divisor d = 1 + exp(-x)
/// is at least 1, and below 2^126 while x >= -kLogisticBound, where RN(1 / d)
/// is normal; silu's dividend is then at most 87 in magnitude and a tiny one
/// comes with d = 2, whose quotient is exact at any size. Checked for every
/// f32 x on the H200 (test/gpu/check_logistic_quotient.py).
inline constexpr float kLogisticBound = 87.0f;

/// silu's x / d, d = 1 + exp(-x), for every x, without div.rn's subroutine
/// (whose calling convention holds registers a kernel keeps for its whole
/// life): the lowering's path for a tile whose arguments fail the check.
/// exactQuotient by d / 4 (exact, and below 2^126 while exp(-x) is finite)
/// gives RN(4x / d) = 4 RN(x / d), as x / d is normal there or x / 2; then
/// / 4. d = 1 (x above about 16.6, +inf included) is x itself; an infinite d
/// (x below about -88.7) is x * 0: -0, or NaN for x = -inf, as the division
/// is.
/// Ops as exactQuotient's, and Value equals(Value, float) (false for NaN),
/// Value select(Value cond, Value ifTrue, Value ifFalse).
template <class Ops>
typename Ops::Value siluQuotientAnywhere(Ops &ops, typename Ops::Value x,
                                         typename Ops::Value d) {
  using V = typename Ops::Value;
  V quarter = ops.f32(0.25f);
  V dOver4 = ops.mul(d, quarter);
  V q4 = exactQuotient(ops, x, dOver4);
  V q = ops.mul(q4, quarter);
  V zero = ops.f32(0.0f);
  V overflowed = ops.mul(x, zero);
  V dIsInf = ops.equals(d, std::numeric_limits<float>::infinity());
  V dIsOne = ops.equals(d, 1.0f);
  V finite = ops.select(dIsOne, x, q);
  return ops.select(dIsInf, overflowed, finite);
}

} // namespace megac::ieee

#endif
