// `@tile_division`'s quotient (megac::ieee::exactQuotient, the template the
// lowering instantiates) against IEEE division on the CPU, over the operand
// range the lowering checks for: bit-identical for random operands, divisors
// near powers of two and exact multiples, with the approximate reciprocal
// anywhere within two ulps of 1 / s (the hardware's is within one), and the
// one corner where being that far off matters.
#include "Tile/Math/ExactQuotient.h"
#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace {

using namespace megac::ieee;

// The operations, with the reciprocal approximation `ulps` steps away from
// RN(1 / s).
struct Eval {
  using Value = float;
  int ulps = 0;
  Value rcpApprox(Value s) {
    volatile float y = 1.0f / s;
    float r = y;
    for (int i = 0; i < std::abs(ulps); ++i)
      r = std::nextafter(r, ulps > 0 ? INFINITY : 0.0f);
    return r;
  }
  Value mul(Value x, Value y) {
    volatile float p = x * y; // one f32 rounding, no contraction
    return p;
  }
  Value fma(Value x, Value y, Value z) { return std::fma(x, y, z); }
  Value neg(Value x) { return -x; }
  Value f32(float v) { return v; }
};

// A random value of magnitude in [lo, hi] (powers of two), random sign.
float inRange(std::mt19937 &rng, float lo, float hi) {
  int elo = std::ilogb(lo), ehi = std::ilogb(hi) - 1;
  uint32_t e = uint32_t(127 + elo + int(rng() % uint32_t(ehi - elo + 1)));
  return fromBits((rng() & 0x807fffffu) | (e << 23));
}

int mismatches(int ulps, int count, std::mt19937 &rng) {
  Eval ops{ulps};
  int bad = 0;
  for (int i = 0; i < count; ++i) {
    float x = inRange(rng, kMinDividend, kMaxDividend);
    float s = inRange(rng, kMinDivisor, kMaxDivisor);
    if (i % 4 == 1) // near a power of two: the reciprocal's hardest cases
      s = fromBits((bitsOf(s) & 0xff800000u) | (rng() & 3));
    if (i % 8 == 2 && std::fabs(s) < 0x1p40f) // an exact multiple: remainder 0
      x = s * float(1 + rng() % 1000);
    volatile float want = x / s;
    if (bitsOf(exactQuotient(ops, x, s)) != bitsOf(want))
      ++bad;
  }
  return bad;
}

TEST(ExactQuotient, MatchesIeeeDivisionInRange) {
  std::mt19937 rng(7);
  for (int ulps : {0, 1, -1, 2, -2})
    EXPECT_EQ(mismatches(ulps, 400000, rng), 0) << "reciprocal off by " << ulps << " ulps";
}

// Where the fast path rests on the hardware's reciprocal: 1 / (2 - 2^-23) is
// just past the midpoint above 1/2, and with a reciprocal one ulp off either
// way the refined reciprocal lands on a tie and the quotient rounds down. With
// the correctly rounded reciprocal it is exact, and on the H200 every pair of
// significands is (results/tuning_division_warm_ad392a1.md).
TEST(ExactQuotient, AQuotientJustPastAPowerOfTwoNeedsAGoodReciprocal) {
  float x = 1.0f, s = 0x1.fffffep0f;
  volatile float want = x / s;
  Eval exact{0}, above{1}, below{-1};
  EXPECT_EQ(bitsOf(exactQuotient(exact, x, s)), bitsOf(want));
  EXPECT_NE(bitsOf(exactQuotient(above, x, s)), bitsOf(want));
  EXPECT_NE(bitsOf(exactQuotient(below, x, s)), bitsOf(want));
}

// The check the lowering makes is needed: outside it the fast path errs, so a
// test of the range's edges can fail. A zero dividend loses its sign; a
// subnormal quotient is off.
TEST(ExactQuotient, OutsideTheRangeItErrs) {
  Eval ops;
  EXPECT_FALSE(std::signbit(exactQuotient(ops, -0.0f, 3.0f)));
  int bad = 0;
  std::mt19937 rng(11);
  for (int i = 0; i < 10000; ++i) {
    float x = fromBits((rng() & 0x007fffffu) | 0x00800000u) * 0x1p-10f; // subnormal range
    float s = 1.0f + float(rng() % 1000) / 7.0f;
    volatile float want = x / s;
    bad += bitsOf(exactQuotient(ops, x, s)) != bitsOf(want);
  }
  EXPECT_GT(bad, 0);
}

} // namespace
