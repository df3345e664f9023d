//===- MmaBuilders.h - tensor-core instructions as inline PTX ---*- C++ -*-===//
//
// ldmatrix and mma.sync as inline PTX (LLVM dialect), so the lowering needs no
// NVVM dialect header (costly to compile) and one form works on sm_90a,
// sm_100a and sm_103a alike.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Builders.h"

namespace megac::mma {

/// ldmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16: `count` (1, 2 or 4)
/// 8 x 8 matrices of 16-bit elements; lane l gives the shared address of row
/// l mod 8 of matrix l / 8 (`address`: an i32 shared-window address) and
/// receives one i32 (two elements) of each matrix. `offset` is added as the
/// instruction's immediate: LLVM would hoist `address + offset` out of a loop
/// as one more live register per fragment. Ordered with the stores and
/// barriers around it (it reads shared memory).
llvm::SmallVector<mlir::Value> loadMatrices(mlir::OpBuilder &b, mlir::Location loc,
                                            mlir::Value address, int64_t offset, unsigned count,
                                            bool trans);

/// mma.sync.aligned.m16n8k16.row.col.f32.{bf16|f16}: d = a b + c for one
/// 16 x 8 block, with a four i32 (eight 16-bit elements), b two, c and the
/// result four f32, in the PTX fragment order.
llvm::SmallVector<mlir::Value> multiplyAccumulate(mlir::OpBuilder &b, mlir::Location loc,
                                                  mlir::ValueRange a, mlir::ValueRange bFrag,
                                                  mlir::ValueRange c, bool f16);

/// cp.async of `bytes` (4, 8 or 16) from global `src` to the shared address
/// `dst` (i32) + `offset` (an immediate, as for loadMatrices), zero-filled
/// where `pred` is false (src-size 0; nothing is read). Completes at
/// waitAsyncCopies.
void asyncCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dst, int64_t offset,
               mlir::Value src, mlir::Value pred, unsigned bytes);
/// cp.async.commit_group, then cp.async.wait_group 0: this thread's copies
/// have landed (a barrier then makes every thread's visible).
void waitAsyncCopies(mlir::OpBuilder &b, mlir::Location loc);

} // namespace megac::mma
