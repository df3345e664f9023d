// Exact round-to-nearest-even of an f32 to E2M1 (FP4) with saturation, as a
// 4-bit code with the sign in bit 3: the grid is {0, .5, 1, 1.5, 2, 3, 4, 6}.
//
// Written once over an abstract set of operations so that the lowering emits
// exactly the algorithm the unit test checks exhaustively on the CPU: `Ops`
// is either an IR emitter or a plain evaluator. Targets without a hardware
// E2M1 conversion (sm_90a) use it; it matches cvt.rn.satfinite.e2m1x2.f32
// bit for bit on every non-NaN input.
#ifndef MEGAC_TILE_QUANT_E2M1_H
#define MEGAC_TILE_QUANT_E2M1_H

namespace megac::quant {

/// A tie between two neighbours goes to the even code, so the step to the
/// upper neighbour is taken at the midpoint (inclusive) only when the upper
/// code is even.
struct E2M1Step {
  float midpoint;
  bool inclusive;
};
inline constexpr E2M1Step kE2M1Steps[7] = {
    {0.25f, false}, {0.75f, true}, {1.25f, false}, {1.75f, true},
    {2.5f, false},  {3.5f, true},  {5.0f, false}};

/// Ops must provide: Value abs(Value f32), Value i8(int), Value above(Value
/// f32, float bound, bool inclusive) -> i1, Value zext8(Value i1), Value
/// add8(Value, Value), Value signBit8(Value f32) -> i8 (0 or 1), Value
/// shl8(Value, int), Value or8(Value, Value).
template <class Ops>
typename Ops::Value e2m1Code(Ops &ops, typename Ops::Value x) {
  typename Ops::Value magnitude = ops.abs(x);
  typename Ops::Value code = ops.i8(0);
  for (const E2M1Step &step : kE2M1Steps)
    code = ops.add8(code, ops.zext8(ops.above(magnitude, step.midpoint,
                                               step.inclusive)));
  return ops.or8(code, ops.shl8(ops.signBit8(x), 3));
}

} // namespace megac::quant

#endif
