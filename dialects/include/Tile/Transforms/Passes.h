#ifndef MEGAC_TILE_TRANSFORMS_PASSES_H
#define MEGAC_TILE_TRANSFORMS_PASSES_H

#include "Tile/IR/TileDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif
