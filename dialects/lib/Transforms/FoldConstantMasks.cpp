// tile-fold-constant-masks: masks that a compile-time constant makes all true
// or all false fold away before layouts are chosen. A variant for shapes that
// fill every tile writes `FULL == 1 || cols < N` with a constant FULL: the
// `||` becomes a splat of true, and then the loads and stores it guards lose
// their masks (no predicate, no zero fill, and the layout pass sees an access
// that no mask limits). i1 `||` and `&&` with a constant operand, `where` with
// a constant condition, loads and stores with constant masks are rewritten;
// nothing else is folded (the canonicalizer runs after the layouts).
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEFOLDCONSTANTMASKS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

// The value of an i1 (or a tile of i1) that is the same constant everywhere:
// an arith.constant, or a splat, broadcast or reshape of one.
std::optional<bool> constantBool(Value v) {
  if (!v || !getElementTypeOrSelf(v.getType()).isInteger(1))
    return std::nullopt;
  if (Operation *def = v.getDefiningOp();
      def && isa<SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp, ConvertLayoutOp>(def))
    return constantBool(def->getOperand(0));
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return !i.getValue().isZero();
  if (auto dense = dyn_cast<SplatElementsAttr>(attr))
    return !dense.getSplatValue<APInt>().isZero();
  return std::nullopt;
}

// x || c and x && c: the constant when it decides, else x.
template <class BoolOp, bool Absorbing>
struct FoldBoolOp : OpRewritePattern<BoolOp> {
  using OpRewritePattern<BoolOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BoolOp op, PatternRewriter &rewriter) const override {
    for (auto [c, x] : {std::pair(op.getLhs(), op.getRhs()), std::pair(op.getRhs(), op.getLhs())}) {
      std::optional<bool> value = constantBool(c);
      if (!value)
        continue;
      rewriter.replaceOp(op, *value == Absorbing ? c : x);
      return success();
    }
    return failure();
  }
};

struct FoldSelect : OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp op, PatternRewriter &rewriter) const override {
    std::optional<bool> value = constantBool(op.getCondition());
    if (!value)
      return failure();
    rewriter.replaceOp(op, *value ? op.getTrueValue() : op.getFalseValue());
    return success();
  }
};

// All true: the load reads every lane. All false: it reads nothing and
// yields `other` (kept when there is none: zero needs a constant of the
// element type, and no kernel writes such a load).
struct FoldLoadMask : OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op, PatternRewriter &rewriter) const override {
    std::optional<bool> value = constantBool(op.getMask());
    if (!value)
      return failure();
    if (*value) {
      rewriter.modifyOpInPlace(op, [&] {
        op.getMaskMutable().clear();
        op.getOtherMutable().clear();
      });
      return success();
    }
    if (!op.getOther())
      return failure();
    rewriter.replaceOp(op, op.getOther());
    return success();
  }
};

struct FoldStoreMask : OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op, PatternRewriter &rewriter) const override {
    std::optional<bool> value = constantBool(op.getMask());
    if (!value)
      return failure();
    if (*value)
      rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
    else
      rewriter.eraseOp(op);
    return success();
  }
};

struct FoldConstantMasks : tile::impl::TileFoldConstantMasksBase<FoldConstantMasks> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBoolOp<arith::OrIOp, true>, FoldBoolOp<arith::AndIOp, false>, FoldSelect,
                 FoldLoadMask, FoldStoreMask>(&getContext());
    // Only these rewrites (and erasing what they leave dead): other ops'
    // folders wait for the canonicalizer after the layouts, as before.
    GreedyRewriteConfig config;
    // Nor region simplification: the IR is structured (scf), and the ops
    // the rewrites leave dead the driver erases itself.
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
