// Shared-memory layouts (#tile.swizzled_shared, #tile.padded_shared) in the
// same plain-C++ algebra as the distributed layouts: where each element of a
// tile sits in a shared-memory buffer, how wide each thread's accesses can be,
// how many bank conflicts a conversion (distributed -> shared -> distributed)
// costs, and the choice of a layout that keeps both sides conflict-free.
//
// Both kinds first linearize the element along `order` (fastest first):
//   col = index[order[0]],  row = the remaining dimensions, mixed radix.
// Swizzled (XOR, as Triton's SwizzledSharedEncoding):
//   phase  = (row / perPhase) mod min(maxPhase, cols / vec)
//   offset = row * cols + ((col / vec) xor phase) * vec + col mod vec
// Padded (pad every `interval` elements by `padding`):
//   L = row * cols + col,  offset = L + (L / interval) * padding
// Both are bijections from the tile onto [0, allocation) minus the pads.
#ifndef MEGAC_TILE_LAYOUT_SHAREDLAYOUT_H
#define MEGAC_TILE_LAYOUT_SHAREDLAYOUT_H

#include "Tile/Layout/BlockedLayout.h"

namespace megac::layout {

struct SharedLayout {
  enum class Kind { Swizzled, Padded };
  Kind kind = Kind::Swizzled;
  unsigned vec = 1, perPhase = 1, maxPhase = 1; // swizzled
  unsigned interval = 1, padding = 0;           // padded
  std::vector<unsigned> order;                  // fastest-varying first

  static SharedLayout swizzled(unsigned vec, unsigned perPhase, unsigned maxPhase,
                               std::vector<unsigned> order);
  static SharedLayout padded(unsigned interval, unsigned padding, std::vector<unsigned> order);
  /// The plain row-major buffer (no swizzle, no padding).
  static SharedLayout rowMajor(unsigned rank);

  /// Element offset of `index` in a buffer holding a tile of `shape`.
  int64_t offsetOf(const Shape &shape, const Index &index) const;
  /// Elements the buffer spans (padding included).
  int64_t allocationElems(const Shape &shape) const;
  /// The swizzle's phases on this shape: maxPhase, but no more than the
  /// vectors a row has (1 for a padded layout).
  int64_t phaseCount(const Shape &shape) const;
  /// Elements that stay contiguous in the buffer along order[0], starting at
  /// a multiple of it: a vector access may not be wider.
  int64_t contiguousElems(const Shape &shape) const;

  /// Empty when valid (powers of two, `order` a permutation), else why.
  std::string validate() const;
  std::string str() const; // the attribute, e.g. "#tile.swizzled_shared<...>"
  bool operator==(const SharedLayout &o) const;
};

/// How one side of a conversion touches the buffer: each thread issues
/// `numRegisters / width` accesses of `width` consecutive registers
/// (consecutive elements along the buffer's fastest dimension).
unsigned sharedAccessWidth(const TileLayout &layout, const Shape &shape, const SharedLayout &shared,
                           unsigned elemBytes);

/// Bank conflicts of one side: every warp's accesses (one instruction per
/// group of `sharedAccessWidth` registers) split into phases of 128 bytes
/// (32 lanes for 4-byte accesses, 16 for 8, 8 for 16); a phase takes as many
/// wavefronts as the most distinct 4-byte words any of the 32 banks serves
/// (lanes reading one word share it). `ways` is the worst phase (1 = free),
/// `wavefronts` the total over instructions and warps.
struct BankConflicts {
  int64_t ways = 1;
  int64_t wavefronts = 0;
  int64_t instructions = 0;
};
BankConflicts bankConflicts(const TileLayout &layout, const Shape &shape, unsigned numWarps,
                            const SharedLayout &shared, unsigned elemBytes);

/// How a layout conversion moves its data (the lowering's three ways).
enum class ConversionKind { NoOp, WarpShuffles, SharedMemory };
ConversionKind classifyConversion(const TileLayout &src, const TileLayout &dst, const Shape &shape,
                                  unsigned numWarps);

/// The shared layout of a conversion through shared memory, with the cost of
/// both sides.
struct SharedPlan {
  SharedLayout layout;
  BankConflicts write, read;
};
SharedPlan planSharedConversion(const TileLayout &src, const TileLayout &dst, const Shape &shape,
                                unsigned numWarps, const SharedLayout &shared, unsigned elemBytes);
/// Picks the layout with the fewest wavefronts plus instructions over both
/// sides, among the row-major buffer, XOR swizzles and paddings along the
/// orders of the two layouts; ties go to the simpler (row-major, then
/// swizzled, then the least padding).
SharedPlan chooseSharedLayout(const TileLayout &src, const TileLayout &dst, const Shape &shape,
                              unsigned numWarps, unsigned elemBytes);

} // namespace megac::layout

#endif
