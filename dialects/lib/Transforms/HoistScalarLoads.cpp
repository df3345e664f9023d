// tile-hoist-scalar-loads: a scalar load (a scale, a per-head parameter, a
// length) moves up its block to just after what it depends on: the ops that
// compute its address and mask, and the last op before it that may write
// memory. Written where its value is first needed, such a load would start
// only after the tile arithmetic before it, a second trip to memory after
// the tile loads; hoisted, both are in flight together. At small shapes that
// round trip is most of the kernel's time. Tile loads keep their place: they
// already come first in a kernel, and moving them would lengthen the live
// ranges of whole tiles.
#include "Tile/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEHOISTSCALARLOADS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

bool mayWrite(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  if (!effects)
    return true; // unknown effects: a write, to be safe
  return llvm::any_of(*effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect());
  });
}

// Moves `op` to just after the latest of `floor` and its operands' producers
// in its block, first moving producers that are pure the same way.
void hoist(Operation *op, Operation *floor) {
  Block *block = op->getBlock();
  Operation *after = floor;
  for (Value v : op->getOperands()) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      continue;
    if (isPure(def) && def->getNumRegions() == 0 && (!floor || floor->isBeforeInBlock(def)))
      hoist(def, floor);
    if (!after || after->isBeforeInBlock(def))
      after = def;
  }
  if (after)
    op->moveAfter(after);
  else
    op->moveBefore(block, block->begin());
}

struct HoistScalarLoads : tile::impl::TileHoistScalarLoadsBase<HoistScalarLoads> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      SmallVector<Operation *> ops;
      for (Operation &op : *block)
        ops.push_back(&op);
      Operation *lastWrite = nullptr;
      for (Operation *op : ops) {
        auto load = dyn_cast<LoadOp>(op);
        if (load && !isa<RankedTensorType>(load.getType()))
          hoist(op, lastWrite);
        else if (mayWrite(op))
          lastWrite = op;
      }
    }
  }
};

} // namespace
