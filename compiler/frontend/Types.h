//===- Types.h - Types of megac values --------------------------*- C++ -*-===//
//
// Every expression of a type-checked module has a Type: a scalar, a pointer,
// or a tile (1-3 dims, each a power of two) of scalars or pointers.
// UntypedInt/UntypedFloat exist only while sema runs (literals and constants
// adapt to the other operand); after sema no node carries them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace megac::fe {

/// Element kinds. The f8/f4/e8m0 kinds are storage-only: they can be loaded,
/// stored and cast, but arithmetic on them is rejected.
enum class ScalarKind : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  F8E4M3,
  F8E5M2,
  F4E2M1X2, // two packed e2m1 values per byte
  E8M0,     // exponent-only scale format (MX)
};

const char *scalarKindName(ScalarKind k);
std::optional<ScalarKind> scalarKindFromName(std::string_view name);
/// Bits of one element (f4e2m1x2: 8, the packed pair).
unsigned bitWidth(ScalarKind k);
bool isBool(ScalarKind k);              // i1
bool isInteger(ScalarKind k);           // i8..i64, u8..u64 (not i1)
bool isSigned(ScalarKind k);            // i8..i64
bool isFloat(ScalarKind k);             // f16 bf16 f32 f64 (arithmetic floats)
bool isStorageOnly(ScalarKind k);       // f8e4m3 f8e5m2 f4e2m1x2 e8m0
bool isKernelScalarParam(ScalarKind k); // allowed as a scalar kernel param

/// The element of a scalar or tile: a number, or a global-memory pointer to
/// one.
struct ElementType {
  ScalarKind scalar = ScalarKind::I32;
  bool isPointer = false;

  bool operator==(const ElementType &o) const {
    return scalar == o.scalar && isPointer == o.isPointer;
  }
  bool operator!=(const ElementType &o) const { return !(*this == o); }
  std::string str() const; // "f32" or "*f32"
};

class Type {
public:
  enum class Kind : uint8_t {
    Invalid,      // an error was already reported; suppresses follow-ups
    Void,         // calls without a value (store)
    UntypedInt,   // int literal / constant, not yet adapted (sema only)
    UntypedFloat, // float literal / constant, not yet adapted (sema only)
    Value,        // scalar (shape empty) or tile (shape non-empty)
  };

  Type() = default;
  static Type invalid() { return Type(); }
  static Type voidTy() { return make(Kind::Void); }
  static Type untypedInt() { return make(Kind::UntypedInt); }
  static Type untypedFloat() { return make(Kind::UntypedFloat); }
  static Type scalar(ScalarKind k) { return value({k, false}, {}); }
  static Type pointer(ScalarKind pointee) { return value({pointee, true}, {}); }
  static Type value(ElementType e, std::vector<int64_t> shape) {
    Type t = make(Kind::Value);
    t.elem = e;
    t.shape = std::move(shape);
    return t;
  }

  Kind kind = Kind::Invalid;
  ElementType elem;           // meaningful for Kind::Value
  std::vector<int64_t> shape; // empty: scalar; else tile dims (outermost first)

  bool isInvalid() const { return kind == Kind::Invalid; }
  bool isVoid() const { return kind == Kind::Void; }
  bool isUntyped() const {
    return kind == Kind::UntypedInt || kind == Kind::UntypedFloat;
  }
  bool isValue() const { return kind == Kind::Value; }
  bool isTile() const { return isValue() && !shape.empty(); }
  bool isScalar() const { return isValue() && shape.empty(); }
  bool isPointer() const { return isValue() && elem.isPointer; }
  /// Numeric (not pointer) element of the given class; untyped counts.
  bool isIntLike() const;   // UntypedInt or integer element
  bool isFloatLike() const; // UntypedFloat or arithmetic float element
  bool isBoolLike() const;  // i1 element
  size_t rank() const { return shape.size(); }
  /// Same element type with another shape (empty: scalar).
  Type withShape(std::vector<int64_t> s) const { return value(elem, s); }
  Type withElem(ElementType e) const { return value(e, shape); }

  /// "i32", "*bf16", "tile<1024 x i32>", "tile<64 x 64 x *f32>",
  /// "untyped int", "untyped float", "void", "<invalid>".
  std::string str() const;

  bool operator==(const Type &o) const {
    return kind == o.kind &&
           (kind != Kind::Value || (elem == o.elem && shape == o.shape));
  }
  bool operator!=(const Type &o) const { return !(*this == o); }

private:
  static Type make(Kind k) {
    Type t;
    t.kind = k;
    return t;
  }
};

/// "[128, 64]" for diagnostics about shapes.
std::string shapeStr(const std::vector<int64_t> &shape);

/// A compile-time value: constants, literals and folded expressions.
struct ConstValue {
  enum class Kind : uint8_t { Int, Float, Bool } kind = Kind::Int;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;

  static ConstValue ofInt(int64_t v) { return {Kind::Int, v, 0.0, false}; }
  static ConstValue ofFloat(double v) { return {Kind::Float, 0, v, false}; }
  static ConstValue ofBool(bool v) { return {Kind::Bool, 0, 0.0, v}; }
  bool isInt() const { return kind == Kind::Int; }
  bool isFloat() const { return kind == Kind::Float; }
  bool isBool() const { return kind == Kind::Bool; }
  double asDouble() const { return isFloat() ? f : isInt() ? double(i) : b; }
  /// Shortest text that reads back to the same value ("1024", "1e-06",
  /// "0.5", "true").
  std::string str() const;
};

} // namespace megac::fe
