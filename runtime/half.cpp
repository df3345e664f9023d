//===- half.cpp - Rounding doubles to 16-bit float scalars ----------------===//
#include "half.h"

#include <cstring>

namespace megac::rt {

namespace {
uint32_t floatBits(double value) {
  float f = float(value);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

bool roundsUp(uint32_t kept, uint32_t rest, uint32_t halfway) {
  return rest > halfway || (rest == halfway && (kept & 1));
}
} // namespace

uint16_t toBF16Bits(double value) {
  uint32_t x = floatBits(value);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t((x >> 16) | 0x40); // quiet NaN
  uint32_t kept = x >> 16;
  return uint16_t(kept + roundsUp(kept, x & 0xFFFF, 0x8000));
}

uint16_t toF16Bits(double value) {
  uint32_t x = floatBits(value);
  uint32_t sign = (x >> 16) & 0x8000;
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t(sign | 0x7E00);
  int32_t exp = int32_t((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFF;
  if (exp >= 31)
    return uint16_t(sign | 0x7C00);
  if (exp <= 0) {
    if (exp < -10)
      return uint16_t(sign);
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t kept = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1);
    return uint16_t(sign | (kept + roundsUp(kept, rest, 1u << (shift - 1))));
  }
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  uint32_t kept = uint32_t(exp) << 10 | mant >> 13;
  return uint16_t(sign | (kept + roundsUp(kept, mant & 0x1FFF, 0x1000)));
}

} // namespace megac::rt
