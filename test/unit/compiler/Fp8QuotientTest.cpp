// The shared-divisor quotient that FP8 quantization lowers to
// (megac::quant::fp8Quotient, the template the lowering instantiates) against
// IEEE division: bit-identical where Fp8Quotient.h says so, and rounding to
// the same E4M3 and E5M2 byte everywhere in the divisor range it is used for.
#include "Tile/Quant/Fp8Quotient.h"
#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using megac::quant::kMaxDividend;
using megac::quant::kMaxDivisor;
using megac::quant::kMinDivisor;

struct Eval {
  using Value = float;
  Value abs(Value x) { return std::fabs(x); }
  Value minNaN(Value x, float bound) { return std::isnan(x) ? x : std::fmin(x, bound); }
  Value mul(Value x, Value y) {
    volatile float p = x * y; // one f32 rounding
    return p;
  }
  Value fma(Value x, Value y, Value z) { return std::fma(x, y, z); }
  Value neg(Value x) { return -x; }
  Value copysign(Value x, Value sign) { return std::copysign(x, sign); }
};

float quotient(float x, float s) {
  Eval ops;
  volatile float reciprocal = 1.0f / s;
  return megac::quant::fp8Quotient(ops, x, s, float(reciprocal));
}

// Every finite non-negative value of an FP8 format, by code.
std::vector<double> fp8Grid(int mantissaBits, int bias, double largest) {
  std::vector<double> grid;
  for (int code = 0; code < 128; ++code) {
    int e = code >> mantissaBits, m = code & ((1 << mantissaBits) - 1);
    double frac = double(m) / (1 << mantissaBits);
    double v = e == 0 ? std::ldexp(frac, 1 - bias) : std::ldexp(1 + frac, e - bias);
    if (v > largest)
      break;
    grid.push_back(v);
  }
  return grid;
}

// The definition of cvt.rn.satfinite: nearest grid value, ties to the even
// code, magnitudes beyond the largest saturate; -1 for NaN.
int roundFp8(const std::vector<double> &grid, float v) {
  if (std::isnan(v))
    return -1;
  double a = std::fabs(double(v));
  int best = 0;
  if (a >= grid.back()) {
    best = int(grid.size()) - 1;
  } else {
    for (int c = 1; c < int(grid.size()); ++c) {
      double dc = std::fabs(a - grid[c]), db = std::fabs(a - grid[best]);
      if (dc < db || (dc == db && c % 2 == 0))
        best = c;
    }
  }
  return best | (std::signbit(v) ? 128 : 0);
}

const std::vector<double> &e4m3() {
  static const std::vector<double> grid = fp8Grid(3, 7, 448);
  return grid;
}
const std::vector<double> &e5m2() {
  static const std::vector<double> grid = fp8Grid(2, 15, 57344);
  return grid;
}

void checkOne(float x, float s) {
  float fast = quotient(x, s);
  float exact = x / s;
  if (std::isnan(x)) {
    ASSERT_TRUE(std::isnan(fast)) << x << " / " << s;
    return;
  }
  ASSERT_EQ(std::signbit(fast), std::signbit(exact)) << x << " / " << s;
  if (std::fabs(x) <= kMaxDividend && std::fabs(exact) >= 0x1p-40f) {
    ASSERT_EQ(bitsOf(fast), bitsOf(exact)) << x << " / " << s << " = " << exact << ", got " << fast;
  }
  ASSERT_EQ(roundFp8(e4m3(), fast), roundFp8(e4m3(), exact)) << x << " / " << s;
  ASSERT_EQ(roundFp8(e5m2(), fast), roundFp8(e5m2(), exact)) << x << " / " << s;
}

TEST(Fp8Quotient, RandomDividendsAndDivisorsMatchIeeeDivision) {
  std::mt19937 gen(20261129);
  std::uniform_real_distribution<float> logDivisor(std::log2(kMinDivisor), std::log2(kMaxDivisor));
  std::uniform_int_distribution<uint32_t> anyBits;
  std::uniform_real_distribution<float> nearQuotient(-600.0f, 600.0f);
  for (int d = 0; d < 90; ++d) {
    float s = std::exp2(logDivisor(gen));
    if (d % 3 == 0)
      s = fromBits(bitsOf(s) | 0x7fffff); // mantissa all ones: 1/s rounds hardest
    for (int i = 0; i < 20000; ++i) {
      checkOne(fromBits(anyBits(gen)), s);
      checkOne(nearQuotient(gen) * s, s); // quotients where FP8 rounds finely
    }
  }
}

TEST(Fp8Quotient, EdgesOfTheRange) {
  for (float s : {kMinDivisor, kMaxDivisor, 1.0f, 3.0f, 448.0f, 1.0f / 448.0f}) {
    for (float x : {0.0f, -0.0f, 1.0f, -1.0f, kMaxDividend, -kMaxDividend,
                    std::nextafter(kMaxDividend, INFINITY), INFINITY, -INFINITY,
                    std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::denorm_min(), 0x1p-126f, -0x1p-126f, NAN})
      checkOne(x, s);
  }
  EXPECT_TRUE(std::signbit(quotient(-0.0f, 2.0f))); // -0 / s = -0, as IEEE
  EXPECT_EQ(quotient(INFINITY, kMaxDivisor), quotient(kMaxDividend, kMaxDivisor));
  EXPECT_GT(quotient(INFINITY, kMaxDivisor), 57344.0f); // still saturates E5M2
}

// Every dividend bit pattern whose quotient matters to E4M3, for the
// divisors of a typical per-tensor scale and a per-group scale.
TEST(Fp8Quotient, EveryDividendNearTheE4M3GridIsExact) {
  for (float s : {1.0f / 448.0f, 0.0123f}) {
    uint32_t lo = bitsOf(0x1p-12f * s), hi = bitsOf(512.0f * s);
    for (uint32_t bits = lo; bits <= hi; bits += 7)
      for (uint32_t sign : {0u, 0x80000000u}) {
        float x = fromBits(bits | sign);
        ASSERT_EQ(bitsOf(quotient(x, s)), bitsOf(x / s)) << x << " / " << s;
      }
  }
}

} // namespace
