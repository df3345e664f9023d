// tile-unroll-loops: an scf.for marked tile.unroll = N (the language's
// range(.., unroll = N)) is unrolled by N, with a remainder loop when the trip
// count is not known to be a multiple of N. The N copies of the body are one
// block, so the loads of later iterations can be issued before the arithmetic
// of earlier ones: a loop whose iterations each wait on memory (draft_fin's
// expert rows) then waits about trip / N times instead of trip times.
#include "UnrollByFactor.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEUNROLLLOOPS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

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
      if (factor > 1 && failed(megac::unrollByFactor(loop, uint64_t(factor)))) {
        loop.emitError("could not unroll this loop by ") << factor;
        return signalPassFailure();
      }
    }
  }
};

} // namespace
