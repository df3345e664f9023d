// NVFP4's per-block multiplier inv = gs / float(sf), exactly (every byte of
// the quantized values depends on it), without div.rn.f32's slow-path check
// and branch: sf is an E4M3 value, so its reciprocal is known exactly.
//
//   y  = rcp.approx(sf), within 1 ulp of 1 / sf;
//   q0 = gs * y, r = gs - q0 * sf (one fma, exact), inv = q0 + r * y (one
//        fma): Markstein's correction.
// Markstein proved the result correctly rounded for y = RN(1 / sf); here y
// may be 1 ulp off, and the result is still exactly gs / sf for every
// positive E4M3 sf (sf has 3 mantissa bits): the unit test
// DISABLED_EveryMantissa checked all 126 values of sf, every float within
// 1 ulp of each reciprocal, and all 2^23 mantissas of gs (2.4 billion
// quotients, none off; gs's exponent does not matter while nothing leaves
// the normal range); the default test samples them.
// Exact while nothing overflows or underflows: sf is in [2^-9, 448] and the
// lowering takes this path only for gs in [kMinGlobalScale, kMaxGlobalScale]
// (a uniform branch; div.rn otherwise). Written once over an abstract set of
// operations, like E2M1.h, for the lowering and the unit test.
#ifndef MEGAC_TILE_QUANT_NVFP4INVERSE_H
#define MEGAC_TILE_QUANT_NVFP4INVERSE_H

namespace megac::quant {

inline constexpr float kMinGlobalScale = 0x1p-90f;
inline constexpr float kMaxGlobalScale = 0x1p90f;

/// Ops must provide: Value rcpApprox(Value) (within 1 ulp), Value neg(Value),
/// Value mul(Value, Value), Value fma(Value, Value, Value) (one rounding);
/// all f32, to nearest even. sf must be a positive E4M3 value.
template <class Ops>
typename Ops::Value nvfp4Inverse(Ops &ops, typename Ops::Value gs, typename Ops::Value sf) {
  using V = typename Ops::Value;
  V y = ops.rcpApprox(sf);
  V q0 = ops.mul(gs, y);
  V r = ops.fma(ops.neg(q0), sf, gs);
  return ops.fma(r, y, q0);
}

} // namespace megac::quant

#endif
