#include "MmaBuilders.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <string>

using namespace mlir;

namespace megac::mma {
namespace {

// One inline-asm instruction with `n` results of `elem`; returns them.
SmallVector<Value> asmResults(OpBuilder &b, Location loc, Type elem, unsigned n,
                              ValueRange operands, const std::string &text,
                              const std::string &constraints, bool sideEffects) {
  SmallVector<Type> fields(n, elem);
  auto type = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  Value all = LLVM::InlineAsmOp::create(
                  b, loc, type, operands, text, constraints, sideEffects,
                  /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                  LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
                  ArrayAttr())
                  .getResult(0);
  SmallVector<Value> out;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, all, ArrayRef<int64_t>{int64_t(i)}));
  return out;
}

// "{$first, ..., $first + n - 1}"
std::string operandList(unsigned first, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + "}";
}

} // namespace

SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value address, int64_t offset,
                                unsigned count, bool trans) {
  std::string text = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
                     (trans ? ".trans" : "") + ".shared.b16 " + operandList(0, count) + ", [$" +
                     std::to_string(count) + "+" + std::to_string(offset) + "];";
  std::string constraints;
  for (unsigned i = 0; i < count; ++i)
    constraints += "=r,";
  constraints += "r";
  return asmResults(b, loc, b.getI32Type(), count, ValueRange{address}, text, constraints,
                    /*sideEffects=*/true);
}

SmallVector<Value> multiplyAccumulate(OpBuilder &b, Location loc, ValueRange a, ValueRange bFrag,
                                      ValueRange c, bool f16) {
  const char *type = f16 ? "f16" : "bf16";
  std::string text = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") + type + "." + type +
                     ".f32 " + operandList(0, 4) + ", " + operandList(4, 4) + ", " +
                     operandList(8, 2) + ", " + operandList(10, 4) + ";";
  SmallVector<Value> operands(a.begin(), a.end());
  operands.append(bFrag.begin(), bFrag.end());
  operands.append(c.begin(), c.end());
  // The accumulator is tied to the result (ptxas keeps it in place).
  return asmResults(b, loc, b.getF32Type(), 4, operands, text,
                    "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", /*sideEffects=*/false);
}

void asyncCopy(OpBuilder &b, Location loc, Value dst, int64_t offset, Value src, Value pred,
               unsigned bytes) {
  Type i32 = b.getI32Type();
  Value size = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(int32_t(bytes)));
  if (pred)
    size = LLVM::SelectOp::create(b, loc, pred, size,
                                  LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)));
  // .cg (L2 only) takes 16 bytes; smaller copies go through .ca.
  std::string text = std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") +
                     ".shared.global [$0+" + std::to_string(offset) + "], [$1], " +
                     std::to_string(bytes) + ", $2;";
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{dst, src, size}, text, "r,l,r",
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
                            ArrayAttr());
}

void waitAsyncCopies(OpBuilder &b, Location loc) {
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{},
                            "cp.async.commit_group;\n\tcp.async.wait_group 0;", "",
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
                            ArrayAttr());
}

} // namespace megac::mma
