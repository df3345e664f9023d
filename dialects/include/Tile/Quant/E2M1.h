// Exact round-to-nearest-even of an f32 to E2M1 (FP4) with saturation, as a
// 4-bit code with the sign in bit 3: the grid is {0, .5, 1, 1.5, 2, 3, 4, 6}.
//
// Written once over an abstract set of operations so that the lowering emits
// exactly the algorithm the unit test checks exhaustively on the CPU: `Ops`
// is either an IR emitter or a plain evaluator. Targets without a hardware
// E2M1 conversion (sm_90a) use it; it matches cvt.rn.satfinite.e2m1x2.f32
// bit for bit on every non-NaN input.
//
// The algorithm, for the magnitude a = min(|x|, 6): the grid's spacing is
// 2^(e - 1), where e = max(exponent(a), 0) is a's binade clamped below at
// [1, 2) (E2M1's subnormals 0 and .5 share the spacing .5 of [1, 2)). Adding
// M = 1.5 * 2^(e + 22) to a rounds a, in one f32 addition (ties to even), to
// a multiple of that spacing: M's unit in the last place is the spacing, and
// a + M stays in M's binade. The sum's low mantissa bits then count the
// spacings in a, and the code is that count plus 2e:
//   e = 0: code = rne(2a)     (0, .5, 1, 1.5, 2 -> 0..4)
//   e = 1: code = rne(a) + 2  (2, 3, 4 -> 4, 5, 6)
//   e = 2: code = rne(a/2) + 4 (4, 6 -> 6, 7)
// so M carries 2e in its own low bits (an even offset, which keeps ties
// going to the even code). M's bit pattern is linear in a's biased exponent
// k = 127 + e: M = k * (2^23 + 2) + (22 << 23) + 0x400000 - 254, one integer
// multiply-add. Five instructions for the magnitude, with no compares or
// selects (the previous two-compare, four-select version took eight), and
// two for the sign (a shift, and one lop3 that merges it with the code).
#ifndef MEGAC_TILE_QUANT_E2M1_H
#define MEGAC_TILE_QUANT_E2M1_H

#include <cstdint>

namespace megac::quant {

/// The biased exponent of 1.0f: magnitudes below 1 round on [1, 2)'s grid.
inline constexpr int kExponentOfOne = 127;
/// M's bits are kMagicPerExponent * k + kMagicBias for a biased exponent k.
inline constexpr int32_t kMagicPerExponent = (1 << 23) + 2;
inline constexpr int32_t kMagicBias = (22 << 23) + 0x400000 - 2 * kExponentOfOne;

/// Ops must provide: Value abs(Value f32), Value minf(Value f32, float) (the
/// number when one operand is NaN), Value exponent(Value f32) -> i32 (the
/// biased exponent field of a non-negative f32), Value maxi(Value i32, int),
/// Value madi(Value i32, int32_t mul, int32_t add) -> i32 (wrapping), Value
/// addBits(Value f32, Value i32) -> f32 (adds the f32 whose bit pattern the
/// i32 holds; one rounding, to nearest even), Value top4(Value f32) -> i32
/// (bits 28..31 of the pattern: the sign lands in bit 3), and Value
/// mergeLow3(Value f32, Value i32) -> i32 (bits 0..2 of the f32's pattern,
/// the others from the i32: one lop3 on the GPU). The code is an i32 so that
/// packing two codes into a byte stays in 32-bit registers.
/// a + M for a = min(|x|, 6): its bits 0..2 are the magnitude's code and
/// bits 3..21 are zero (M's mantissa is 0x400000 plus at most 4, and the
/// code is at most 7), so it may be shifted and or-ed as a code.
template <class Ops>
typename Ops::Value e2m1Rounded(Ops &ops, typename Ops::Value x) {
  using V = typename Ops::Value;
  V a = ops.minf(ops.abs(x), 6.0f); // saturate: inf and NaN -> 6
  V k = ops.maxi(ops.exponent(a), kExponentOfOne);
  V magic = ops.madi(k, kMagicPerExponent, kMagicBias);
  return ops.addBits(a, magic);
}

template <class Ops>
typename Ops::Value e2m1Code(Ops &ops, typename Ops::Value x) {
  typename Ops::Value rounded = e2m1Rounded(ops, x); // (statements fix the IR order)
  // x >> 28 is below 16, so all it gives above bit 2 is the sign, in bit 3.
  return ops.mergeLow3(rounded, ops.top4(x));
}

/// The byte of two codes, lo's in the low nibble, when lo and hi have the
/// signs of the two bf16 halves of `word` (the inputs they were scaled from
/// by a non-negative factor): the magnitudes as hi * 16 + lo, and both signs
/// at once from the word, (word & 0x80008000) * (2^20 + 2^8) >> 32 putting
/// bit 15 at bit 3 and bit 31 at bit 7. Four instructions a pair instead of
/// five. Ops also provide Value shl4add(Value hiRounded, Value loRounded) ->
/// i32 (hi's bits * 16 + lo's bits), Value bf16PairSigns(Value word) -> i32
/// (the product's high word; bits above 7 are garbage) and Value
/// mask77or(Value codes, Value signs) -> i32 ((codes & 0x77) | signs).
template <class Ops>
typename Ops::Value e2m1PairFromBf16Word(Ops &ops, typename Ops::Value lo,
                                         typename Ops::Value hi, typename Ops::Value word) {
  using V = typename Ops::Value;
  V low = e2m1Rounded(ops, lo);
  V high = e2m1Rounded(ops, hi);
  V codes = ops.shl4add(high, low);
  return ops.mask77or(codes, ops.bf16PairSigns(word));
}

} // namespace megac::quant

#endif
