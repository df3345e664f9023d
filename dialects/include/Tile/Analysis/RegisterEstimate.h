// How many 32-bit registers a thread needs for the tiles of a kernel, from
// their layouts, before any LLVM or ptxas: the peak, over program points, of
// the registers of the tile values live there. A tile of layout L and shape
// S takes numRegisters(L, S) registers of its element, weighed in 32-bit
// registers (f32/i32 1, f16/bf16 and narrower 0.5, i64/f64/pointers 2, i1 1).
// Tiles computed only from ranges, splats and constants (offsets, pointers
// and masks built from arange) count as one register: a thread's registers
// of such a tile differ by constants that LLVM folds into immediates.
// broadcast, expand_dims and conversions between equivalent layouts share
// their operand's registers. Scalars and ptxas's own temporaries are not
// counted, and a value lives from its definition to its last use (to the
// end of a loop when used inside it).
#ifndef MEGAC_TILE_ANALYSIS_REGISTERESTIMATE_H
#define MEGAC_TILE_ANALYSIS_REGISTERESTIMATE_H

#include "Tile/Layout/BlockedLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::func {
class FuncOp;
}

namespace mlir::tile {

/// The layout algebra's view of a tile type's encoding (none without one).
std::optional<megac::layout::TileLayout> tileLayoutOf(RankedTensorType type);

/// 32-bit registers per element of `elem` held in a register.
double registerWeight(Type elem);

struct RegisterEstimate {
  int64_t registers = 0;       // the peak, rounded up
  Operation *peak = nullptr;   // where it is reached
  int64_t liveTiles = 0;       // how many tile values are live there
  // The tile value with the most elements per thread, and how many. The
  // lowering gives each element a thread holds instructions of its own, so
  // this is how far the kernel's code is unrolled, whatever registers it
  // needs. Null when the kernel has no tile with a layout.
  Value widest;
  int64_t widestElements = 0;
};

RegisterEstimate estimateRegisters(func::FuncOp func);

} // namespace mlir::tile

#endif
