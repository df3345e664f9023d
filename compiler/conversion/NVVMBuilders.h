// Small builders for the NVVM operations the lowering needs. They live in one
// file so that only NVVMBuilders.cpp pays for including NVVMDialect.h.
#ifndef MEGAC_CONVERSION_NVVMBUILDERS_H
#define MEGAC_CONVERSION_NVVMBUILDERS_H

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir {
class DialectRegistry;
namespace LLVM {
class LLVMFuncOp;
}
} // namespace mlir

namespace megac::nvvm {

void registerDialect(mlir::DialectRegistry &registry);

mlir::Value threadIdX(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value blockId(mlir::OpBuilder &b, mlir::Location loc, unsigned axis);
mlir::Value gridDim(mlir::OpBuilder &b, mlir::Location loc, unsigned axis);
/// Butterfly shuffle of an i32 or f32 across the full warp.
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       unsigned laneMask);
/// Index shuffle of an i32 or f32: every lane reads `v` of lane `srcLane`.
mlir::Value shuffleIdx(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Value srcLane);
void barrier(mlir::OpBuilder &b, mlir::Location loc);
/// griddepcontrol.wait and griddepcontrol.launch_dependents (sm_90+), each as
/// inline assembly with side effects and a memory clobber: LLVM's intrinsics
/// for them read no memory, so loads could move across the wait. The frontend
/// launches dependents right after the wait unless the kernel says where
/// (launch_dependents()): after the wait, at most two kernels are in flight,
/// and the next kernel's loads above its wait overlap this kernel only.
/// With `thenLaunchDependents`, both in one block: one point LLVM schedules
/// nothing across.
void waitPriorKernel(mlir::OpBuilder &b, mlir::Location loc, bool thenLaunchDependents);
void launchDependents(mlir::OpBuilder &b, mlir::Location loc);

/// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32: `hi` lands in the upper byte.
mlir::Value f32x2ToF8x2(mlir::OpBuilder &b, mlir::Location loc, mlir::Value hi,
                        mlir::Value lo, mlir::Type f8Type);
/// cvt.rn.satfinite.e2m1x2.f32 (sm_100a and later): `hi` in the upper nibble.
mlir::Value f32x2ToF4x2(mlir::OpBuilder &b, mlir::Location loc, mlir::Value hi,
                        mlir::Value lo);
/// cvt.rn.f16x2.{e4m3x2,e5m2x2}: a vector<2xi8> of fp8 to vector<2xf16>.
mlir::Value f8x2ToF16x2(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value pair, mlir::Type f8Type);

/// rcp.approx.ftz.f32: 1 / x within 1 ulp (flushing subnormals).
mlir::Value rcpApprox(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// The NVVM intrinsic (llvm::Intrinsic::ID) that an nvvm.shfl.sync op without
/// the predicate result translates to, for codegen/DirectTranslation.h;
/// nullopt for any other op.
std::optional<unsigned> shuffleIntrinsic(mlir::Operation *op);

/// How an fp8 or fp4 conversion op that f32x2ToF8x2, f32x2ToF4x2 or
/// f8x2ToF16x2 made translates (as MLIR's translation translates it): one
/// intrinsic call on the operands, its i16 operand a bitcast of the
/// vector<2xi8> first (`packOperand`), its i16 result truncated to the op's i8
/// (`truncateResult`); nullopt for any other op or form.
struct ConversionIntrinsic {
  unsigned id;
  bool packOperand = false;
  bool truncateResult = false;
};
std::optional<ConversionIntrinsic> conversionIntrinsic(mlir::Operation *op);

/// Marks `func` as a kernel with its launch bounds (0 = unset).
void setKernelAttributes(mlir::LLVM::LLVMFuncOp func, unsigned maxThreads,
                         unsigned maxRegisters, unsigned minCtasPerSM);

} // namespace megac::nvvm

#endif
