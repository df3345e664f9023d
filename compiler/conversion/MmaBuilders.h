//===- MmaBuilders.h - tensor-core and async-copy instructions --*- C++ -*-===//
//
// ldmatrix, mma.sync and cp.async as calls of their NVVM intrinsics (LLVM
// dialect), so the lowering needs no NVVM dialect header (costly to compile),
// and LLVM knows what they read and write (inline asm would be an opaque call
// that LLVM's passes scan around at length).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Builders.h"

namespace megac::mma {

/// ldmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16: `count` (1, 2 or 4)
/// 8 x 8 matrices of 16-bit elements; lane l gives the shared address of row
/// l mod 8 of matrix l / 8 (`base` plus `offset` bytes) and receives one i32
/// (two elements) of each matrix.
llvm::SmallVector<mlir::Value> loadMatrices(mlir::OpBuilder &b, mlir::Location loc,
                                            mlir::Value base, mlir::Value offset, unsigned count,
                                            bool trans);

/// mma.sync.aligned.m16n8k16.row.col.f32.{bf16|f16}: d = a b + c for one
/// 16 x 8 block, with a four i32 (eight 16-bit elements), b two, c and the
/// result four f32, in the PTX fragment order.
llvm::SmallVector<mlir::Value> multiplyAccumulate(mlir::OpBuilder &b, mlir::Location loc,
                                                  mlir::ValueRange a, mlir::ValueRange bFrag,
                                                  mlir::ValueRange c, bool f16);

/// cp.async of `bytes` (4, 8 or 16) from global `src` to shared `dst`,
/// zero-filled where `pred` is false (src-size 0: nothing is read).
/// Completes at waitAsyncCopies.
void asyncCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dst, mlir::Value src,
               mlir::Value pred, unsigned bytes);
/// cp.async.commit_group: the copies issued since the last one form a group.
void commitAsyncCopies(mlir::OpBuilder &b, mlir::Location loc);
/// cp.async.wait_group `pending`: all but the `pending` most recent groups of
/// this thread have landed (a barrier then makes every thread's visible).
void waitAsyncCopies(mlir::OpBuilder &b, mlir::Location loc, unsigned pending);

} // namespace megac::mma
