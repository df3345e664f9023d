// Gives every tile a distributed layout. All tiles of one rank share one
// blocked layout, chosen for the largest shape of that rank (layouts do not
// depend on the shape: smaller tiles wrap or replicate), so broadcasts and
// expand_dims never move data. Values with no tile operands (ranges, splats,
// constants) get that layout; reductions produce slices; expand_dims of a
// slice gives back its parent; other ops take the layout of their first
// operand that is costly to recompute (else their first tile operand), and
// operands in another layout get a tile.convert_layout. Conversions of
// cheap values are then rematerialized by tile-remove-layout-conversions.
//
// tile.dot fixes its accumulator's layout (layout::dotLayout). What is
// computed from a dot result (softmax of a score tile, its row maxima, the
// rescaled accumulator) is anchored to that layout: tiles that meet those
// values, loop-carried ones included (their initial values), are made in it,
// so a flash-attention loop converts nothing. tile.trans swaps its source's
// layout's dimensions.
#include "Tile/Analysis/Recomputable.h"
#include "Tile/Layout/BlockedLayout.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <map>

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
      // A tile one element wide along its fastest dimension (a column of
      // per-row scales) is never a vector access: its element width must not
      // narrow the vectors of the kernel's wide tiles.
      if (!isa<LoadOp, StoreOp>(op))
        return;
      auto tile = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      if (tile && tile.getRank() > 0 && tile.getShape().back() > 1) {
        Type p = getElementTypeOrSelf(tile);
        widest = std::max(widest, storageBytes(cast<PtrType>(p).getPointeeType()));
      }
    });
    vectorElems = unsigned(std::max<int64_t>(1, 16 / widest));
    // Every dot of the kernel splits its warps alike (as far along N as the
    // narrowest dot allows), so that their results meet without conversion
    // (a score tile's row maxima scale the next dot's accumulator).
    func.walk([&](DotOp dot) {
      dotWarpsAlongN = std::min<unsigned>(dotWarpsAlongN,
                                          unsigned(std::max<int64_t>(1, dot.getType().getDimSize(1) / 8)));
    });
    func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(t)) {
          auto &shape = largest[tensor.getRank()];
          shape.resize(tensor.getRank(), 1);
          for (int64_t d = 0; d < tensor.getRank(); ++d)
            shape[d] = std::max(shape[d], tensor.getDimSize(d));
        }
    });
  }

  // False when a tile.dot cannot be laid out (reported at the dot).
  bool run() {
    collectAnchors();
    collectPreferences();
    assignRegion(func.getBody());
    return !failed;
  }

