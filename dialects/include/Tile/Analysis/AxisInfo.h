// What is known about the integer and pointer values of a tile along each
// dimension, to decide how wide a global access may be:
//  - contiguity: runs of this many consecutive elements differ by +1;
//  - divisibility: the first element of each run is a multiple of this (for
//    pointers: in bytes);
//  - constancy: runs of this many consecutive elements are equal.
// Scalars are tiles of rank 0 with just a divisibility.
#ifndef MEGAC_TILE_ANALYSIS_AXISINFO_H
#define MEGAC_TILE_ANALYSIS_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

namespace mlir::tile {

struct AxisInfo {
  SmallVector<int64_t, 3> contiguity;
  SmallVector<int64_t, 3> divisibility;
  SmallVector<int64_t, 3> constancy;
  int64_t scalarDivisibility = 1; // for rank 0
};

class AxisInfoAnalysis {
public:
  const AxisInfo &get(Value value);

  /// Elements of `ptr` (a tile of pointers to `elemBytes`-byte elements) that
  /// one thread may access as one vector along `dim`, given `perThread`
  /// contiguous elements in its layout and an optional mask.
  int64_t vectorWidth(Value ptr, Value mask, unsigned dim, int64_t perThread,
                      int64_t elemBytes);

  /// A power of two 2^k (k >= 1) when `div` (arith.divsi / divui) divides
  /// by the constant 2^k a dividend that every element of is a multiple of
  /// 2^k (a `multiple_of` parameter, say): the quotient is then exact, a
  /// shift right by k. 0 otherwise.
  int64_t exactPowerOfTwoDivisor(Operation *div);

private:
  AxisInfo compute(Value value);
  AxisInfo carriedScalar(scf::ForOp loop, BlockArgument arg);
  llvm::DenseMap<Value, AxisInfo> cache;
};

} // namespace mlir::tile

#endif
