// Gives every tile.convert_layout that must go through shared memory (the
// layouts are not equivalent and warp shuffles cannot do it) the buffer
// layout with the fewest bank conflicts on both its write and its read side
// (layout::chooseSharedLayout), as its `shared` attribute. The lowering uses
// that layout; the attribute makes the choice visible in the IR.
#include "Tile/Analysis/RegisterEstimate.h"
#include "Tile/Transforms/Passes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNSHAREDLAYOUTS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
namespace layout = megac::layout;

namespace {

struct TileAssignSharedLayouts
    : public mlir::tile::impl::TileAssignSharedLayoutsBase<TileAssignSharedLayouts> {
  void runOnOperation() override {
    getOperation().walk([](ConvertLayoutOp op) {
      if (op->hasAttr(attr::kShared))
        return; // chosen by hand
      auto type = op.getType();
      auto src = tileLayoutOf(op.getSrc().getType()), dst = tileLayoutOf(type);
      if (!src || !dst)
        return;
      layout::Shape shape(type.getShape().begin(), type.getShape().end());
      unsigned warps = unsigned(getNumWarps(op));
      if (layout::classifyConversion(*src, *dst, shape, warps) !=
          layout::ConversionKind::SharedMemory)
        return;
      layout::SharedPlan plan = layout::chooseSharedLayout(
          *src, *dst, shape, warps, sharedElementBytes(type.getElementType()));
      op->setAttr(attr::kShared, sharedLayoutAttr(op.getContext(), plan.layout));
    });
  }
};

} // namespace
