#include "MmaBuilders.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <string>

using namespace mlir;

namespace megac::mma {
namespace {

Value i32Constant(OpBuilder &b, Location loc, int32_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

// The intrinsic's `n` results of `elem` (a struct of them when n > 1).
SmallVector<Value> callIntrinsic(OpBuilder &b, Location loc, StringRef name, Type elem, unsigned n,
                                 ValueRange args) {
  Type type = n == 1 ? elem
                     : LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                        SmallVector<Type>(n, elem));
  Value all = LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(name), args).getResult(0);
  if (n == 1)
    return {all};
  SmallVector<Value> out;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, all, ArrayRef<int64_t>{int64_t(i)}));
  return out;
}

} // namespace

SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value base, Value offset,
                                unsigned count, bool trans) {
  Value address = LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                                      ValueRange{offset});
  std::string name = "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
                     (trans ? ".trans" : "") + ".b16";
  return callIntrinsic(b, loc, name, b.getI32Type(), count, ValueRange{address});
}

SmallVector<Value> multiplyAccumulate(OpBuilder &b, Location loc, ValueRange a, ValueRange bFrag,
                                      ValueRange c, bool f16) {
  SmallVector<Value> args;
  // f16 takes its pairs as <2 x half>; bf16 as i32.
  auto pair = [&](Value word) -> Value {
    if (!f16)
      return word;
    return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, b.getF16Type()), word);
  };
  for (Value v : a)
    args.push_back(pair(v));
  for (Value v : bFrag)
    args.push_back(pair(v));
  args.append(c.begin(), c.end());
  return callIntrinsic(b, loc,
                       f16 ? "llvm.nvvm.mma.m16n8k16.row.col.f32.f32"
                           : "llvm.nvvm.mma.m16n8k16.row.col.bf16",
                       b.getF32Type(), 4, args);
}

void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src, Value pred, unsigned bytes) {
  Value size = i32Constant(b, loc, int32_t(bytes));
  if (pred)
    size = LLVM::SelectOp::create(b, loc, pred, size, i32Constant(b, loc, 0));
  // .cg (L2 only) takes 16 bytes; smaller copies go through .ca.
  std::string name = std::string("llvm.nvvm.cp.async.") + (bytes == 16 ? "cg" : "ca") +
                     ".shared.global." + std::to_string(bytes) + ".s";
  LLVM::CallIntrinsicOp::create(b, loc, TypeRange{}, b.getStringAttr(name),
                                ValueRange{dst, src, size}, LLVM::FastmathFlagsAttr());
}

void commitAsyncCopies(OpBuilder &b, Location loc) {
  LLVM::CallIntrinsicOp::create(b, loc, TypeRange{}, b.getStringAttr("llvm.nvvm.cp.async.commit.group"),
                                ValueRange{}, LLVM::FastmathFlagsAttr());
}

void waitAsyncCopies(OpBuilder &b, Location loc, unsigned pending) {
  LLVM::CallIntrinsicOp::create(b, loc, TypeRange{}, b.getStringAttr("llvm.nvvm.cp.async.wait.group"),
                                ValueRange{i32Constant(b, loc, int32_t(pending))},
                                LLVM::FastmathFlagsAttr());
}

} // namespace megac::mma
