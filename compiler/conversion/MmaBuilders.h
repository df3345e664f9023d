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
/// receives one i32 (two elements) of each matrix. Ordered with the stores
/// and barriers around it (it reads shared memory).
llvm::SmallVector<mlir::Value> loadMatrices(mlir::OpBuilder &b, mlir::Location loc,
                                            mlir::Value address, unsigned count, bool trans);

/// mma.sync.aligned.m16n8k16.row.col.f32.{bf16|f16}: d = a b + c for one
/// 16 x 8 block, with a four i32 (eight 16-bit elements), b two, c and the
/// result four f32, in the PTX fragment order.
llvm::SmallVector<mlir::Value> multiplyAccumulate(mlir::OpBuilder &b, mlir::Location loc,
                                                  mlir::ValueRange a, mlir::ValueRange bFrag,
                                                  mlir::ValueRange c, bool f16);

} // namespace megac::mma
