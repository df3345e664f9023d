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
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class Pass;
namespace func {
class FuncOp;
}
} // namespace mlir

namespace megac {

struct Target;

/// Lowers every func.func marked tile.kernel in `module` to an llvm.func
/// kernel, in place. Unsupported constructs are reported as located errors.
mlir::LogicalResult lowerTileToLLVM(mlir::ModuleOp module, const Target &target);

/// Dialects the lowering creates (LLVM, NVVM, arith, scf, cf, math).
void registerLoweringDialects(mlir::DialectRegistry &registry);

/// A kernel's reductions that @fused_reductions reduces together
/// (conversion/ReductionGroups.cpp), for `megac --emit layouts`: each group of
/// more than one reduction, or of one with several values a thread, whether
/// its butterfly is shared (`fused`) or kept plain by the cost rule, and the
/// shuffles and selects either way. Empty for a kernel without the attribute.
struct ReductionGroupInfo {
  std::vector<mlir::Operation *> members; // in the block's order
  std::string kind;                       // sum, max or min
  int64_t partials = 0;                   // values a thread, all members
  int64_t shuffles = 0, selects = 0, plainShuffles = 0;
  bool fused = false;
};
std::vector<ReductionGroupInfo> describeReductionGroups(mlir::func::FuncOp func);

/// The `convert-tile-to-llvm` pass for megac-opt (option `target`).
void registerTileToLLVMPass();

} // namespace megac

#endif
