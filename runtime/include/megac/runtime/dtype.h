//===- dtype.h - Element types named by the manifest ------------*- C++ -*-===//
#ifndef MEGAC_RUNTIME_DTYPE_H
#define MEGAC_RUNTIME_DTYPE_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace megac::rt {

/// The manifest's dtypes (docs/bundle.md). f4e2m1x2 is one byte holding two
/// E2M1 values; i1 occupies one byte.
enum class DType : unsigned char {
  bf16,
  f16,
  f32,
  f64,
  i1,
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
  f8e4m3,
  f8e5m2,
  f4e2m1x2,
  e8m0,
};

/// The manifest spelling, e.g. "bf16".
std::string_view dtypeName(DType type);
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element in memory.
size_t dtypeSize(DType type);
bool isInteger(DType type);
bool isFloat(DType type);
/// True for dtypes a scalar (by value) kernel parameter may have.
bool isScalarDType(DType type);

} // namespace megac::rt

#endif // MEGAC_RUNTIME_DTYPE_H
