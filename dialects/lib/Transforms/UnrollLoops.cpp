// tile-unroll-loops: an scf.for marked tile.unroll = N (the language's
// range(.., unroll = N)) is unrolled by N, with a remainder loop when the trip
// count is not known to be a multiple of N. It is known to be one when the
// step is a constant s and both bounds are multiples of N * s (AxisInfo's
// divisibility: `multiple_of` parameters, products with constants, ...):
// range(0, 2 * m, unroll = 2) then needs no remainder loop, a third less code
// for LLVM to compile than with one. The N copies of the body are one
// block, so the loads of later iterations can be issued before the arithmetic
// of earlier ones: a loop whose iterations each wait on memory (draft_fin's
// expert rows) then waits about trip / N times instead of trip times.
#include "UnrollByFactor.h"
#include "Tile/Analysis/AxisInfo.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEUNROLLLOOPS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

// Whether `loop`'s trip count is a known multiple of `factor`.
bool tripsAreMultipleOf(scf::ForOp loop, int64_t factor, AxisInfoAnalysis &axis) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return false;
  int64_t unit = factor * *step;
  return axis.get(loop.getLowerBound()).scalarDivisibility % unit == 0 &&
         axis.get(loop.getUpperBound()).scalarDivisibility % unit == 0;
}

struct UnrollLoops : tile::impl::TileUnrollLoopsBase<UnrollLoops> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(attr::kUnroll))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto factor = cast<IntegerAttr>(loop->getAttr(attr::kUnroll)).getInt();
      loop->removeAttr(attr::kUnroll);
      if (factor <= 1)
        continue;
      // Anew for each loop: unrolling the one before erased values it cached.
      AxisInfoAnalysis axis;
      if (tripsAreMultipleOf(loop, factor, axis)) {
        megac::unrollByFactorWithoutRemainder(loop, uint64_t(factor));
        continue;
      }
      if (failed(megac::unrollByFactor(loop, uint64_t(factor)))) {
        loop.emitError("could not unroll this loop by ") << factor;
        return signalPassFailure();
      }
    }
  }
};

} // namespace
