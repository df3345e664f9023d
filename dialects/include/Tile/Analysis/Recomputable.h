// Tiles computed only from ranges, splats and constants (through
// elementwise arithmetic, pointer offsets, broadcasts and expand_dims):
// offsets, addresses and masks. Any layout can recompute them for free, and
// their registers differ by constants that LLVM folds into immediates.
#ifndef MEGAC_TILE_ANALYSIS_RECOMPUTABLE_H
#define MEGAC_TILE_ANALYSIS_RECOMPUTABLE_H

#include "mlir/IR/Value.h"

namespace mlir::tile {

/// True when `v` is such a tile (looking at most `maxDepth` ops back).
bool isRecomputable(Value v, int maxDepth = 8);

} // namespace mlir::tile

#endif
