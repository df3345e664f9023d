// The software E2M1 rounding that sm_90a kernels run (megac::quant::e2m1Code,
// the same template the lowering instantiates to emit IR) against the
// definition, on every bf16 and every f16 value.
#include "Tile/Quant/E2M1.h"
#include "FloatBits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

// Evaluates the algorithm on the CPU: f32 values and i8 codes side by side.
struct Eval {
  struct Value {
    float f = 0;
    int i = 0;
  };
  Value abs(Value x) { return {std::fabs(x.f), 0}; }
  Value minf(Value x, float bound) { return {std::fmin(x.f, bound), 0}; }
  Value exponent(Value x) { return {0, int(bitsOf(x.f) >> 23)}; }
  Value maxi(Value x, int bound) { return {0, std::max(x.i, bound)}; }
  Value madi(Value x, int32_t mul, int32_t add) {
    return {0, int(uint32_t(x.i) * uint32_t(mul) + uint32_t(add))};
  }
  Value addBits(Value x, Value bits) {
    float m;
    uint32_t u = uint32_t(bits.i);
    std::memcpy(&m, &u, 4);
    volatile float sum = x.f + m; // one f32 rounding, as the GPU's add.rn.f32
    return {sum, 0};
  }
  Value top4(Value x) { return {0, int(bitsOf(x.f) >> 28)}; }
  Value shl4add(Value hi, Value lo) { return {0, int(bitsOf(hi.f) * 16u + bitsOf(lo.f))}; }
  Value bf16PairSigns(Value word) {
    uint64_t product = uint64_t(uint32_t(word.i) & 0x80008000u) * ((1u << 20) + (1u << 8));
    return {0, int(uint32_t(product >> 32))};
  }
  Value mask77or(Value codes, Value signs) {
    return {0, int((uint32_t(codes.i) & 0x77u) | uint32_t(signs.i))};
  }
  Value mergeLow3(Value rounded, Value rest) {
    return {0, int((bitsOf(rounded.f) & 7) | (uint32_t(rest.i) & ~7u))};
  }
};

// The definition: the nearest of {0, .5, 1, 1.5, 2, 3, 4, 6} to |x|, with
// magnitudes beyond 6 saturating to 6; at an exact tie the even code wins.
int definition(float x) {
  static const float grid[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  double a = std::fabs(double(x));
  int best = 0;
  for (int c = 1; c < 8; ++c) {
    double dc = std::fabs(a - grid[c]), db = std::fabs(a - grid[best]);
    if (dc < db || (dc == db && c % 2 == 0))
      best = c;
  }
  if (a > 6)
    best = 7;
  return best | (std::signbit(x) ? 8 : 0);
}

float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 31, mant = h & 1023;
  if (exp == 0) // subnormal or zero: mant * 2^-24
    return fromBits(sign) + (sign ? -1.0f : 1.0f) * float(mant) * std::ldexp(1.0f, -24);
  if (exp == 31)
    return fromBits(sign | 0x7f800000u | (mant << 13));
  return fromBits(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

int algorithm(float x) {
  Eval ops;
  return megac::quant::e2m1Code(ops, Eval::Value{x, 0}).i;
}

TEST(E2M1, EveryBf16MatchesTheDefinition) {
  int checked = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    float x = fromBits(h << 16);
    if (std::isnan(x))
      continue;
    ASSERT_EQ(algorithm(x), definition(x)) << "bf16 bits 0x" << std::hex << h << " = " << x;
    ++checked;
  }
  EXPECT_EQ(checked, 65536 - 254); // every non-NaN bf16
}

TEST(E2M1, EveryF16MatchesTheDefinition) {
  int checked = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    float x = fromHalf(uint16_t(h));
    if (std::isnan(x))
      continue;
    ASSERT_EQ(algorithm(x), definition(x)) << "f16 bits 0x" << std::hex << h << " = " << x;
    ++checked;
  }
  EXPECT_EQ(checked, 65536 - 2046); // every non-NaN f16
}

TEST(E2M1, TiesGoToTheEvenCode) {
  EXPECT_EQ(algorithm(0.25f), 0);  // 0 | 0.5 -> 0
  EXPECT_EQ(algorithm(0.75f), 2);  // 0.5 | 1 -> 1
  EXPECT_EQ(algorithm(1.25f), 2);  // 1 | 1.5 -> 1
  EXPECT_EQ(algorithm(1.75f), 4);  // 1.5 | 2 -> 2
  EXPECT_EQ(algorithm(2.5f), 4);   // 2 | 3 -> 2
  EXPECT_EQ(algorithm(3.5f), 6);   // 3 | 4 -> 4
  EXPECT_EQ(algorithm(5.0f), 6);   // 4 | 6 -> 4
  EXPECT_EQ(algorithm(-5.0f), 14); // sign kept
  EXPECT_EQ(algorithm(-0.0f), 8);  // negative zero keeps its sign
  EXPECT_EQ(algorithm(1e30f), 7);  // saturates
}

// The pair form: the signs come from the bf16 word the two values were
// scaled from (by a non-negative factor), every pair of bf16 from a sweep.
TEST(E2M1, PairFromBf16WordMatchesTheDefinition) {
  Eval ops;
  const float factors[] = {1.0f, 0.37f, 2.5f, 0.0f, 1e-3f, 3.9e4f};
  int checked = 0;
  for (uint32_t lo = 0; lo < 65536; lo += 3)
    for (uint32_t hi = lo % 7; hi < 65536; hi += 509) {
      float xlo = fromBits(lo << 16), xhi = fromBits(hi << 16);
      if (std::isnan(xlo) || std::isnan(xhi))
        continue;
      float f = factors[(lo + hi) % 6];
      volatile float ylo = xlo * f, yhi = xhi * f;
      if (std::isnan(ylo) || std::isnan(yhi)) // inf * 0: no sign to take from x
        continue;
      Eval::Value word{0, int((hi << 16) | lo)};
      int byte = megac::quant::e2m1PairFromBf16Word(ops, Eval::Value{ylo, 0}, Eval::Value{yhi, 0},
                                                    word).i & 0xff;
      ASSERT_EQ(byte, definition(ylo) | (definition(yhi) << 4))
          << std::hex << "bf16 " << lo << ", " << hi << " times " << f;
      ++checked;
    }
  EXPECT_GT(checked, 2000000);
}

} // namespace

// The lowering rounds x * inv, any f32: every f32 from 0 to 8 at a stride of
// 31 bit patterns (about 4.5 million values, each binade's mantissas sampled
// evenly), every pattern within 64 ulps of each midpoint and grid value, both
// signs, and the specials.
TEST(E2M1, F32SweepMatchesTheDefinition) {
  auto check = [](uint32_t bits) {
    for (uint32_t sign : {0u, 0x80000000u}) {
      float x = fromBits(bits | sign);
      ASSERT_EQ(algorithm(x), definition(x)) << "f32 bits 0x" << std::hex << (bits | sign);
    }
  };
  const uint32_t end = 0x41000000u; // 8.0f
  for (uint32_t bits = 0; bits < end; bits += 31)
    check(bits);
  for (float point : {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f,
                      4.0f, 5.0f, 6.0f}) {
    uint32_t bits;
    std::memcpy(&bits, &point, 4);
    for (uint32_t d = 0; d <= 128; ++d)
      check(bits - 64 + d);
  }
  check(0x7f800000u); // inf saturates to 6
  check(0x7f7fffffu); // the largest finite
}
