#include "Tile/Analysis/Recomputable.h"
#include "Tile/IR/TileDialect.h"

namespace mlir::tile {

bool isRecomputable(Value v, int maxDepth) {
  Operation *def = v.getDefiningOp();
  if (!def || maxDepth < 0)
    return false;
  if (isa<ArangeOp, SplatOp, arith::ConstantOp>(def))
    return true;
  if (!isa<AddPtrOp, BroadcastOp, ExpandDimsOp, ConvertLayoutOp, TransOp>(def) &&
      !isa<arith::ArithDialect>(def->getDialect()))
    return false;
  for (Value operand : def->getOperands())
    if (isa<RankedTensorType>(operand.getType()) &&
        !isRecomputable(operand, maxDepth - 1))
      return false;
  return true;
}

} // namespace mlir::tile
