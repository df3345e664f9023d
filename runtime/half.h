//===- half.h - Rounding doubles to 16-bit float scalars --------*- C++ -*-===//
#ifndef MEGAC_RUNTIME_HALF_H
#define MEGAC_RUNTIME_HALF_H

#include <cstdint>

namespace megac::rt {

/// IEEE binary16 bits of `value`, rounded to nearest even (via float).
uint16_t toF16Bits(double value);
/// bfloat16 bits of `value`, rounded to nearest even (via float).
uint16_t toBF16Bits(double value);

} // namespace megac::rt

#endif // MEGAC_RUNTIME_HALF_H
