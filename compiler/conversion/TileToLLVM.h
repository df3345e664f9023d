// Lowering of tile kernels to the LLVM and NVVM dialects.
//
// Every tile value becomes the list of registers one thread holds (its
// layout says which elements those are); tile ops become per-register scalar
// code, vectorized global accesses, warp shuffles and shared-memory
// exchanges. Upstream conversions then finish arith/scf/cf to LLVM.
#ifndef MEGAC_CONVERSION_TILETOLLVM_H
#define MEGAC_CONVERSION_TILETOLLVM_H

#include "mlir/IR/BuiltinOps.h"
#include <memory>

namespace mlir {
class DialectRegistry;
class Pass;
} // namespace mlir

namespace megac {

struct Target;

/// Lowers every func.func marked tile.kernel in `module` to an llvm.func
/// kernel, in place. Unsupported constructs are reported as located errors.
mlir::LogicalResult lowerTileToLLVM(mlir::ModuleOp module, const Target &target);

/// Dialects the lowering creates (LLVM, NVVM, arith, scf, cf, math).
void registerLoweringDialects(mlir::DialectRegistry &registry);

/// The `convert-tile-to-llvm` pass for megac-opt (option `target`).
void registerTileToLLVMPass();

} // namespace megac

#endif
