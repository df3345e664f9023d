// NVFP4's block multiplier gs / sf without a division (megac::quant::
// nvfp4Inverse, the template the lowering instantiates) against IEEE
// division: for every positive E4M3 sf, every result rcp.approx may give
// (every float within 1 ulp of 1 / sf), and global scales across the range
// the lowering uses it for.
#include "Tile/Quant/Nvfp4Inverse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace {

using megac::quant::kMaxGlobalScale;
using megac::quant::kMinGlobalScale;

// rcp.approx is any float within 1 ulp of the reciprocal: the test picks it.
struct Eval {
  using Value = float;
  float approx = 0;
  Value rcpApprox(Value) { return approx; }
  Value neg(Value x) { return -x; }
  Value mul(Value x, Value y) {
    volatile float p = x * y; // one f32 rounding
    return p;
  }
  Value fma(Value x, Value y, Value z) { return std::fma(x, y, z); }
};

float e4m3(int code) {
  int e = (code >> 3) & 15, m = code & 7;
  return e == 0 ? std::ldexp(m / 8.0f, -6) : std::ldexp(1 + m / 8.0f, e - 7);
}

// Every float within 1 ulp of 1 / sf.
std::vector<float> approximations(float sf) {
  double exact = 1.0 / double(sf);
  double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
  std::vector<float> out;
  float rn = float(exact);
  for (float y = std::nextafter(std::nextafter(rn, 0.0f), 0.0f);
       y <= std::nextafter(std::nextafter(rn, INFINITY), INFINITY); y = std::nextafter(y, INFINITY))
    if (std::fabs(double(y) - exact) <= ulp)
      out.push_back(y);
  return out;
}

TEST(Nvfp4Inverse, EveryScaleAndEveryApproximationGivesIeeeDivision) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> logScale(std::log2(kMinGlobalScale),
                                                 std::log2(kMaxGlobalScale));
  std::vector<float> scales = {kMinGlobalScale, kMaxGlobalScale, 1.0f, 448.0f * 6.0f, 2688.0f / 3.0f};
  for (int i = 0; i < 20000; ++i)
    scales.push_back(std::exp2(logScale(gen)));
  int checked = 0;
  for (int code = 1; code <= 126; ++code) { // every positive E4M3 value (127 is NaN)
    float sf = e4m3(code);
    std::vector<float> candidates = approximations(sf);
    ASSERT_GE(candidates.size(), 1u);
    for (float approx : candidates) {
      Eval ops{approx};
      for (float gs : scales) {
        volatile float exact = gs / sf;
        ASSERT_EQ(megac::quant::nvfp4Inverse(ops, gs, sf), float(exact))
            << "gs " << gs << " sf " << sf << " rcp.approx " << approx;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 126 * 20000);
}

// All 2^23 mantissas of gs in one binade, for every sf and approximation:
// 2.4 billion quotients, about a minute. Run it with
//   compiler_tests --gtest_also_run_disabled_tests --gtest_filter='Nvfp4*'
TEST(Nvfp4Inverse, DISABLED_EveryMantissa) {
  for (int code = 1; code <= 126; ++code) {
    float sf = e4m3(code);
    for (float approx : approximations(sf)) {
      Eval ops{approx};
      for (uint32_t m = 0; m < (1u << 23); ++m) {
        uint32_t bits = (127u << 23) | m;
        float gs;
        std::memcpy(&gs, &bits, 4);
        volatile float exact = gs / sf;
        ASSERT_EQ(megac::quant::nvfp4Inverse(ops, gs, sf), float(exact))
            << "gs " << gs << " sf " << sf << " rcp.approx " << approx;
      }
    }
  }
}

} // namespace
