// MLIR's scf.for unrolling, in a file of its own: mlir/Dialect/SCF/Utils
// declares a function mlir::tile, which clashes with this dialect's namespace,
// so no Tile header may be included here.
#include "UnrollByFactor.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

mlir::LogicalResult megac::unrollByFactor(mlir::Operation *forOp, uint64_t factor) {
  return mlir::loopUnrollByFactor(mlir::cast<mlir::scf::ForOp>(forOp), factor);
}
