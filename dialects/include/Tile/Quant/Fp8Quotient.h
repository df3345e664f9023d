// The quotient x / s that FP8 quantization rounds, for a divisor s shared by
// many dividends (a per-tensor or per-group scale), in five instructions a
// value instead of div.rn.f32's ten with its slow-path check.
//
// Markstein's correction: with y = RN(1/s) (one per distinct s: rcp.rn's fast
// path, Tile/Math/ExactQuotient.h's refinedReciprocal) and
// q0 = RN(m * y), the remainder r = s * q0 - m is exact (one fma), and
// q = RN(q0 - r * y) is the correctly rounded m / s, as long as nothing
// overflows or underflows. Written once over an abstract set of operations,
// like E2M1.h: the lowering instantiates it to emit IR, the unit test to run
// it on the CPU against IEEE division.
//
// When it is exact: the lowering takes this path only when every divisor in
// the tile is in [kMinDivisor, kMaxDivisor] (one uniform check per tile,
// else every element takes div.rn). There, for |x| <= kMaxDividend, every
// quotient of at least 2^-40 in magnitude is bit-identical to x / s (q0 and
// r stay normal), and a smaller one is within an ulp of it with its sign;
// FP8 (E4M3 or E5M2) rounds every such value to the same byte, as the
// smallest E5M2 subnormal's half is 2^-17. A larger |x| is clamped to
// kMaxDividend first (so q0 cannot overflow), which still saturates:
// kMaxDividend / kMaxDivisor = 2^17 > 57344, E5M2's largest. NaN stays NaN
// (the clamp propagates it); the sign is copied from x, so -0 / s = -0.
#ifndef MEGAC_TILE_QUANT_FP8QUOTIENT_H
#define MEGAC_TILE_QUANT_FP8QUOTIENT_H

namespace megac::quant {

inline constexpr float kMinDivisor = 0x1p-56f;
inline constexpr float kMaxDivisor = 0x1p53f;
inline constexpr float kMaxDividend = 0x1p70f;

/// Ops must provide: Value abs(Value), Value minNaN(Value, float) (the
/// smaller, NaN if either is), Value mul(Value, Value), Value fma(Value,
/// Value, Value) (one rounding), Value neg(Value), Value copysign(Value
/// magnitude, Value sign); all f32, rounding to nearest even.
/// `reciprocal` is RN(1 / s).
template <class Ops>
typename Ops::Value fp8Quotient(Ops &ops, typename Ops::Value x, typename Ops::Value s,
                                typename Ops::Value reciprocal) {
  using V = typename Ops::Value;
  V m = ops.minNaN(ops.abs(x), kMaxDividend);
  V q0 = ops.mul(m, reciprocal);
  V r = ops.fma(q0, s, ops.neg(m)); // s * q0 - m, exactly
  V q = ops.fma(ops.neg(r), reciprocal, q0);
  return ops.copysign(q, x);
}

} // namespace megac::quant

#endif
