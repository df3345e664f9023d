//===- Bf16Words.h - bf16 registers as halves of loaded words ---*- C++ -*-===//
//
// A load of bf16 values returns 32-bit words; the lowering of bf16 -> f32 and
// of bf16 pairs to NVFP4 reads a value's word instead of its extracted half.
// Internal to compiler/conversion.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"

namespace megac::lowering {

// A bf16 register that is element `index` of a loaded vector of bf16 (of an
// even length): the vector and the index, or nothing.
struct Bf16Element {
  Value vector;
  int64_t index;
};
inline std::optional<Bf16Element> bf16ElementOf(Value v) {
  auto extract = v.getDefiningOp<LLVM::ExtractElementOp>();
  if (!extract)
    return std::nullopt;
  auto vec = dyn_cast<VectorType>(extract.getVector().getType());
  APInt index;
  if (!vec || !vec.getElementType().isBF16() || vec.getNumElements() % 2 ||
      !matchPattern(extract.getPosition(), m_ConstantInt(&index)))
    return std::nullopt;
  return Bf16Element{extract.getVector(), index.getSExtValue()};
}

// The 32-bit word of a vector of bf16 that holds its elements 2w and 2w + 1.
inline Value bf16Word(OpBuilder &b, Location loc, Value vector, int64_t w) {
  Type i32t = b.getI32Type();
  auto wordsType = VectorType::get({cast<VectorType>(vector.getType()).getNumElements() / 2}, i32t);
  Value words = LLVM::BitcastOp::create(b, loc, wordsType, vector);
  Value index = LLVM::ConstantOp::create(b, loc, i32t, b.getI32IntegerAttr(int32_t(w)));
  return LLVM::ExtractElementOp::create(b, loc, words, index);
}

} // namespace megac::lowering
