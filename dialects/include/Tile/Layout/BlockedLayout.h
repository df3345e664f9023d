// The layout algebra behind #tile.blocked and #tile.slice, in plain C++ so that
// unit tests, the layout printer and the lowering share one definition.
//
// A blocked layout places element (i_0, ..., i_{r-1}) of a tile of `shape` in
// thread (lane, warp), register `reg`:
//   index_d = (threadBase_d + registerOffset_d(reg)) mod shape_d
//   threadBase_d = (warp_d * tpw_d + lane_d) * spt_d
//   registerOffset_d = rep_d * ctaTile_d + within_d,  ctaTile_d = spt_d*tpw_d*wpc_d
// lane_d, warp_d, within_d and rep_d are the mixed-radix digits of lane, warp
// and reg, split over dimensions fastest-first in `order` (registers: all
// `within` digits first, then all `rep` digits). When the layout covers more
// than the shape along a dimension, the extra threads hold replicas.
#ifndef MEGAC_TILE_LAYOUT_BLOCKEDLAYOUT_H
#define MEGAC_TILE_LAYOUT_BLOCKEDLAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

namespace megac::layout {

using Shape = std::vector<int64_t>;
using Index = std::vector<int64_t>;

struct Blocked {
  std::vector<unsigned> sizePerThread;
  std::vector<unsigned> threadsPerWarp;
  std::vector<unsigned> warpsPerCTA;
  std::vector<unsigned> order; // fastest-varying dimension first

  unsigned rank() const { return sizePerThread.size(); }
  unsigned numWarps() const;
  int64_t ctaTile(unsigned dim) const;
  int64_t repetitions(const Shape &shape, unsigned dim) const;
  int64_t numRegisters(const Shape &shape) const;

  /// Per-dimension lane and warp digits (lane in [0, 32), warp in [0, numWarps)).
  std::vector<unsigned> laneCoords(unsigned lane) const;
  std::vector<unsigned> warpCoords(unsigned warp) const;
  /// The unwrapped index of register 0 of a thread.
  Index threadBase(unsigned lane, unsigned warp) const;
  /// What register `reg` adds to the thread's base, per dimension.
  Index registerOffset(const Shape &shape, int64_t reg) const;
  /// The element a thread's register holds (replicas wrap around the shape).
  Index elementOf(const Shape &shape, unsigned lane, unsigned warp,
                  int64_t reg) const;
  /// True when the thread's register holds the element without wrapping: the
  /// one owner among replicas (atomics and reductions count only owners).
  bool isOwner(const Shape &shape, unsigned lane, unsigned warp,
               int64_t reg) const;
  /// Lane-id bits (as xor masks) along `dim` that reach distinct elements of
  /// `shape`; warp-id bits likewise. Reductions shuffle over exactly these.
  std::vector<unsigned> laneXorMasks(const Shape &shape, unsigned dim) const;
  std::vector<unsigned> warpXorMasks(const Shape &shape, unsigned dim) const;

  /// Checks the invariants (powers of two, 32 lanes, a permutation for
  /// `order`); returns an empty string when valid, else the reason.
  std::string validate() const;
  std::string str() const;

  /// The default layout for a tile: `vectorElems` contiguous elements per
  /// thread along the last dimension, lanes then warps spread fastest-first.
  static Blocked defaultFor(const Shape &shape, unsigned numWarps,
                            unsigned vectorElems);
};

/// `parent` with dimension `dim` removed (the layout of a reduction result).
struct Slice {
  unsigned dim;
  Blocked parent;

  /// The parent registers (of a tile of `parentShape`) that a slice keeps:
  /// those whose offset along `dim` is zero, in order.
  std::vector<int64_t> parentRegisters(const Shape &parentShape) const;
};

/// A readable map of which thread and register hold which element, for
/// `megac --print-layout`: one line per element, "[i, j] -> t(lane, warp) r".
std::string describeOwnership(const Blocked &layout, const Shape &shape);

} // namespace megac::layout

#endif
