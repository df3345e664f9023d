// MLIR's scf.for unrolling, in a file of its own: mlir/Dialect/SCF/Utils
// declares a function mlir::tile, which clashes with this dialect's namespace,
// so no Tile header may be included here.
#include "UnrollByFactor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

mlir::LogicalResult megac::unrollByFactor(mlir::Operation *forOp, uint64_t factor) {
  auto loop = mlir::cast<mlir::scf::ForOp>(forOp);
  // A loop known to run at most once has nothing to unroll; and MLIR's
  // unroller aborts on a known trip count with a step that is not a constant
  // (range(n, n, s, unroll = N): the pipeline fuzzer's find, fuzz/README.md),
  // which is such a loop: without a constant step only 0 or 1 trips are known.
  if (std::optional<llvm::APInt> trips = loop.getStaticTripCount(); trips && trips->ule(1))
    return mlir::success();
  return mlir::loopUnrollByFactor(loop, factor);
}

void megac::unrollByFactorWithoutRemainder(mlir::Operation *forOp, uint64_t factor) {
  using namespace mlir;
  auto loop = cast<scf::ForOp>(forOp);
  Location loc = loop.getLoc();
  Value step = loop.getStep();
  auto times = [&](OpBuilder &b, uint64_t k) -> Value {
    Value c = arith::ConstantOp::create(b, loc, b.getIntegerAttr(step.getType(), k));
    return arith::MulIOp::create(b, loc, step, c);
  };
  OpBuilder b(loop);
  loop.setStep(times(b, factor));
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  // Copy i of the body runs iteration iv + i * step of the original loop.
  generateUnrolledLoop(
      loop.getBody(), loop.getInductionVar(), factor,
      [&](unsigned i, Value iv, OpBuilder nb) -> Value {
        return arith::AddIOp::create(nb, loc, iv, times(nb, i));
      },
      /*annotateFn=*/nullptr, loop.getRegionIterArgs(), yield.getOperands());
}
