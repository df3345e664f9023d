//===- crc32.cpp - CRC-32 (IEEE, as zlib) for bundle sections -------------===//
#include "crc32.h"

#include <array>

namespace megac::rt {

namespace {
std::array<uint32_t, 256> makeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
} // namespace

uint32_t crc32(const void *data, size_t size) {
  static const std::array<uint32_t, 256> table = makeTable();
  const auto *bytes = static_cast<const unsigned char *>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i)
    c = table[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

} // namespace megac::rt
