// The software E2M1 rounding that sm_90a kernels run (megac::quant::e2m1Code,
// the same template the lowering instantiates to emit IR) against the
// definition, on every bf16 and every f16 value.
#include "Tile/Quant/E2M1.h"

#include <gtest/gtest.h>

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
  Value i8(int v) { return {0, v}; }
  Value above(Value x, float bound, bool inclusive) {
    return {0, inclusive ? x.f >= bound : x.f > bound};
  }
  Value zext8(Value bit) { return bit; }
  Value add8(Value a, Value b) { return {0, (a.i + b.i) & 0xff}; }
  Value signBit8(Value x) { return {0, std::signbit(x.f) ? 1 : 0}; }
  Value shl8(Value x, int n) { return {0, (x.i << n) & 0xff}; }
  Value or8(Value a, Value b) { return {0, a.i | b.i}; }
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

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
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

} // namespace
