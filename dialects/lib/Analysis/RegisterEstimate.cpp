#include "Tile/Analysis/Recomputable.h"
#include "Tile/Analysis/RegisterEstimate.h"
#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/MapVector.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::tile;
namespace layout = megac::layout;

namespace mlir::tile {

std::optional<layout::TileLayout> tileLayoutOf(RankedTensorType type) {
  Attribute enc = type.getEncoding();
  if (auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(enc))
    return layout::TileLayout{toLayout(blocked), -1};
  if (auto slice = dyn_cast_or_null<SliceEncodingAttr>(enc))
    return layout::TileLayout{toLayout(slice.getParent()), int(slice.getDim())};
  return std::nullopt;
}

double registerWeight(Type elem) {
  if (isa<PtrType>(elem))
    return 2;
  if (elem.isInteger(1))
    return 1;
  if (!elem.isIntOrFloat())
    return 1;
  unsigned bits = elem.getIntOrFloatBitWidth();
  return bits <= 16 ? 0.5 : bits <= 32 ? 1 : 2;
}

namespace {

class Estimator {
public:
  explicit Estimator(func::FuncOp func) : func(func) {}

  RegisterEstimate run() {
    number(func.getBody());
    RegisterEstimate est;
    func.walk([&](Operation *op) {
      for (Value v : op->getResults()) {
        addValue(v, op);
        if (auto t = dyn_cast<RankedTensorType>(v.getType()))
          if (int64_t n = registersOf(t); n > est.widestElements) {
            est.widestElements = n;
            est.widest = v;
          }
      }
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            addValue(arg, op);
    });
    // Sweep: live on [def, lastUse) (a value dies where its last user
    // reads it, so a result may take its operand's registers).
    std::vector<double> delta(counter + 2, 0);
    std::vector<int64_t> countDelta(counter + 2, 0);
    for (auto &[root, iv] : intervals) {
      int64_t end = std::max(iv.last, iv.def + 1);
      delta[iv.def] += iv.weight;
      delta[end] -= iv.weight;
      countDelta[iv.def] += 1;
      countDelta[end] -= 1;
    }
    double live = 0, best = -1;
    int64_t tiles = 0;
    for (int64_t p = 0; p < counter; ++p) {
      live += delta[p];
      tiles += countDelta[p];
      if (live > best + 1e-9) {
        best = live;
        est.peak = opAt[p];
        est.liveTiles = tiles;
      }
    }
    est.registers = best < 0 ? 0 : int64_t(std::ceil(best - 1e-9));
    return est;
  }

private:
  struct Interval {
    int64_t def = 0, last = 0;
    double weight = 0;
  };

  // Pre-order positions; end[op] is the last position inside op's regions.
  void number(Region &region) {
    for (Block &block : region)
      for (Operation &op : block) {
        pos[&op] = counter;
        opAt.push_back(&op);
        ++counter;
        for (Region &inner : op.getRegions())
          number(inner);
        end[&op] = counter - 1;
      }
  }

  // The value whose registers `v` uses (broadcasts, expand_dims and trans
  // re-index their operand's registers).
  Value rootOf(Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (isa<BroadcastOp, ExpandDimsOp, TransOp>(def))
        v = def->getOperand(0);
      else if (auto conv = dyn_cast<ConvertLayoutOp>(def)) {
        auto s = tileLayoutOf(conv.getSrc().getType());
        auto d = tileLayoutOf(conv.getType());
        auto shape = conv.getType().getShape();
        if (!s || !d ||
            !layout::equivalent(*s, *d, {shape.begin(), shape.end()},
                                unsigned(getNumWarps(func))))
          break;
        v = conv.getSrc();
      } else {
        break;
      }
    }
    return v;
  }


  double weightOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return 0;
    double w = registerWeight(t.getElementType());
    if (isRecomputable(v))
      return w; // splats, constants, ranges and arithmetic of them
    return w * double(registersOf(t));
  }

  // Registers per thread of a tile type, computed once per type (a kernel
  // has few distinct types and many values).
  int64_t registersOf(RankedTensorType t) {
    auto [it, fresh] = registers.try_emplace(t, 0);
    if (fresh)
      if (auto l = tileLayoutOf(t))
        it->second = l->numRegisters({t.getShape().begin(), t.getShape().end()});
    return it->second;
  }

  // `v` is defined by (or is a block argument of a region of) `op`.
  void addValue(Value v, Operation *op) {
    if (!isa<RankedTensorType>(v.getType()))
      return;
    Value root = rootOf(v);
    auto [it, fresh] = intervals.try_emplace(root);
    Interval &iv = it->second;
    if (fresh) {
      Operation *rootOp = root.getDefiningOp();
      if (!rootOp)
        rootOp = cast<BlockArgument>(root).getOwner()->getParentOp();
      // Loop results take over the iteration arguments' registers after
      // the loop.
      bool isLoopResult = isa<OpResult>(root) && rootOp->getNumRegions() > 0;
      iv.def = isLoopResult ? end[rootOp] : pos[rootOp];
      iv.last = iv.def;
      iv.weight = weightOf(root);
    }
    Block *home = root.getParentBlock();
    for (Operation *user : v.getUsers()) {
      Operation *at = home ? home->findAncestorOpInBlock(*user) : user;
      if (!at)
        at = user;
      // Used inside a nested region (a loop): live to the end of it.
      int64_t p = at == user ? pos[user] : end[at];
      iv.last = std::max(iv.last, p);
    }
  }

  func::FuncOp func;
  DenseMap<Type, int64_t> registers;
  int64_t counter = 0;
  DenseMap<Operation *, int64_t> pos, end;
  std::vector<Operation *> opAt;
  llvm::MapVector<Value, Interval> intervals;
};

} // namespace

RegisterEstimate estimateRegisters(func::FuncOp func) {
  return Estimator(func).run();
}

} // namespace mlir::tile
