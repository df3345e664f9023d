// Gives every tile a distributed layout. Values with no tile operands (ranges,
// splats, constants) get the default blocked layout of their shape; other ops
// take the layout of their first tile operand, so slices of reductions flow
// through elementwise code without conversions; reductions produce slices;
// expand_dims of a slice gives back its parent. Operands whose layout differs
// from what their user needs get a tile.convert_layout.
#include "Tile/Layout/BlockedLayout.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

int64_t storageBytes(Type t) {
  if (isa<Float4E2M1FNType>(t) || t.isInteger(1))
    return 1;
  if (isa<PtrType>(t))
    return 8;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

class LayoutAssigner {
public:
  LayoutAssigner(func::FuncOp func) : func(func), ctx(func.getContext()) {
    numWarps = getNumWarps(func);
    int64_t widest = 1;
    func.walk([&](Operation *op) {
      if (isa<LoadOp, StoreOp>(op)) {
        Type p = getElementTypeOrSelf(op->getOperand(0).getType());
        widest = std::max(widest, storageBytes(cast<PtrType>(p).getPointeeType()));
      }
    });
    vectorElems = unsigned(std::max<int64_t>(1, 16 / widest));
  }

  void run() { assignRegion(func.getBody()); }

private:
  Attribute defaultLayout(ArrayRef<int64_t> shape) {
    auto l = megac::layout::Blocked::defaultFor(
        megac::layout::Shape(shape.begin(), shape.end()), numWarps, vectorElems);
    return BlockedEncodingAttr::get(ctx, l.sizePerThread, l.threadsPerWarp,
                                    l.warpsPerCTA, l.order);
  }

  static Attribute encodingOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getEncoding() : Attribute();
  }

  static RankedTensorType withEncoding(RankedTensorType t, Attribute enc) {
    return RankedTensorType::get(t.getShape(), t.getElementType(), enc);
  }

  // Makes `operand` of `user` carry `layout`, converting if needed.
  void require(Operation *user, OpOperand &operand, Attribute layout) {
    auto t = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!t || t.getEncoding() == layout)
      return;
    OpBuilder b(user);
    auto conv = b.create<ConvertLayoutOp>(user->getLoc(), withEncoding(t, layout),
                                          operand.get());
    operand.set(conv);
  }

  void setLayout(Value v, Attribute layout) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      v.setType(withEncoding(t, layout));
  }

  void assignRegion(Region &region) {
    for (Block &block : region)
      for (Operation &op : llvm::make_early_inc_range(block))
        assignOp(&op);
  }

  void assignOp(Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return assignFor(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return assignIf(branch);
    if (auto yield = dyn_cast<scf::YieldOp>(op))
      return; // handled by the parent
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      Attribute src = encodingOf(reduce.getSrc());
      auto blocked = dyn_cast<BlockedEncodingAttr>(src);
      if (!blocked) {
        blocked = cast<BlockedEncodingAttr>(
            defaultLayout(reduce.getSrc().getType().getShape()));
        require(op, op->getOpOperand(0), blocked);
      }
      setLayout(reduce.getResult(),
                SliceEncodingAttr::get(ctx, reduce.getAxis(), blocked));
      return;
    }
    if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      auto slice = dyn_cast<SliceEncodingAttr>(encodingOf(expand.getSrc()));
      if (slice && slice.getDim() == expand.getAxis() &&
          slice.getParent().getSizePerThread().size() ==
              size_t(expand.getResult().getType().getRank())) {
        setLayout(expand.getResult(), slice.getParent());
        return;
      }
      auto layout = cast<BlockedEncodingAttr>(
          defaultLayout(expand.getResult().getType().getShape()));
      require(op, op->getOpOperand(0),
              SliceEncodingAttr::get(ctx, expand.getAxis(), layout));
      setLayout(expand.getResult(), layout);
      return;
    }
    if (auto conv = dyn_cast<ConvertLayoutOp>(op)) {
      if (!encodingOf(conv.getResult()))
        setLayout(conv.getResult(), defaultLayout(conv.getType().getShape()));
      return;
    }

    // Generic: the first tile operand decides; fresh tiles get the default.
    Attribute layout;
    for (Value v : op->getOperands())
      if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
        layout = t.getEncoding();
        break;
      }
    for (OpOperand &operand : op->getOpOperands())
      if (layout)
        require(op, operand, layout);
    for (Value result : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(result.getType());
      if (!t)
        continue;
      Attribute chosen = layout ? layout : defaultLayout(t.getShape());
      setLayout(result, chosen);
      if (auto cst = dyn_cast<arith::ConstantOp>(op))
        if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
          cst.setValueAttr(dense.reshape(cast<ShapedType>(result.getType())));
    }
  }

  void assignFor(scf::ForOp loop) {
    for (auto [init, arg, result] : llvm::zip(
             loop.getInitArgs(), loop.getRegionIterArgs(), loop.getResults())) {
      arg.setType(init.getType());
      result.setType(init.getType());
    }
    assignRegion(loop.getRegion());
    Operation *yield = loop.getBody()->getTerminator();
    for (auto [operand, arg] :
         llvm::zip(yield->getOpOperands(), loop.getRegionIterArgs()))
      if (auto t = dyn_cast<RankedTensorType>(arg.getType()))
        require(yield, operand, t.getEncoding());
  }

  void assignIf(scf::IfOp branch) {
    assignRegion(branch.getThenRegion());
    assignRegion(branch.getElseRegion());
    if (branch.getNumResults() == 0)
      return;
    Operation *thenYield = branch.thenBlock()->getTerminator();
    Operation *elseYield = branch.elseBlock()->getTerminator();
    for (unsigned i = 0; i < branch.getNumResults(); ++i) {
      Value result = branch.getResult(i);
      auto t = dyn_cast<RankedTensorType>(result.getType());
      if (!t)
        continue;
      Attribute layout = encodingOf(thenYield->getOperand(i));
      setLayout(result, layout);
      require(elseYield, elseYield->getOpOperand(i), layout);
    }
  }

  func::FuncOp func;
  MLIRContext *ctx;
  unsigned numWarps;
  unsigned vectorElems;
};

struct TileAssignLayouts
    : public tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) { LayoutAssigner(func).run(); });
  }
};

} // namespace
