// An f32's bits and back, for the unit tests of the float algorithms
// (E2M1, the FP8 quotient, the exact quotient).
#ifndef MEGAC_TEST_UNIT_FLOATBITS_H
#define MEGAC_TEST_UNIT_FLOATBITS_H

#include <cstdint>
#include <cstring>

inline uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

inline float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

#endif
