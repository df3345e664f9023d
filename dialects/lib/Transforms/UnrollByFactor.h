// Unrolls an scf.for by `factor` (a remainder loop when the trip count is
// not a known multiple): mlir::loopUnrollByFactor behind a header that does
// not pull in mlir/Dialect/SCF/Utils (see UnrollByFactor.cpp).
#ifndef MEGAC_TRANSFORMS_UNROLLBYFACTOR_H
#define MEGAC_TRANSFORMS_UNROLLBYFACTOR_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace megac {
mlir::LogicalResult unrollByFactor(mlir::Operation *forOp, uint64_t factor);
} // namespace megac

#endif
