//===- crc32.h - CRC-32 (IEEE, as zlib) for bundle sections -----*- C++ -*-===//
#ifndef MEGAC_RUNTIME_CRC32_H
#define MEGAC_RUNTIME_CRC32_H

#include <cstddef>
#include <cstdint>

namespace megac::rt {

/// The zlib/PNG CRC-32, so that bundles can be checked with standard tools.
uint32_t crc32(const void *data, size_t size);

} // namespace megac::rt

#endif // MEGAC_RUNTIME_CRC32_H
