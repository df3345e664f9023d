// Unrolls an scf.for by `factor`: mlir::loopUnrollByFactor (a remainder loop
// when the trip count is not a known constant multiple; a loop known to run
// at most once is left as it is) or, when the caller
// knows the trip count is a multiple of `factor`, the copies alone. Behind a
// header that does not pull in mlir/Dialect/SCF/Utils (see UnrollByFactor.cpp).
#ifndef MEGAC_TRANSFORMS_UNROLLBYFACTOR_H
#define MEGAC_TRANSFORMS_UNROLLBYFACTOR_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace megac {
mlir::LogicalResult unrollByFactor(mlir::Operation *forOp, uint64_t factor);
// The loop's step times `factor`, its body `factor` times, no remainder loop:
// only for a trip count that is a multiple of `factor` (every bound's).
void unrollByFactorWithoutRemainder(mlir::Operation *forOp, uint64_t factor);
} // namespace megac

#endif
