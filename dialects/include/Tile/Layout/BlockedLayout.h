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
#include <optional>
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
  bool operator==(const Blocked &o) const {
    return sizePerThread == o.sizePerThread && threadsPerWarp == o.threadsPerWarp &&
           warpsPerCTA == o.warpsPerCTA && order == o.order;
  }
  bool operator!=(const Blocked &o) const { return !(*this == o); }

  unsigned numWarps() const;
  int64_t ctaTile(unsigned dim) const;
  int64_t repetitions(const Shape &shape, unsigned dim) const;
  int64_t numRegisters(const Shape &shape) const;

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

  /// Cross-warp reductions along `dim`: threads that differ only in the
  /// lane and warp bits of laneXorMasks/warpXorMasks combine their partials.
  /// Their common key is the thread's lane and warp bits with those bits
  /// removed, packed: a number in [0, numReductionKeys). Shared memory holds
  /// one slot per key (per partial and per way), not one per thread.
  int64_t numReductionKeys(const Shape &shape, unsigned dim) const;
  unsigned reductionKey(const Shape &shape, unsigned dim, unsigned lane,
                        unsigned warp) const;

  /// Where element `index` (in range) sits in a warp that holds it: the
  /// lane whose unwrapped range covers it and the register, i.e.
  /// lane_d = (index_d / spt_d) mod tpw_d, within_d = index_d mod spt_d,
  /// rep_d = index_d / ctaTile_d. Whether a given warp holds it at all is
  /// elementOf(shape, lane, warp, reg) == index.
  void locate(const Shape &shape, const Index &index, unsigned &lane,
              int64_t &reg) const;

  /// Checks the invariants (powers of two, 32 lanes, a permutation for
  /// `order`); returns an empty string when valid, else the reason.
  std::string validate() const;
  std::string str() const;

  /// The default layout for a tile: `vectorElems` contiguous elements per
  /// thread along the last dimension, lanes then warps spread fastest-first.
  static Blocked defaultFor(const Shape &shape, unsigned numWarps,
                            unsigned vectorElems);
};

/// `l` with its two dimensions swapped (a 2-D layout): thread t's register r
/// holds element (j, i) when `l` puts (i, j) there (tile.trans moves nothing).
Blocked transposed(const Blocked &l);

/// The accumulator layout of tile.dot for a [M, N] f32 result on `numWarps`
/// warps: the mma.sync m16n8 fragment (lane l holds rows l / 4 and l / 4 + 8,
/// columns 2 (l mod 4) and the next) as spt = [1, 2], tpw = [8, 4],
/// order = [1, 0], warps along N as far as N / 8, `maxAlongN` and 8 allow, then
/// along M. Empty when the warps cannot tile the shape (M not a multiple of
/// 16 times the warps along M, N not of 8): the reason is in `why`.
std::optional<Blocked> dotLayout(int64_t M, int64_t N, unsigned numWarps,
                                 std::string *why = nullptr, unsigned maxAlongN = 1u << 30);
/// True when `l` is a dot accumulator layout for [M, N] (some split of the
/// warps between M and N that tiles the shape).
bool isDotLayout(const Blocked &l, int64_t M, int64_t N);

/// `parent` with dimension `dim` removed (the layout of a reduction result).
struct Slice {
  unsigned dim;
  Blocked parent;

  /// The parent registers (of a tile of `parentShape`) that a slice keeps:
  /// those whose offset along `dim` is zero, in order.
  std::vector<int64_t> parentRegisters(const Shape &parentShape) const;
};

/// Either encoding of a tile: a blocked layout, or a slice of one
/// (sliceDim >= 0). Registers are numbered as the lowering numbers them: a
/// slice's register k is parentRegisters()[k] of the parent layout.
struct TileLayout {
  Blocked blocked;
  int sliceDim = -1;

  /// `shape` with the sliced dimension put back as 1 (blocked: `shape`).
  Shape parentShape(const Shape &shape) const;
  /// The parent registers the tile keeps (blocked: all of them).
  std::vector<int64_t> parentRegisters(const Shape &shape) const;
  int64_t numRegisters(const Shape &shape) const;
  /// The element (in the tile's own dimensions) of a thread's register.
  Index elementOf(const Shape &shape, unsigned lane, unsigned warp,
                  int64_t reg) const;
  /// Blocked::locate of the parent; `reg` is the tile's register number, -1
  /// when the parent register is not one the slice keeps.
  void locate(const Shape &shape, const Index &index, unsigned &lane,
              int64_t &reg) const;
  std::string str() const; // the attribute, e.g. "#tile.blocked<...>"

private:
  const std::vector<int64_t> &slicedRegisters(const Shape &shape) const;
};

/// True when both layouts give every thread (of `numWarps` warps) the same
/// elements in the same registers: a conversion between them moves nothing.
bool equivalent(const TileLayout &a, const TileLayout &b, const Shape &shape,
                unsigned numWarps);

/// A layout conversion inside each warp, through index shuffles: result
/// register r of lane L is read from lane locate(e).lane of the same warp,
/// source register locate(e).reg, e = dst.elementOf(L, warp, r). `sources[r]`
/// lists the source registers that some lane needs for result register r
/// (one shuffle each; a lane keeps the one it asked for).
struct ShufflePlan {
  std::vector<std::vector<int64_t>> sources;
  int64_t numShuffles = 0;
};
/// The plan, or nothing when some thread needs an element that its own warp
/// does not hold in `src` (the conversion must cross warps).
std::optional<ShufflePlan> planWarpShuffles(const TileLayout &src,
                                            const TileLayout &dst,
                                            const Shape &shape,
                                            unsigned numWarps);

/// A readable map of which thread and register hold which element, for
/// `megac --print-layout=full`: one line per element,
/// "[i, j] -> t5(lane 5, warp 0) r2, ...".
std::string describeOwnership(const Blocked &layout, const Shape &shape);
std::string describeOwnership(const TileLayout &layout, const Shape &shape,
                              unsigned numWarps);

} // namespace megac::layout

#endif