private:
  Attribute defaultLayout(ArrayRef<int64_t> shape) {
    const auto &anchor = largest[shape.size()];
    auto l = megac::layout::Blocked::defaultFor(anchor, numWarps, vectorElems);
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
    auto conv = ConvertLayoutOp::create(b, user->getLoc(), withEncoding(t, layout),
                                          operand.get());
    operand.set(conv);
  }

  void setLayout(Value v, Attribute layout) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      v.setType(withEncoding(t, layout));
  }

  // Stops at the first dot that cannot be laid out: what uses its result has
  // no layout to follow, and the pass fails with that dot's error.
  void assignRegion(Region &region) {
    for (Block &block : region)
      for (Operation &op : llvm::make_early_inc_range(block)) {
        if (failed)
          return;
        assignOp(&op);
      }
  }

  // Block-scaled FP4 keeps each block of `block` elements in one thread:
  // the full tile has `block` contiguous elements per thread, its packed
  // values block/2 and its scales one, with the same lanes and warps, so
  // register i of the values is the pair (2i, 2i+1) of the full tile and
  // register i of the scales the block i.
  struct Fp4Layouts {
    Attribute full, values, scales;
  };
  Fp4Layouts fp4Layouts(ArrayRef<int64_t> fullShape, unsigned block) {
    auto l = megac::layout::Blocked::defaultFor(
        megac::layout::Shape(fullShape.begin(), fullShape.end()), numWarps, block);
    auto make = [&](unsigned perThread) {
      SmallVector<unsigned> spt(l.sizePerThread.begin(), l.sizePerThread.end());
      spt[l.order[0]] = perThread;
      return BlockedEncodingAttr::get(ctx, spt, l.threadsPerWarp, l.warpsPerCTA,
                                      l.order);
    };
    return {make(block), make(block / 2), make(1)};
  }
  static unsigned fp4Block(StringRef scheme) { return scheme == "nvfp4" ? 16 : 32; }

  // The accumulator layout of a dot (collectAnchors made it); null, after
  // reporting why, when the warps cannot tile its result.
  Attribute dotLayoutOf(DotOp dot) {
    if (Attribute l = anchors.lookup(dot.getResult()))
      return l;
    auto shape = dot.getAcc().getType().getShape();
    std::string why, hint;
    megac::layout::dotLayout(shape[0], shape[1], numWarps, &why, dotWarpsAlongN);
    if (!megac::layout::dotLayout(shape[0], shape[1], numWarps)) { // not even alone
      why = "cannot lay out this dot: " + why;
      hint = "a larger tile, or fewer warps (@num_warps)";
    } else {
      why = "the dots of a kernel split their warps alike: the narrowest (N < " +
            std::to_string(16 * dotWarpsAlongN) + ") puts " + std::to_string(dotWarpsAlongN) +
            " along N and " + std::to_string(numWarps / dotWarpsAlongN) +
            " along M, so this dot's M = " + std::to_string(shape[0]) +
            " must be a multiple of " + std::to_string(16 * (numWarps / dotWarpsAlongN));
      hint = "widen the narrow dot, or give this one more rows";
    }
    dot.emitError(why).attachNote() << kHintPrefix << hint;
    failed = true;
    return {};
  }

  void assignOp(Operation *op) {
    if (auto dot = dyn_cast<DotOp>(op)) {
      // a and b stay where they are: the lowering stages them in shared memory.
      if (Attribute l = dotLayoutOf(dot)) {
        require(op, op->getOpOperand(2), l);
        setLayout(dot.getResult(), l);
      }
      return;
    }
    if (auto trans = dyn_cast<TransOp>(op)) {
      auto src = dyn_cast<BlockedEncodingAttr>(encodingOf(trans.getSrc()));
      if (!src) {
        src = cast<BlockedEncodingAttr>(defaultLayout(trans.getSrc().getType().getShape()));
        require(op, op->getOpOperand(0), src);
      }
      setLayout(trans.getResult(), blockedAttr(ctx, megac::layout::transposed(toLayout(src))));
      return;
    }
    if (auto q = dyn_cast<QuantizeOp>(op)) {
      Fp4Layouts l = fp4Layouts(q.getSrc().getType().getShape(), fp4Block(q.getScheme()));
      require(op, op->getOpOperand(0), l.full);
      setLayout(q.getValues(), l.values);
      setLayout(q.getScales(), l.scales);
      return;
    }
    if (auto d = dyn_cast<DequantizeOp>(op)) {
      Fp4Layouts l = fp4Layouts(d.getResult().getType().getShape(), fp4Block(d.getScheme()));
      require(op, op->getOpOperand(0), l.values);
      require(op, op->getOpOperand(1), l.scales);
      setLayout(d.getResult(), l.full);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return assignFor(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return assignIf(branch);
    if (auto yield = dyn_cast<scf::YieldOp>(op))
      return; // handled by the parent
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      Attribute src = encodingOf(reduce.getSrc());
      auto blocked = dyn_cast<BlockedEncodingAttr>(src);
      // A sliced 1-D tile reduces to a scalar in place.
      if (!blocked && reduce.getSrc().getType().getRank() == 1)
        return;
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
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      // Elements move between threads anyway: the result takes its rank's
      // layout (or the one its users prefer).
      auto it = preferred.find(reshape.getResult());
      setLayout(reshape.getResult(), it != preferred.end()
                                         ? it->second
                                         : defaultLayout(reshape.getType().getShape()));
      return;
    }
    if (auto conv = dyn_cast<ConvertLayoutOp>(op)) {
      if (Attribute wanted = conv->getAttr(attr::kWantedLayout)) {
        setLayout(conv.getResult(), wanted);
        placed.insert(conv.getResult());
        conv->removeAttr(attr::kWantedLayout);
        conv->setAttr(attr::kExplicitLayout, UnitAttr::get(ctx));
      } else if (!encodingOf(conv.getResult())) {
        setLayout(conv.getResult(), defaultLayout(conv.getType().getShape()));
      }
      return;
    }

    // Generic: the first costly tile operand decides; fresh tiles get the
    // rank's layout. A store looks at its value first: pointers computed by
    // a long chain of index arithmetic (a swizzled layout's divisions and
    // remainders) are not "cheap" to isRecomputable, but converting them is
    // a question of recomputing addresses, while converting the value moves
    // data between threads (through shared memory).
    SmallVector<Value, 3> operands(op->getOperands());
    if (auto store = dyn_cast<StoreOp>(op))
      std::stable_partition(operands.begin(), operands.end(),
                            [&](Value v) { return v == store.getValue(); });
    Attribute layout, cheapLayout;
    // A tile the user placed (with_layout, or computed from one in its
    // layout) decides first: their layout is kept, the other operands move.
    auto firstPlaced = llvm::find_if(operands, [&](Value v) { return placed.contains(v); });
    bool followsPlaced = firstPlaced != operands.end();
    if (followsPlaced)
      layout = cast<RankedTensorType>(firstPlaced->getType()).getEncoding();
    for (Value v : followsPlaced ? ValueRange{} : ValueRange(operands))
      if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
        if (!cheapLayout)
          cheapLayout = t.getEncoding();
        if (!isRecomputable(v)) {
          layout = t.getEncoding();
          break;
        }
      }
    // A store of a tile computed from a dot stays in the dot's layout: its
    // pointers and mask are recomputed there instead.
    if (auto store = dyn_cast<StoreOp>(op))
      if (anchors.count(store.getValue()))
        layout = encodingOf(store.getValue());
    bool followsCostly = bool(layout);
    if (!layout)
      layout = cheapLayout;
    // A tile that will be expanded (x[:, None]) is best made directly in the
    // slice layout its expansion needs: no conversion later. Not when a
    // costly operand has a layout already (a reduction of a tile placed by
    // with_layout): converting that would cost more.
    if (op->getNumResults() == 1 && !followsCostly) {
      auto it = preferred.find(op->getResult(0));
      if (it != preferred.end())
        layout = it->second;
    }
    for (OpOperand &operand : op->getOpOperands())
      if (layout)
        require(op, operand, layout);
    // The other operands' conversions go to the user's layout too: a load
    // among them is made in it (tile-remove-layout-conversions).
    if (followsPlaced) {
      for (Value operand : op->getOperands())
        if (auto conv = operand.getDefiningOp<ConvertLayoutOp>(); conv && !placed.contains(operand))
          conv->setAttr(attr::kExplicitLayout, UnitAttr::get(ctx));
      for (Value result : op->getResults())
        placed.insert(result);
    }
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
    if (failed)
      return;
    Operation *yield = loop.getBody()->getTerminator();
    for (auto [operand, arg] :
         llvm::zip(yield->getOpOperands(), loop.getRegionIterArgs()))
      if (auto t = dyn_cast<RankedTensorType>(arg.getType()))
        require(yield, operand, t.getEncoding());
  }

  void assignIf(scf::IfOp branch) {
    assignRegion(branch.getThenRegion());
    assignRegion(branch.getElseRegion());
    if (failed || branch.getNumResults() == 0)
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

  // Forward from every tile.dot: its result is in the dot layout, and so is
  // what elementwise ops, broadcasts and expand_dims of slices compute from
  // an anchored tile of their shape (and a loop's result whose yielded value
  // is anchored); a reduction of one is its slice.
  void collectAnchors() {
    func.walk([&](Operation *op) {
      if (auto dot = dyn_cast<DotOp>(op)) {
        auto shape = dot.getAcc().getType().getShape();
        if (auto l = megac::layout::dotLayout(shape[0], shape[1], numWarps, nullptr, dotWarpsAlongN))
          anchors[dot.getResult()] = blockedAttr(ctx, *l);
        return;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) { // after its body (post-order)
        Operation *yield = loop.getBody()->getTerminator();
        for (auto [yielded, result] : llvm::zip(yield->getOperands(), loop.getResults()))
          if (Attribute l = anchors.lookup(yielded))
            anchors[result] = l;
        return;
      }
      if (op->getNumResults() != 1)
        return;
      Value result = op->getResult(0);
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type)
        return;
      if (auto reduce = dyn_cast<ReduceOp>(op)) {
        auto it = anchors.find(reduce.getSrc());
        if (it != anchors.end())
          if (auto blocked = dyn_cast<BlockedEncodingAttr>(it->second))
            anchors[result] = SliceEncodingAttr::get(ctx, reduce.getAxis(), blocked);
        return;
      }
      if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
        auto it = anchors.find(expand.getSrc());
        if (it == anchors.end())
          return;
        auto slice = dyn_cast<SliceEncodingAttr>(it->second);
        if (slice && slice.getDim() == expand.getAxis())
          anchors[result] = slice.getParent();
        return;
      }
      if (!isa<BroadcastOp>(op) && !isElementwiseLike(op))
        return;
      for (Value operand : op->getOperands()) {
        auto it = anchors.find(operand);
        auto t = dyn_cast<RankedTensorType>(operand.getType());
        if (it != anchors.end() && t && t.getRank() == type.getRank() &&
            (t.getShape() == type.getShape() || isa<BroadcastOp>(op))) {
          // A copy first: inserting `result` may move the map's buckets,
          // and `it` with them.
          Attribute layout = it->second;
          anchors[result] = layout;
          return;
        }
      }
    });
  }

  // Walks the function backwards from every expand_dims of a 1-to-2-D tile:
  // its operand, and the elementwise ops and loads that make it, prefer the
  // slice of the expanded tile's layout. Anchored tiles (collectAnchors) make
  // the tiles they meet prefer their layout instead, and a dot its
  // accumulator; a loop-carried tile passes its preference to its initial
  // value.
  void collectPreferences() {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : llvm::reverse(ops)) {
      if (auto dot = dyn_cast<DotOp>(op)) {
        if (Attribute l = anchors.lookup(dot.getResult()))
          prefer(dot.getAcc(), l);
        // An operand loaded for the dot alone is read in 16-byte vectors,
        // whatever the kernel's other tiles use (it goes to shared memory);
        // so are both loads of an operand carried around a loop (prefetched).
        for (Value operand : {dot.getA(), dot.getB()}) {
          Value loaded = operand;
          if (auto trans = operand.getDefiningOp<TransOp>())
            loaded = trans.getSrc();
          SmallVector<Value> loads{loaded};
          if (auto arg = dyn_cast<BlockArgument>(loaded))
            if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
                loop && arg.getArgNumber() > 0)
              loads = {loop.getTiedLoopInit(arg)->get(),
                       loop.getTiedLoopYieldedValue(arg)->get()};
          for (Value v : loads) {
            auto load = v.getDefiningOp<LoadOp>();
            auto type = load ? dyn_cast<RankedTensorType>(load.getType()) : RankedTensorType();
            if (!type || !load->hasOneUse())
              continue;
            auto l = megac::layout::Blocked::defaultFor(
                megac::layout::Shape(type.getShape().begin(), type.getShape().end()), numWarps,
                unsigned(16 / storageBytes(type.getElementType())));
            prefer(load.getResult(), blockedAttr(ctx, l));
          }
        }
        continue;
      }
      if (op->getNumResults() == 1) {
        if (Attribute l = anchors.lookup(op->getResult(0))) {
          auto shape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
          if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
            prefer(expand.getSrc(), SliceEncodingAttr::get(ctx, expand.getAxis(),
                                                           cast<BlockedEncodingAttr>(l)));
            continue;
          }
          if (isa<BroadcastOp>(op) || isElementwiseLike(op)) {
            for (Value operand : op->getOperands())
              if (auto t = dyn_cast<RankedTensorType>(operand.getType()))
                if (t.getShape() == shape || isa<BroadcastOp>(op))
                  prefer(operand, l);
            continue;
          }
        }
      }
      if (auto q = dyn_cast<QuantizeOp>(op)) {
        prefer(q.getSrc(), fp4Layouts(q.getSrc().getType().getShape(),
                                      fp4Block(q.getScheme())).full);
        continue;
      }
      if (auto d = dyn_cast<DequantizeOp>(op)) {
        Fp4Layouts l = fp4Layouts(d.getResult().getType().getShape(),
                                  fp4Block(d.getScheme()));
        prefer(d.getValues(), l.values);
        prefer(d.getScales(), l.scales);
        continue;
      }
      if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
        auto dst = expand.getResult().getType();
        auto parent = cast<BlockedEncodingAttr>(defaultLayout(dst.getShape()));
        prefer(expand.getSrc(), SliceEncodingAttr::get(ctx, expand.getAxis(), parent));
        continue;
      }
      if (op->getNumResults() != 1 || !isElementwiseLike(op))
        continue;
      // A copy, not the map's entry: prefer() inserts into the same map,
      // which may move its buckets (a use after free that crashed one
      // compile of attn_decode_cp.mega in eight).
      Attribute wanted = preferred.lookup(op->getResult(0));
      if (!wanted)
        continue;
      auto shape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
      for (Value operand : op->getOperands())
        if (auto t = dyn_cast<RankedTensorType>(operand.getType()))
          if (t.getShape() == shape)
            prefer(operand, wanted);
    }
  }

  void prefer(Value v, Attribute layout) {
    if (!isa<RankedTensorType>(v.getType()))
      return;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      // 0 is the induction variable. The block argument itself is recorded
      // so that a cycle of carried values (yield b, a) ends.
      if (!loop || arg.getArgNumber() == 0 || !preferred.try_emplace(v, layout).second)
        return;
      // Both values that become the carried tile: the initial one, and the
      // one the body yields (a load of the next iteration's tile, made in
      // the carried layout rather than converted at the yield).
      prefer(loop.getTiedLoopInit(arg)->get(), layout);
      prefer(loop.getTiedLoopYieldedValue(arg)->get(), layout);
      return;
    }
    preferred.try_emplace(v, layout); // the first (latest) use wins
  }

  static bool isElementwiseLike(Operation *op) {
    return isa<LoadOp, AddPtrOp, SplatOp, ArangeOp, FpTruncOp>(op) ||
           isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
  }

  func::FuncOp func;
  MLIRContext *ctx;
  // Tiles in a layout the user chose: with_layout's results and what is
  // computed from them in that layout.
  DenseSet<Value> placed;
  unsigned numWarps;
  unsigned vectorElems;
  std::map<size_t, megac::layout::Shape> largest; // by rank
  DenseMap<Value, Attribute> preferred;
  DenseMap<Value, Attribute> anchors; // tiles in a dot's layout (collectAnchors)
  unsigned dotWarpsAlongN = 1u << 30;
  bool failed = false;
};

struct TileAssignLayouts
    : public tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  void runOnOperation() override {
    // FP8 quantization has no layout of its own: tile-expand-fp8 turns it
    // into reductions and elementwise ops first.
    WalkResult fp8 = getOperation().walk([](Operation *op) {
      if (fp8::isFp8Op(op)) {
        op->emitOpError("must be expanded by tile-expand-fp8 before layouts are assigned");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (fp8.wasInterrupted())
      return signalPassFailure();
    if (!LayoutAssigner(getOperation()).run())
      return signalPassFailure();
  }
};

} // namespace
