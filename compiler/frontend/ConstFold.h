//===- ConstFold.h - Compile-time arithmetic --------------------*- C++ -*-===//
//
// Folding of untyped constants (literals, `const` values, -D overrides).
// Integers are i64 with overflow, division by zero and out-of-range shifts
// reported as errors instead of wrapping or hitting undefined behavior.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/AST.h"

#include <optional>
#include <string>

namespace megac::fe {

/// Result of folding: a value, or the reason it cannot be folded.
struct FoldResult {
  std::optional<ConstValue> value;
  std::string error;
};

FoldResult foldBinary(BinaryOp op, const ConstValue &a, const ConstValue &b);
FoldResult foldUnary(UnaryOp op, const ConstValue &a);
/// cdiv(a, b) = (a + b - 1) / b for integers.
FoldResult foldCdiv(const ConstValue &a, const ConstValue &b);

/// Parses a -D value: "2048", "0x800", "1e-6", "true". Empty on failure.
std::optional<ConstValue> parseDefineValue(const std::string &text);

/// Whether integer `v` fits scalar kind `k` (floats: always).
bool intFits(int64_t v, ScalarKind k);

} // namespace megac::fe
