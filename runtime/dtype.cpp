//===- dtype.cpp - Element types named by the manifest --------------------===//
#include "megac/runtime/dtype.h"

namespace megac::rt {

namespace {
struct DTypeRow {
  DType type;
  std::string_view name;
  size_t size;
};

constexpr DTypeRow kDTypes[] = {
    {DType::bf16, "bf16", 2},     {DType::f16, "f16", 2},
    {DType::f32, "f32", 4},       {DType::f64, "f64", 8},
    {DType::i1, "i1", 1},         {DType::i8, "i8", 1},
    {DType::i16, "i16", 2},       {DType::i32, "i32", 4},
    {DType::i64, "i64", 8},       {DType::u8, "u8", 1},
    {DType::u16, "u16", 2},       {DType::u32, "u32", 4},
    {DType::u64, "u64", 8},       {DType::f8e4m3, "f8e4m3", 1},
    {DType::f8e5m2, "f8e5m2", 1}, {DType::f4e2m1x2, "f4e2m1x2", 1},
    {DType::e8m0, "e8m0", 1},
};

const DTypeRow &row(DType type) { return kDTypes[static_cast<size_t>(type)]; }
} // namespace

std::string_view dtypeName(DType type) { return row(type).name; }

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeRow &r : kDTypes)
    if (r.name == name)
      return r.type;
  return std::nullopt;
}

size_t dtypeSize(DType type) { return row(type).size; }

bool isInteger(DType type) {
  switch (type) {
  case DType::i1:
  case DType::i8:
  case DType::i16:
  case DType::i32:
  case DType::i64:
  case DType::u8:
  case DType::u16:
  case DType::u32:
  case DType::u64:
    return true;
  default:
    return false;
  }
}

bool isFloat(DType type) {
  return type == DType::bf16 || type == DType::f16 || type == DType::f32 ||
         type == DType::f64;
}

bool isScalarDType(DType type) { return isInteger(type) || isFloat(type); }

} // namespace megac::rt
