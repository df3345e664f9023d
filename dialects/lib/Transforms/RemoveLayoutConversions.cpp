// Removes layout conversions that cost shared-memory round trips for nothing:
// a conversion of a value made from scratch (range, splat, constant) is
// replaced by making that value directly in the wanted layout; conversions
// to the same layout and back-to-back conversions fold.
#include "Tile/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct RematerializeFreshTiles : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertLayoutOp conv,
                                PatternRewriter &rewriter) const override {
    Operation *src = conv.getSrc().getDefiningOp();
    if (!src || !isa<ArangeOp, SplatOp, arith::ConstantOp>(src))
      return failure();
    Type type = conv.getType();
    Operation *clone = rewriter.clone(*src);
    clone->getResult(0).setType(type);
    if (auto cst = dyn_cast<arith::ConstantOp>(clone))
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        cst.setValueAttr(dense.reshape(cast<ShapedType>(type)));
    rewriter.replaceOp(conv, clone->getResults());
    return success();
  }
};

struct TileRemoveLayoutConversions
    : public tile::impl::TileRemoveLayoutConversionsBase<
          TileRemoveLayoutConversions> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RematerializeFreshTiles>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
