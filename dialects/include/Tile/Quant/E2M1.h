// Exact round-to-nearest-even of an f32 to E2M1 (FP4) with saturation, as a
// 4-bit code with the sign in bit 3: the grid is {0, .5, 1, 1.5, 2, 3, 4, 6}.
//
// Written once over an abstract set of operations so that the lowering emits
// exactly the algorithm the unit test checks exhaustively on the CPU: `Ops`
// is either an IR emitter or a plain evaluator. Targets without a hardware
// E2M1 conversion (sm_90a) use it; it matches cvt.rn.satfinite.e2m1x2.f32
// bit for bit on every non-NaN input.
//
// The algorithm: within each binade of the grid the E2M1 code is an integer
// rounding of a scaled magnitude a = min(|x|, 6):
//   a in [0, 2): code = rne(2a)       (0, .5, 1, 1.5 -> 0..3; 2 -> 4)
//   a in [2, 4): code = rne(a) + 2    (2, 3 -> 4, 5; 4 -> 6)
//   a in [4, 6]: code = rne(a / 2) + 4 (4, 6 -> 6, 7)
// and rne(y) + k for a small integer y is one fused multiply-add: adding
// 1.5 * 2^23 + k rounds to an integer (ties to even) and leaves rne(y) + k in
// the low mantissa bits. About ten instructions instead of seven compares.
#ifndef MEGAC_TILE_QUANT_E2M1_H
#define MEGAC_TILE_QUANT_E2M1_H

namespace megac::quant {

/// 1.5 * 2^23: f32 values in [2^23, 2^24) are spaced by 1, so a sum landing
/// there is rounded to an integer, which the low mantissa bits hold.
inline constexpr float kIntegerMagic = 12582912.0f;

/// Ops must provide: Value abs(Value f32), Value minf(Value f32, float) (the
/// number when one operand is NaN), Value below(Value f32, float) -> i1,
/// Value f32(float), Value select(Value i1, Value, Value), Value fma(Value,
/// Value, Value) (one rounding, to nearest even), Value low3(Value f32) -> i32
/// (bits 0..2 of the f32's bit pattern), Value sign8(Value f32) -> i32 (8
/// when the sign bit is set, else 0), Value or32(Value, Value). The code is an
/// i32 so that packing two codes into a byte stays in 32-bit registers.
template <class Ops>
typename Ops::Value e2m1Code(Ops &ops, typename Ops::Value x) {
  using V = typename Ops::Value;
  V a = ops.minf(ops.abs(x), 6.0f); // saturate: inf and NaN -> 6
  V low = ops.below(a, 2.0f), mid = ops.below(a, 4.0f);
  V scale = ops.select(low, ops.f32(2.0f),
                       ops.select(mid, ops.f32(1.0f), ops.f32(0.5f)));
  V magic = ops.select(low, ops.f32(kIntegerMagic),
                       ops.select(mid, ops.f32(kIntegerMagic + 2.0f),
                                  ops.f32(kIntegerMagic + 4.0f)));
  V code = ops.low3(ops.fma(a, scale, magic)); // (statements fix the IR order)
  V sign = ops.sign8(x);
  return ops.or32(code, sign);
}

} // namespace megac::quant

#endif
