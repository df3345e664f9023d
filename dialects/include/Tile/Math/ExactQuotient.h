// IEEE f32 division (round to nearest even) without div.rn.f32's per-value
// check and branch, for `@tile_division`: a thread's quotients of one tile
// operation under one range check.
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
// (silu's 1 + exp(-x)) needs only its upper bound checked. Zero, subnormal,
// infinite and NaN operands fail the check: a zero dividend would lose its
// sign in the remainder, the others need the slow path's scaling.
// Written over an abstract set of operations like Quant/Fp8Quotient.h: the
// lowering instantiates it to emit IR, the test to run it.
#ifndef MEGAC_TILE_MATH_EXACTQUOTIENT_H
#define MEGAC_TILE_MATH_EXACTQUOTIENT_H

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
/// rounding to nearest even.
template <class Ops>
typename Ops::Value exactQuotient(Ops &ops, typename Ops::Value x, typename Ops::Value s) {
  using V = typename Ops::Value;
  V y = refinedReciprocal(ops, s);
  V q0 = ops.mul(x, y);
  V r = ops.fma(ops.neg(s), q0, x); // x - s * q0, exactly
  return ops.fma(y, r, q0);
}

} // namespace megac::ieee

#endif
