#include "PredicatedAccess.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <string>

using namespace mlir;

namespace megac::ptx {

bool predicatable(int64_t bytes) { return bytes == 4 || bytes == 8 || bytes == 16; }

namespace {

/// "{$1, $2}" for operands first .. first + n - 1 (a single operand bare).
std::string operandList(size_t first, size_t n) {
  std::string s = n > 1 ? "{" : "";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + (n > 1 ? "}" : "");
}

std::string vectorSuffix(size_t n) { return n > 1 ? ".v" + std::to_string(n) : ""; }

LLVM::InlineAsmOp inlineAsm(OpBuilder &b, Location loc, Type result,
                            ValueRange operands, const std::string &text,
                            const std::string &constraints) {
  return LLVM::InlineAsmOp::create(b, 
      loc, result, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

} // namespace

Value loadScalarInOrder(OpBuilder &b, Location loc, Value ptr, int64_t bytes, Type type) {
  const char *constraint = bytes == 2 ? "=h,l" : bytes == 4 ? "=r,l" : bytes == 8 ? "=l,l" : nullptr;
  if (!constraint)
    return {};
  Type bitsType = b.getIntegerType(unsigned(bytes * 8));
  std::string text = "ld.global.b" + std::to_string(bytes * 8) + " $0, [$1];";
  Value bits = inlineAsm(b, loc, bitsType, ValueRange{ptr}, text, constraint).getResult(0);
  return type == bitsType ? bits : LLVM::BitcastOp::create(b, loc, type, bits).getResult();
}

SmallVector<Value> loadWords(OpBuilder &b, Location loc, Value ptr, Value pred,
                             ArrayRef<Value> others) {
  size_t n = others.size();
  // outputs $0..$n-1, then ptr $n, pred $n+1, then the others tied to the
  // outputs: a lane whose predicate is off keeps them.
  std::string text = "@$" + std::to_string(n + 1) + " ld.global" + vectorSuffix(n) +
                     ".b32 " + operandList(0, n) + ", [$" + std::to_string(n) + "];";
  std::string constraints;
  for (size_t i = 0; i < n; ++i)
    constraints += "=r,";
  constraints += "l,b";
  for (size_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands = {ptr, pred};
  operands.append(others.begin(), others.end());
  Type i32 = b.getI32Type();
  Type result = n == 1 ? i32
                       : LLVM::LLVMStructType::getLiteral(
                             b.getContext(), SmallVector<Type>(n, i32));
  Value out = inlineAsm(b, loc, result, operands, text, constraints).getResult(0);
  if (n == 1)
    return {out};
  SmallVector<Value> words;
  for (size_t i = 0; i < n; ++i)
    words.push_back(LLVM::ExtractValueOp::create(b, loc, out, int64_t(i)));
  return words;
}

namespace {

/// One store instruction `instr` ("st.global.cs.v4.b32") of `values` at `ptr`
/// in inline PTX, `constraint` ("r", "h") for each value; predicated on `pred`
/// when it is not null.
void storeAsm(OpBuilder &b, Location loc, Value ptr, Value pred, const std::string &instr,
              ArrayRef<Value> values, const char *constraint) {
  unsigned first = pred ? 1 : 0; // the operand number of the pointer
  std::string text = std::string(pred ? "@$0 " : "") + instr + " [$" + std::to_string(first) +
                     "], " + operandList(first + 1, values.size()) + ";";
  std::string constraints = pred ? "b,l" : "l";
  for (size_t i = 0; i < values.size(); ++i)
    constraints += std::string(",") + constraint;
  SmallVector<Value> operands;
  if (pred)
    operands.push_back(pred);
  operands.push_back(ptr);
  operands.append(values.begin(), values.end());
  inlineAsm(b, loc, Type(), operands, text, constraints);
}

} // namespace

void storeNarrow(OpBuilder &b, Location loc, Value ptr, Value pred, Value value,
                 StringRef cache) {
  Type type = value.getType();
  unsigned bits = type.isIntOrFloat() ? type.getIntOrFloatBitWidth()
                                      : unsigned(cast<VectorType>(type).getNumElements() *
                                                 cast<VectorType>(type).getElementTypeBitWidth());
  // An i1 is a byte of 0 or 1 in memory (torch.bool).
  if (bits == 1) {
    value = LLVM::ZExtOp::create(b, loc, b.getI8Type(), value);
    bits = 8;
  }
  // PTX has no 8-bit registers: a byte goes out of the low half of a .b16.
  Type i16 = b.getI16Type();
  Value half = LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), value);
  if (bits == 8)
    half = LLVM::ZExtOp::create(b, loc, i16, half);
  storeAsm(b, loc, ptr, pred, "st.global" + cache.str() + ".b" + std::to_string(bits), {half}, "h");
}

void storeWords(OpBuilder &b, Location loc, Value ptr, Value pred,
                ArrayRef<Value> words, StringRef cache) {
  storeAsm(b, loc, ptr, pred, "st.global" + cache.str() + vectorSuffix(words.size()) + ".b32",
           words, "r");
}

SmallVector<Value> toWords(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  if (v.getType() == i32)
    return {v};
  unsigned bits = v.getType().isIntOrFloat()
                      ? v.getType().getIntOrFloatBitWidth()
                      : unsigned(cast<VectorType>(v.getType()).getNumElements() *
                                 cast<VectorType>(v.getType()).getElementTypeBitWidth());
  if (bits == 32)
    return {LLVM::BitcastOp::create(b, loc, i32, v)};
  auto wordsType = VectorType::get({int64_t(bits / 32)}, i32);
  Value packed = LLVM::BitcastOp::create(b, loc, wordsType, v);
  SmallVector<Value> words;
  for (int64_t i = 0; i < wordsType.getNumElements(); ++i)
    words.push_back(LLVM::ExtractElementOp::create(b, 
        loc, packed, LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(int32_t(i)))));
  return words;
}

Value fromWords(OpBuilder &b, Location loc, ArrayRef<Value> words, Type type) {
  Type i32 = b.getI32Type();
  if (words.size() == 1)
    return type == i32 ? words[0] : LLVM::BitcastOp::create(b, loc, type, words[0]).getResult();
  auto wordsType = VectorType::get({int64_t(words.size())}, i32);
  Value packed = LLVM::UndefOp::create(b, loc, wordsType);
  for (size_t i = 0; i < words.size(); ++i)
    packed = LLVM::InsertElementOp::create(b, 
        loc, packed, words[i],
        LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(int32_t(i))));
  return LLVM::BitcastOp::create(b, loc, type, packed);
}

} // namespace megac::ptx
