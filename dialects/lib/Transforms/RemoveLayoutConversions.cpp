// Removes layout conversions that cost shared-memory round trips for nothing:
// a conversion of a value computed only from ranges, splats, constants and
// elementwise arithmetic is replaced by computing it in the wanted layout, a
// conversion of a load by loading in the wanted layout; conversions to the
// same layout and back-to-back conversions fold.
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

// convert_layout(v) where v is computed only from ranges, splats, constants,
// broadcasts, expand_dims and elementwise arithmetic: recompute v directly in
// the wanted layout (an expand_dims wants its operand in the slice of that
// layout; everything else wants its operands in the same layout).
struct RematerializeCheapTiles : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isCheapOp(Operation *op) {
    if (isa<ArangeOp, SplatOp, arith::ConstantOp, AddPtrOp, BroadcastOp,
            ExpandDimsOp>(op))
      return true;
    return isa<arith::ArithDialect>(op->getDialect()) && op->getNumResults() == 1;
  }

  // The layout `op`'s tile operand must have for its result to be `layout`.
  static Attribute operandLayout(Operation *op, Attribute layout) {
    if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      auto blocked = dyn_cast<BlockedEncodingAttr>(layout);
      if (!blocked)
        return {};
      return SliceEncodingAttr::get(op->getContext(), expand.getAxis(), blocked);
    }
    return layout;
  }

  static bool canRecompute(Value v, Attribute layout, int depth) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getEncoding() == layout)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || depth > 12 || !isCheapOp(def))
      return false;
    Attribute inner = operandLayout(def, layout);
    if (!inner)
      return false;
    for (Value operand : def->getOperands())
      if (!canRecompute(operand, inner, depth + 1))
        return false;
    return true;
  }

  static Value recompute(Value v, Attribute layout, PatternRewriter &rewriter,
                         DenseMap<std::pair<Value, Attribute>, Value> &done) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getEncoding() == layout)
      return v;
    auto key = std::make_pair(v, layout);
    if (Value known = done.lookup(key))
      return known;
    Operation *def = v.getDefiningOp();
    Attribute inner = operandLayout(def, layout);
    IRMapping mapping;
    for (Value operand : def->getOperands())
      mapping.map(operand, recompute(operand, inner, rewriter, done));
    Operation *clone = rewriter.clone(*def, mapping);
    Value result = clone->getResult(0);
    result.setType(RankedTensorType::get(t.getShape(), t.getElementType(), layout));
    if (auto cst = dyn_cast<arith::ConstantOp>(clone))
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
    done[key] = result;
    return result;
  }

  LogicalResult matchAndRewrite(ConvertLayoutOp conv,
                                PatternRewriter &rewriter) const override {
    Attribute layout = conv.getType().getEncoding();
    if (!conv.getSrc().getDefiningOp() || !canRecompute(conv.getSrc(), layout, 0))
      return failure();
    DenseMap<std::pair<Value, Attribute>, Value> done;
    rewriter.replaceOp(conv, recompute(conv.getSrc(), layout, rewriter, done));
    return success();
  }
};

// convert_layout(load(ptr, mask, other)), the load used only there, whose
// operands can be recomputed in the wanted layout (addresses and masks from
// ranges and splats), and whose access that layout keeps as wide and as
// coalesced: load in that layout instead, where the load was. This is how
// `with_layout(load(...))` places a load, with no shared-memory trip.
struct LoadInWantedLayout : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertLayoutOp conv,
                                PatternRewriter &rewriter) const override {
    auto load = conv.getSrc().getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse())
      return failure();
    Attribute layout = conv.getType().getEncoding();
    // Only where the memory access stays as good: the same fastest
    // dimension, at least as many elements per thread along it (vectors as
    // wide or wider, lanes still along that dimension). A transposing
    // layout keeps its conversion. A layout the user chose (with_layout)
    // needs only the same fastest dimension: fewer elements a thread along
    // it is theirs to choose (lanes over a short row's elements, e.g.).
    auto from = dyn_cast<BlockedEncodingAttr>(conv.getSrc().getType().getEncoding());
    auto to = dyn_cast<BlockedEncodingAttr>(layout);
    if (!from || !to || from.getOrder() != to.getOrder())
      return failure();
    unsigned fast = to.getOrder()[0];
    if (to.getSizePerThread()[fast] < from.getSizePerThread()[fast] &&
        !conv->hasAttr(attr::kExplicitLayout))
      return failure();
    for (Value operand : load->getOperands())
      if (!RematerializeCheapTiles::canRecompute(operand, layout, 0))
        return failure();
    rewriter.setInsertionPoint(load);
    DenseMap<std::pair<Value, Attribute>, Value> done;
    IRMapping mapping;
    for (Value operand : load->getOperands())
      mapping.map(operand, RematerializeCheapTiles::recompute(operand, layout, rewriter, done));
    Operation *moved = rewriter.clone(*load, mapping);
    moved->getResult(0).setType(conv.getType());
    rewriter.replaceOp(conv, moved->getResults());
    rewriter.eraseOp(load);
    return success();
  }
};

struct TileRemoveLayoutConversions
    : public tile::impl::TileRemoveLayoutConversionsBase<
          TileRemoveLayoutConversions> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RematerializeCheapTiles, LoadInWantedLayout>(&getContext());
    // The canonicalizer runs next (Compiler.cpp) and simplifies the regions
    // and uniques the constants itself: done here too, they took about half
    // of this pass's time, for the same PTX (the tile IR lists a few
    // constants in another order).
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled)
        .enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
    // The marker has served (LoadInWantedLayout): the IR is as before it.
    getOperation()->walk([](ConvertLayoutOp conv) { conv->removeAttr(attr::kExplicitLayout); });
  }
};

} // namespace
