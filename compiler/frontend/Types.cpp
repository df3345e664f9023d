//===- Types.cpp - Names and printing of megac types ----------------------===//
#include "frontend/Types.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace megac::fe {

namespace {
struct KindInfo {
  ScalarKind kind;
  const char *name;
  unsigned bits;
};
constexpr KindInfo kKinds[] = {
    {ScalarKind::I1, "i1", 1},         {ScalarKind::I8, "i8", 8},
    {ScalarKind::I16, "i16", 16},      {ScalarKind::I32, "i32", 32},
    {ScalarKind::I64, "i64", 64},      {ScalarKind::U8, "u8", 8},
    {ScalarKind::U16, "u16", 16},      {ScalarKind::U32, "u32", 32},
    {ScalarKind::U64, "u64", 64},      {ScalarKind::F16, "f16", 16},
    {ScalarKind::BF16, "bf16", 16},    {ScalarKind::F32, "f32", 32},
    {ScalarKind::F64, "f64", 64},      {ScalarKind::F8E4M3, "f8e4m3", 8},
    {ScalarKind::F8E5M2, "f8e5m2", 8}, {ScalarKind::F4E2M1X2, "f4e2m1x2", 8},
    {ScalarKind::E8M0, "e8m0", 8},
};
} // namespace

const char *scalarKindName(ScalarKind k) {
  return kKinds[static_cast<int>(k)].name;
}

std::optional<ScalarKind> scalarKindFromName(std::string_view name) {
  for (const KindInfo &info : kKinds)
    if (name == info.name)
      return info.kind;
  return std::nullopt;
}

unsigned bitWidth(ScalarKind k) { return kKinds[static_cast<int>(k)].bits; }

bool isBool(ScalarKind k) { return k == ScalarKind::I1; }
bool isInteger(ScalarKind k) {
  return k >= ScalarKind::I8 && k <= ScalarKind::U64;
}
bool isSigned(ScalarKind k) {
  return k >= ScalarKind::I8 && k <= ScalarKind::I64;
}
bool isFloat(ScalarKind k) {
  return k >= ScalarKind::F16 && k <= ScalarKind::F64;
}
bool isStorageOnly(ScalarKind k) { return k >= ScalarKind::F8E4M3; }
bool isKernelScalarParam(ScalarKind k) { return !isStorageOnly(k); }

std::string ElementType::str() const {
  return (isPointer ? "*" : "") + std::string(scalarKindName(scalar));
}

bool Type::isIntLike() const {
  return kind == Kind::UntypedInt ||
         (isValue() && !elem.isPointer && isInteger(elem.scalar));
}
bool Type::isFloatLike() const {
  return kind == Kind::UntypedFloat ||
         (isValue() && !elem.isPointer && isFloat(elem.scalar));
}
bool Type::isBoolLike() const {
  return isValue() && !elem.isPointer && isBool(elem.scalar);
}

std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string Type::str() const {
  switch (kind) {
  case Kind::Invalid:
    return "<invalid>";
  case Kind::Void:
    return "void";
  case Kind::UntypedInt:
    return "untyped int";
  case Kind::UntypedFloat:
    return "untyped float";
  case Kind::Value:
    break;
  }
  if (shape.empty())
    return elem.str();
  std::string s = "tile<";
  for (int64_t d : shape)
    s += std::to_string(d) + " x ";
  return s + elem.str() + ">";
}

std::string ConstValue::str() const {
  switch (kind) {
  case Kind::Int:
    return std::to_string(i);
  case Kind::Bool:
    return b ? "true" : "false";
  case Kind::Float:
    break;
  }
  if (std::isinf(f))
    return f > 0 ? "inf" : "-inf";
  if (std::isnan(f))
    return "nan";
  // Shortest %g precision that round-trips, with a '.' or exponent so the
  // text still reads as a float.
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (std::strtod(buf, nullptr) == f)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

} // namespace megac::fe
