#include "NVVMBuilders.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/IR/IntrinsicsNVPTX.h"

using namespace mlir;

namespace megac::nvvm {

void registerDialect(DialectRegistry &registry) {
  registry.insert<NVVM::NVVMDialect>();
}

Value threadIdX(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

Value blockId(OpBuilder &b, Location loc, unsigned axis) {
  Type i32 = b.getI32Type();
  if (axis == 0)
    return NVVM::BlockIdXOp::create(b, loc, i32);
  if (axis == 1)
    return NVVM::BlockIdYOp::create(b, loc, i32);
  return NVVM::BlockIdZOp::create(b, loc, i32);
}

Value gridDim(OpBuilder &b, Location loc, unsigned axis) {
  Type i32 = b.getI32Type();
  if (axis == 0)
    return NVVM::GridDimXOp::create(b, loc, i32);
  if (axis == 1)
    return NVVM::GridDimYOp::create(b, loc, i32);
  return NVVM::GridDimZOp::create(b, loc, i32);
}

Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned laneMask) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t x) {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(int32_t(x)));
  };
  // The constants one a statement, in g++'s order: C++ leaves the order of a
  // call's arguments open, and the IR must not depend on the host compiler.
  Value clamp = cst(0x1f), mask = cst(laneMask), members = cst(-1);
  return NVVM::ShflOp::create(b, loc, v.getType(), members, v, mask, clamp,
                              NVVM::ShflKind::bfly, UnitAttr());
}

Value shuffleIdx(OpBuilder &b, Location loc, Value v, Value srcLane) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t x) {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(int32_t(x)));
  };
  Value clamp = cst(0x1f), members = cst(-1); // (g++'s order, as above)
  return NVVM::ShflOp::create(b, loc, v.getType(), members, v, srcLane, clamp,
                              NVVM::ShflKind::idx, UnitAttr());
}

void barrier(OpBuilder &b, Location loc) { NVVM::Barrier0Op::create(b, loc); }

std::optional<unsigned> shuffleIntrinsic(Operation *op) {
  auto shfl = dyn_cast<NVVM::ShflOp>(op);
  if (!shfl || shfl.getReturnValueAndIsValid() || !op->getDiscardableAttrDictionary().empty())
    return std::nullopt;
  bool f32 = shfl.getType().isF32();
  if (!f32 && !shfl.getType().isInteger(32))
    return std::nullopt;
  switch (shfl.getKind()) {
  case NVVM::ShflKind::bfly:
    return f32 ? llvm::Intrinsic::nvvm_shfl_sync_bfly_f32 : llvm::Intrinsic::nvvm_shfl_sync_bfly_i32;
  case NVVM::ShflKind::idx:
    return f32 ? llvm::Intrinsic::nvvm_shfl_sync_idx_f32 : llvm::Intrinsic::nvvm_shfl_sync_idx_i32;
  case NVVM::ShflKind::up:
    return f32 ? llvm::Intrinsic::nvvm_shfl_sync_up_f32 : llvm::Intrinsic::nvvm_shfl_sync_up_i32;
  case NVVM::ShflKind::down:
    return f32 ? llvm::Intrinsic::nvvm_shfl_sync_down_f32 : llvm::Intrinsic::nvvm_shfl_sync_down_i32;
  }
  return std::nullopt;
}

// A side-effecting instruction with a memory clobber: it keeps its place
// among the loads and stores.
static void gridDependencyControl(OpBuilder &b, Location loc, const char *instruction) {
  LLVM::InlineAsmOp::create(b, loc, Type(), ValueRange{}, instruction, "~{memory}",
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
                            ArrayAttr());
}

void waitPriorKernel(OpBuilder &b, Location loc, bool thenLaunchDependents) {
  gridDependencyControl(b, loc,
                        thenLaunchDependents
                            ? "griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;"
                            : "griddepcontrol.wait;");
}

void launchDependents(OpBuilder &b, Location loc) {
  gridDependencyControl(b, loc, "griddepcontrol.launch_dependents;");
}

Value f32x2ToF8x2(OpBuilder &b, Location loc, Value hi, Value lo, Type f8Type) {
  return NVVM::ConvertF32x2ToF8x2Op::create(b, 
      loc, b.getI16Type(), hi, lo, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, false, f8Type);
}

Value f32x2ToF4x2(OpBuilder &b, Location loc, Value hi, Value lo) {
  return NVVM::ConvertF32x2ToF4x2Op::create(b, 
      loc, b.getI8Type(), hi, lo, false,
      b.getType<Float4E2M1FNType>());
}

Value f8x2ToF16x2(OpBuilder &b, Location loc, Value pair, Type f8Type) {
  return NVVM::ConvertF8x2ToF16x2Op::create(b, 
      loc, VectorType::get({2}, b.getF16Type()), pair, false, f8Type);
}

std::optional<ConversionIntrinsic> conversionIntrinsic(Operation *op) {
  if (!op->getDiscardableAttrDictionary().empty())
    return std::nullopt;
  if (auto cvt = dyn_cast<NVVM::ConvertF32x2ToF8x2Op>(op)) {
    if (cvt.getRnd() != NVVM::FPRoundingMode::RN || cvt.getSat() != NVVM::SaturationMode::SATFINITE ||
        cvt.getRelu() || !cvt.getType().isInteger(16))
      return std::nullopt;
    if (isa<Float8E4M3FNType>(cvt.getDstTy()))
      return ConversionIntrinsic{llvm::Intrinsic::nvvm_ff_to_e4m3x2_rn};
    if (isa<Float8E5M2Type>(cvt.getDstTy()))
      return ConversionIntrinsic{llvm::Intrinsic::nvvm_ff_to_e5m2x2_rn};
    return std::nullopt;
  }
  if (auto cvt = dyn_cast<NVVM::ConvertF32x2ToF4x2Op>(op)) {
    if (cvt.getRelu() || !cvt.getType().isInteger(8) || !isa<Float4E2M1FNType>(cvt.getDstTy()))
      return std::nullopt;
    return ConversionIntrinsic{llvm::Intrinsic::nvvm_ff_to_e2m1x2_rn_satfinite, false, true};
  }
  if (auto cvt = dyn_cast<NVVM::ConvertF8x2ToF16x2Op>(op)) {
    if (cvt.getRelu())
      return std::nullopt;
    if (isa<Float8E4M3FNType>(cvt.getSrcType()))
      return ConversionIntrinsic{llvm::Intrinsic::nvvm_e4m3x2_to_f16x2_rn, true};
    if (isa<Float8E5M2Type>(cvt.getSrcType()))
      return ConversionIntrinsic{llvm::Intrinsic::nvvm_e5m2x2_to_f16x2_rn, true};
    return std::nullopt;
  }
  return std::nullopt;
}

void setKernelAttributes(LLVM::LLVMFuncOp func, unsigned maxThreads,
                         unsigned maxRegisters, unsigned minCtasPerSM) {
  Builder b(func.getContext());
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                b.getDenseI32ArrayAttr({int32_t(maxThreads), 1, 1}));
  if (maxRegisters)
    func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  b.getI32IntegerAttr(int32_t(maxRegisters)));
  if (minCtasPerSM)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(int32_t(minCtasPerSM)));
}

Value rcpApprox(OpBuilder &b, Location loc, Value x) {
  return NVVM::RcpApproxFtzF32Op::create(b, loc, b.getF32Type(), x);
}

} // namespace megac::nvvm
