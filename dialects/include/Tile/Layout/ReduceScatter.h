//===- ReduceScatter.h - several lane reductions in one butterfly -*- C++ -*-===//
//
// A thread holding n partials, each to be combined across the same lanes
// (the same xor masks, in the same order), reduces them one butterfly each:
// n shuffles a mask. Reduce-scatter instead: at a mask, the lanes with its
// bit clear keep the first half of the partials and send the second, those
// with it set keep the second and send the first, so that each shuffle moves
// a partial that its receiver keeps; the partials a lane holds halve at each
// mask until one is left, and the masks after that combine it as before.
// Then each result is read (one index shuffle) from a lane that holds it.
//
// Every partial is combined along the same tree as in its own butterfly (a
// lane's kept value at a mask is that lane's value in the plain butterfly:
// its partner differs only in that mask's bit), so each result is bit for
// bit what the plain butterflies give: only the count of shuffles changes.
// Five partials over 32 lanes: 3 + 2 + 1 + 1 + 1 shuffles and 5 reads, 13
// instead of 25 (gdn_core's narrow rows: docs/dialect.md, Reductions).
//
// Plain C++ (no IR): the lowering walks the plan, and unit tests run it on
// 32 simulated lanes against the plain butterflies.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_TILE_LAYOUT_REDUCESCATTER_H
#define MEGAC_TILE_LAYOUT_REDUCESCATTER_H

#include <cstdint>
#include <vector>

namespace megac::layout {

struct ReduceScatterPlan {
  /// One mask. With `halves` empty, each lane holds one partial and combines
  /// it with its partner's (a plain butterfly step). Otherwise slot k after
  /// it is, for lanes with the mask's bit clear, their slot `halves[k].low`
  /// combined with the partner's same slot, and for lanes with the bit set
  /// their slot `halves[k].high` (with the partner's): a lane sends the slot
  /// its partner keeps. high = -1: only the low lanes hold slot k (the high
  /// ones' copy of it is never read).
  struct Half {
    int low = 0, high = -1;
  };
  struct Step {
    unsigned mask = 0;
    std::vector<Half> halves;
  };
  std::vector<Step> steps;
  /// Where partial j ends: slot `slotOf[j]` of the lanes whose scattering
  /// bits (`scatterBits`, the masks of the steps with halves) are
  /// `codeOf[j]`; every lane reads it from the lane with its own other bits
  /// and those.
  std::vector<int> slotOf;
  std::vector<unsigned> codeOf;
  unsigned scatterBits = 0;

  /// Shuffles this plan takes (the steps' and the reads'), and what n plain
  /// butterflies over the same masks take.
  int64_t numShuffles() const;
  int64_t numPlainShuffles() const;
  /// The selects that pick what a lane sends and keeps (two a pair of slots).
  int64_t numSelects() const;
  /// Whether the plan is worth its selects and its reads' extra step: an SM
  /// issues four ALU instructions (a select) for each shuffle, and the plan
  /// must cost at most 0.8 of the plain butterflies in those terms. Five
  /// 32-lane partials: 13 shuffles and 8 selects against 25 shuffles, taken;
  /// eight partials over two masks (attention's 32-row split): 14 and 12
  /// against 16, left plain.
  bool worthIt() const;
};

/// The plan for `numPartials` partials over `masks` (in the order the plain
/// butterfly takes them).
ReduceScatterPlan planReduceScatter(int numPartials,
                                    const std::vector<unsigned> &masks);

} // namespace megac::layout

#endif
