// Masked global accesses as predicated PTX instructions
// (`@p ld.global.v4.b32`), written as inline assembly.
//
// Why: a masked access lowered as a branch around a plain load splits the
// kernel into basic blocks, and neither LLVM nor ptxas moves a load across
// them, so a kernel's loads issue one after another with the math in
// between. A predicated instruction keeps the kernel straight-line code that
// ptxas schedules freely (all loads first). The assembly is marked as having
// side effects so that LLVM keeps it in program order with the kernel's other
// memory operations (it cannot see what the assembly touches).
#ifndef MEGAC_CONVERSION_PREDICATEDACCESS_H
#define MEGAC_CONVERSION_PREDICATEDACCESS_H

#include "mlir/IR/Builders.h"

namespace megac::ptx {

/// Whether an access of `bytes` bytes is one predicated instruction: 4, 8
/// or 16 bytes (1, 2 or 4 32-bit words).
bool predicatable(int64_t bytes);

/// An unmasked scalar load of 2, 4 or 8 bytes as `ld.global.b16/b32/b64`
/// inline asm with side effects, as `type` (null for other sizes). The code
/// generator keeps such loads where they are: tile-hoist-scalar-loads put
/// them first so that they are in flight with the tile loads, and the
/// backend's scheduler would otherwise sink a plain load to its first use.
mlir::Value loadScalarInOrder(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                              int64_t bytes, mlir::Type type);

/// Loads `others.size()` consecutive i32 words at `ptr` when `pred` (i1)
/// holds; otherwise the result is `others`.
llvm::SmallVector<mlir::Value> loadWords(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value ptr, mlir::Value pred,
                                         llvm::ArrayRef<mlir::Value> others);

/// Stores `value` (8 or 16 bits: a scalar or a vector) at `ptr` when `pred`
/// (i1) holds, as one `@p st.global.b8/b16`: a masked byte store (FP8 or
/// NVFP4 scales, a bf16 scalar) then needs no branch either. A null `pred`
/// stores unconditionally; `cache` is a cache operator for the instruction
/// (".cs"), empty for none.
void storeNarrow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr, mlir::Value pred,
                 mlir::Value value, llvm::StringRef cache = "");

/// Stores the i32 `words` consecutively at `ptr` when `pred` (i1) holds
/// (always, for a null `pred`), with the cache operator `cache`.
void storeWords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                mlir::Value pred, llvm::ArrayRef<mlir::Value> words,
                llvm::StringRef cache = "");

/// A value of `bytes` bytes (a scalar or a vector) as i32 words, and back.
llvm::SmallVector<mlir::Value> toWords(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value v);
mlir::Value fromWords(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> words, mlir::Type type);

} // namespace megac::ptx

#endif
