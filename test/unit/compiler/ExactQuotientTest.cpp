// `@tile_division`'s and silu's quotients (megac::ieee::exactQuotient and
// siluQuotientAnywhere, the templates the lowering instantiates) against IEEE division on the CPU, over the operand
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
    // .ftz, as the hardware's: a subnormal reciprocal is 0
    return std::fabs(r) < 0x1p-126f ? std::copysign(0.0f, r) : r;
  }
  Value mul(Value x, Value y) {
    volatile float p = x * y; // one f32 rounding, no contraction
    return p;
  }
  Value fma(Value x, Value y, Value z) { return std::fma(x, y, z); }
  Value neg(Value x) { return -x; }
  Value f32(float v) { return v; }
  bool equals(Value x, float v) { return x == v; }
  Value select(bool c, Value x, Value y) { return c ? x : y; }
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
// test of the range's edges can fail: a subnormal quotient is off. (A zero
// dividend keeps its sign: the remainder is taken negated.)
TEST(ExactQuotient, OutsideTheRangeItErrs) {
  Eval ops;
  EXPECT_TRUE(std::signbit(exactQuotient(ops, -0.0f, 3.0f)));
  EXPECT_FALSE(std::signbit(exactQuotient(ops, 0.0f, 3.0f)));
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

// silu's quotient x / (1 + exp(-x)), with the CPU's expf for the GPU's: the
// fast path (no check of the dividend) for |x| <= kLogisticBound, and
// siluQuotientAnywhere for every x, against IEEE division; every exponent
// of x, both signs, and the special values. (The H200 checks every f32 with
// its own expf: test/gpu/check_logistic_quotient.py.)
bool sameBits(float a, float b) { return bitsOf(a) == bitsOf(b) || (std::isnan(a) && std::isnan(b)); }

TEST(LogisticQuotient, SiluMatchesIeeeDivision) {
  Eval ops;
  std::mt19937 rng(5);
  int fastBad = 0, anyBad = 0, fastCount = 0;
  for (uint32_t e = 0; e < 255; ++e)
    for (int i = 0; i < 2000; ++i) {
      float x = fromBits((rng() & 0x807fffffu) | (e << 23));
      volatile float d = 1.0f + std::exp(-x);
      volatile float want = x / d;
      if (std::fabs(x) <= kLogisticBound) {
        ++fastCount;
        fastBad += !sameBits(exactQuotient(ops, x, float(d)), want);
      }
      anyBad += !sameBits(siluQuotientAnywhere(ops, x, float(d)), want);
    }
  for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -87.5f, -88.5f, -88.75f, -89.0f, 17.0f, 87.0f,
                  -87.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 3.0e38f, -3.0e38f}) {
    volatile float d = 1.0f + std::exp(-x);
    volatile float want = x / d;
    EXPECT_TRUE(sameBits(siluQuotientAnywhere(ops, x, float(d)), want)) << "x = " << x;
    if (std::fabs(x) <= kLogisticBound) {
      EXPECT_TRUE(sameBits(exactQuotient(ops, x, float(d)), want)) << "x = " << x;
    }
  }
  EXPECT_GT(fastCount, 100000);
  EXPECT_EQ(fastBad, 0);
  EXPECT_EQ(anyBad, 0);
}

// Past the bound the fast path is wrong, which is why there is a check: an
// infinite or huge d flushes its reciprocal, and +inf / 1 gives NaN.
TEST(LogisticQuotient, TheFastPathNeedsItsCheck) {
  Eval ops;
  for (float x : {-88.0f, -89.0f, INFINITY}) {
    volatile float d = 1.0f + std::exp(-x);
    volatile float want = x / d;
    EXPECT_FALSE(sameBits(exactQuotient(ops, x, float(d)), want)) << "x = " << x;
  }
}

} // namespace
