// Removes layout conversions that cost shared-memory round trips for nothing:
// a conversion of a value computed only from ranges, splats, constants and
// elementwise arithmetic is replaced by computing it in the wanted layout;
// conversions to the same layout and back-to-back conversions fold.
#include "Tile/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

// convert_layout(v) where v is computed only from ranges, splats, constants
// and elementwise arithmetic: clone that computation in the wanted layout.
struct RematerializeCheapTiles : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isCheapOp(Operation *op) {
    if (isa<ArangeOp, SplatOp, arith::ConstantOp, AddPtrOp>(op))
      return true;
    return isa<arith::ArithDialect>(op->getDialect()) && op->getNumResults() == 1;
  }

  // Collects the ops to clone, operands first; false if anything is costly.
  static bool collect(Value v, SmallVector<Operation *> &order,
                      DenseSet<Operation *> &seen, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def || depth > 8 || !isCheapOp(def))
      return false;
    if (seen.contains(def))
      return true;
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()) &&
          !collect(operand, order, seen, depth + 1))
        return false;
    seen.insert(def);
    order.push_back(def);
    return true;
  }

  LogicalResult matchAndRewrite(ConvertLayoutOp conv,
                                PatternRewriter &rewriter) const override {
    SmallVector<Operation *> order;
    DenseSet<Operation *> seen;
    if (!collect(conv.getSrc(), order, seen, 0))
      return failure();
    Attribute layout = conv.getType().getEncoding();
    IRMapping mapping;
    for (Operation *op : order) {
      Operation *clone = rewriter.clone(*op, mapping);
      for (Value r : clone->getResults()) {
        auto t = cast<RankedTensorType>(r.getType());
        r.setType(RankedTensorType::get(t.getShape(), t.getElementType(), layout));
      }
      if (auto cst = dyn_cast<arith::ConstantOp>(clone))
        if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
          cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
    }
    rewriter.replaceOp(conv, mapping.lookup(conv.getSrc()));
    return success();
  }
};

struct TileRemoveLayoutConversions
    : public tile::impl::TileRemoveLayoutConversionsBase<
          TileRemoveLayoutConversions> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RematerializeCheapTiles>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
