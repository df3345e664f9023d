// The layout algebra of #tile.blocked and #tile.slice (plain C++).
#include "Tile/Layout/BlockedLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

using namespace megac::layout;

namespace {

Blocked make(std::vector<unsigned> spt, std::vector<unsigned> tpw,
             std::vector<unsigned> wpc, std::vector<unsigned> order) {
  return Blocked{std::move(spt), std::move(tpw), std::move(wpc), std::move(order)};
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

// Every element is held by at least one thread and owned by exactly one
// (thread, register); every owner's element is in range.
void expectExactCover(const Blocked &l, const Shape &shape) {
  SCOPED_TRACE(l.str());
  std::map<Index, int> owners, holders;
  for (unsigned warp = 0; warp < l.numWarps(); ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < l.numRegisters(shape); ++r) {
        Index e = l.elementOf(shape, lane, warp, r);
        for (size_t d = 0; d < shape.size(); ++d) {
          ASSERT_GE(e[d], 0);
          ASSERT_LT(e[d], shape[d]);
        }
        ++holders[e];
        if (l.isOwner(shape, lane, warp, r))
          ++owners[e];
      }
  EXPECT_EQ(int64_t(holders.size()), numElements(shape));
  EXPECT_EQ(int64_t(owners.size()), numElements(shape));
  for (auto &[e, n] : owners)
    EXPECT_EQ(n, 1) << "element owned " << n << " times";
}

TEST(BlockedLayout, DefaultFor1DF32) {
  Blocked l = Blocked::defaultFor({1024}, 4, 4);
  EXPECT_EQ(l.sizePerThread, std::vector<unsigned>({4}));
  EXPECT_EQ(l.threadsPerWarp, std::vector<unsigned>({32}));
  EXPECT_EQ(l.warpsPerCTA, std::vector<unsigned>({4}));
  EXPECT_EQ(l.order, std::vector<unsigned>({0}));
  EXPECT_EQ(l.ctaTile(0), 512);
  EXPECT_EQ(l.repetitions({1024}, 0), 2);
  EXPECT_EQ(l.numRegisters({1024}), 8);
  EXPECT_EQ(l.validate(), "");
}

TEST(BlockedLayout, DefaultFor1DBF16) {
  Blocked l = Blocked::defaultFor({2048}, 4, 8);
  EXPECT_EQ(l.sizePerThread, std::vector<unsigned>({8}));
  EXPECT_EQ(l.numRegisters({2048}), 16);
}

TEST(BlockedLayout, DefaultFor2D) {
  Blocked l = Blocked::defaultFor({128, 128}, 4, 4);
  EXPECT_EQ(l.str(), "spt = [1, 4], tpw = [1, 32], wpc = [4, 1], order = [1, 0]");
  Blocked narrow = Blocked::defaultFor({64, 16}, 8, 4);
  // 4 lanes cover a row of 16; the other 8 lane bits and all warps go down.
  EXPECT_EQ(narrow.str(), "spt = [1, 4], tpw = [8, 4], wpc = [8, 1], order = [1, 0]");
  EXPECT_EQ(narrow.validate(), "");
}

TEST(BlockedLayout, DefaultForSmallTileReplicates) {
  // 16 elements for 128 threads: leftover lanes and warps replicate.
  Blocked l = Blocked::defaultFor({16}, 4, 4);
  EXPECT_EQ(l.str(), "spt = [4], tpw = [32], wpc = [4], order = [0]");
  EXPECT_EQ(l.numRegisters({16}), 4);
  EXPECT_EQ(l.validate(), "");
  // Lane 4 holds what lane 0 holds; only lane 0 of warp 0 owns it.
  EXPECT_EQ(l.elementOf({16}, 4, 0, 1), Index({1}));
  EXPECT_EQ(l.elementOf({16}, 0, 0, 1), Index({1}));
  EXPECT_TRUE(l.isOwner({16}, 0, 0, 1));
  EXPECT_FALSE(l.isOwner({16}, 4, 0, 1));
  EXPECT_FALSE(l.isOwner({16}, 0, 1, 1));
  int replicas = 0;
  for (unsigned w = 0; w < 4; ++w)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < 4; ++r)
        if (l.elementOf({16}, lane, w, r) == Index({5}))
          ++replicas;
  EXPECT_EQ(replicas, 4 * 32 * 4 / 16);
}

TEST(BlockedLayout, ExactCover) {
  expectExactCover(Blocked::defaultFor({1024}, 4, 4), {1024});
  expectExactCover(Blocked::defaultFor({16}, 4, 4), {16});
  expectExactCover(Blocked::defaultFor({128, 128}, 4, 4), {128, 128});
  expectExactCover(Blocked::defaultFor({128, 128}, 4, 4), {128, 1});
  expectExactCover(Blocked::defaultFor({128, 128}, 4, 4), {1, 128});
  expectExactCover(Blocked::defaultFor({32, 8}, 4, 4), {32, 8});
  expectExactCover(make({2, 2}, {4, 8}, {2, 2}, {1, 0}), {32, 64});
  expectExactCover(make({2, 2}, {4, 8}, {2, 2}, {0, 1}), {8, 8});
  expectExactCover(make({1, 2, 2}, {2, 4, 4}, {1, 2, 2}, {2, 1, 0}), {4, 16, 32});
}

TEST(BlockedLayout, RegisterOffset) {
  Blocked l = Blocked::defaultFor({1024}, 4, 4);
  EXPECT_EQ(l.registerOffset({1024}, 0), Index({0}));
  EXPECT_EQ(l.registerOffset({1024}, 3), Index({3}));
  EXPECT_EQ(l.registerOffset({1024}, 5), Index({513})); // rep 1, within 1
  // 2-D: within digits (dim 1 first, then dim 0), then repetition digits.
  Blocked m = make({2, 2}, {4, 8}, {2, 2}, {1, 0});
  Shape s = {32, 64}; // ctaTile = [16, 32], 2 repetitions each
  EXPECT_EQ(m.numRegisters(s), 16);
  EXPECT_EQ(m.registerOffset(s, 1), Index({0, 1}));
  EXPECT_EQ(m.registerOffset(s, 2), Index({1, 0}));
  EXPECT_EQ(m.registerOffset(s, 4), Index({0, 32}));
  EXPECT_EQ(m.registerOffset(s, 13), Index({16, 33}));
  // Thread base: lane 9 = (lane_1 = 1, lane_0 = 1), warp 3 = (1, 1).
  EXPECT_EQ(m.threadBase(9, 3), Index({(1 * 4 + 1) * 2, (1 * 8 + 1) * 2}));
  EXPECT_EQ(m.elementOf(s, 9, 3, 13), Index({(10 + 16) % 32, (18 + 33) % 64}));
}

TEST(BlockedLayout, LaneAndWarpXorMasks) {
  Blocked l = make({1, 4}, {2, 16}, {4, 1}, {1, 0});
  EXPECT_EQ(l.laneXorMasks({64, 64}, 1), std::vector<unsigned>({1, 2, 4, 8}));
  EXPECT_EQ(l.laneXorMasks({64, 64}, 0), std::vector<unsigned>({16}));
  EXPECT_EQ(l.warpXorMasks({64, 64}, 0), std::vector<unsigned>({1, 2}));
  EXPECT_TRUE(l.warpXorMasks({64, 64}, 1).empty());
  // Lanes beyond the shape hold replicas and are left out.
  EXPECT_EQ(l.laneXorMasks({64, 16}, 1), std::vector<unsigned>({1, 2}));
  EXPECT_TRUE(l.laneXorMasks({64, 4}, 1).empty());
  EXPECT_EQ(l.warpXorMasks({4, 64}, 0), std::vector<unsigned>({1}));
  EXPECT_TRUE(l.warpXorMasks({2, 64}, 0).empty());
  // Warp bits along dim 1 sit above those of dim 0 when dim 0 is faster.
  Blocked t = make({1, 1}, {4, 8}, {2, 2}, {0, 1});
  EXPECT_EQ(t.laneXorMasks({64, 64}, 0), std::vector<unsigned>({1, 2}));
  EXPECT_EQ(t.laneXorMasks({64, 64}, 1), std::vector<unsigned>({4, 8, 16}));
  EXPECT_EQ(t.warpXorMasks({64, 64}, 0), std::vector<unsigned>({1}));
  EXPECT_EQ(t.warpXorMasks({64, 64}, 1), std::vector<unsigned>({2}));
}

// A reduction that xors lanes/warps over the masks visits every distinct
// element along the axis exactly once.
TEST(BlockedLayout, XorMasksReachEveryElementAlongAxis) {
  Blocked l = Blocked::defaultFor({64, 64}, 4, 4);
  Shape s = {64, 64};
  for (unsigned axis = 0; axis < 2; ++axis) {
    auto lm = l.laneXorMasks(s, axis), wm = l.warpXorMasks(s, axis);
    std::set<int64_t> seen;
    for (unsigned li = 0; li < (1u << lm.size()); ++li)
      for (unsigned wi = 0; wi < (1u << wm.size()); ++wi) {
        unsigned lane = 0, warp = 0;
        for (size_t b = 0; b < lm.size(); ++b)
          if (li >> b & 1)
            lane ^= lm[b];
        for (size_t b = 0; b < wm.size(); ++b)
          if (wi >> b & 1)
            warp ^= wm[b];
        for (int64_t r = 0; r < l.numRegisters(s); ++r) {
          Index e = l.elementOf(s, lane, warp, r);
          if (e[1 - axis] == l.elementOf(s, 0, 0, 0)[1 - axis])
            seen.insert(e[axis]);
        }
      }
    EXPECT_EQ(int64_t(seen.size()), s[axis]) << "axis " << axis;
  }
}

TEST(SliceLayout, ParentRegisters) {
  Blocked p = make({1, 4}, {2, 16}, {4, 1}, {1, 0});
  // Reducing dim 1: keep registers at offset 0 along dim 1 (every 4th).
  Slice rows{1, p};
  std::vector<int64_t> expect;
  for (int64_t r = 0; r < 32; r += 4)
    expect.push_back(r);
  EXPECT_EQ(rows.parentRegisters({64, 1}), expect);
  // Reducing dim 0: dim 0 has one register per thread at shape 1.
  Slice cols{0, p};
  EXPECT_EQ(cols.parentRegisters({1, 64}), std::vector<int64_t>({0, 1, 2, 3}));
  for (int64_t r : rows.parentRegisters({64, 1}))
    EXPECT_EQ(p.registerOffset({64, 1}, r)[1], 0);
}

TEST(BlockedLayout, ValidateErrors) {
  EXPECT_EQ(make({4}, {32}, {4}, {0}).validate(), "");
  EXPECT_EQ(make({}, {}, {}, {}).validate(),
            "spt, tpw, wpc and order must have the same non-zero length");
  EXPECT_EQ(make({4}, {32}, {4}, {0, 1}).validate(),
            "spt, tpw, wpc and order must have the same non-zero length");
  EXPECT_EQ(make({4, 1}, {32}, {4, 1}, {1, 0}).validate(),
            "spt, tpw, wpc and order must have the same non-zero length");
  EXPECT_EQ(make({3}, {32}, {4}, {0}).validate(),
            "every spt, tpw and wpc entry must be a power of two");
  EXPECT_EQ(make({4}, {32}, {0}, {0}).validate(),
            "every spt, tpw and wpc entry must be a power of two");
  EXPECT_EQ(make({4}, {64}, {4}, {0}).validate(),
            "tpw must multiply to 32 (lanes in a warp), got 64");
  EXPECT_EQ(make({1, 4}, {2, 8}, {4, 1}, {1, 0}).validate(),
            "tpw must multiply to 32 (lanes in a warp), got 16");
  EXPECT_EQ(make({1, 4}, {2, 16}, {4, 1}, {0, 0}).validate(),
            "order must be a permutation of the dimensions");
  EXPECT_EQ(make({1, 4}, {2, 16}, {4, 1}, {2, 0}).validate(),
            "order must be a permutation of the dimensions");
}

TEST(BlockedLayout, DescribeOwnership) {
  Blocked l = make({1}, {32}, {1}, {0});
  std::string text = describeOwnership(l, {4});
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << text;
  EXPECT_EQ(lines[0], "layout #tile.blocked<spt = [1], tpw = [32], wpc = [1], "
                      "order = [0]> of shape [4]: 1 registers per thread");
  EXPECT_EQ(lines[2].rfind("[1] -> t1(lane 1, warp 0) r0, t5(lane 5, warp 0) r0, ", 0), 0u)
      << lines[2];
  // 32 lanes over 4 elements: 8 holders each.
  size_t holders = 0;
  for (size_t at = 0; (at = lines[4].find(" r0", at)) != std::string::npos; ++at)
    ++holders;
  EXPECT_EQ(holders, 8u) << lines[4];

  std::string twoD = describeOwnership(make({1, 2}, {4, 8}, {2, 1}, {1, 0}), {8, 16});
  EXPECT_NE(twoD.find("of shape [8, 16]: 2 registers per thread\n"), std::string::npos);
  EXPECT_NE(twoD.find("\n[0, 1] -> t0(lane 0, warp 0) r1\n"), std::string::npos) << twoD;
  EXPECT_NE(twoD.find("\n[7, 15] -> t63(lane 31, warp 1) r1\n"), std::string::npos) << twoD;
}

// locate() finds, for every element, a lane and register that hold it in
// the warps that hold it at all (checked against elementOf).
TEST(BlockedLayout, LocateMatchesElementOf) {
  struct Case {
    Blocked l;
    Shape shape;
  } cases[] = {
      {make({4}, {32}, {4}, {0}), {1024}},
      {make({4}, {32}, {4}, {0}), {16}}, // replicated
      {make({1, 4}, {2, 16}, {4, 1}, {1, 0}), {64, 64}},
      {make({2, 1}, {8, 4}, {2, 2}, {0, 1}), {32, 8}},
  };
  for (auto &c : cases) {
    SCOPED_TRACE(c.l.str());
    for (unsigned warp = 0; warp < c.l.numWarps(); ++warp)
      for (unsigned lane = 0; lane < 32; ++lane)
        for (int64_t r = 0; r < c.l.numRegisters(c.shape); ++r) {
          Index e = c.l.elementOf(c.shape, lane, warp, r);
          unsigned l;
          int64_t reg;
          c.l.locate(c.shape, e, l, reg);
          ASSERT_LT(reg, c.l.numRegisters(c.shape));
          // Some warp holds e at (l, reg); when this thread's element is not
          // replicated across warps, it is this warp.
          bool found = false;
          for (unsigned w = 0; w < c.l.numWarps(); ++w)
            found |= c.l.elementOf(c.shape, l, w, reg) == e;
          EXPECT_TRUE(found);
          if (c.l.isOwner(c.shape, lane, warp, r)) {
            EXPECT_EQ(c.l.elementOf(c.shape, l, warp, reg), e);
          }
        }
  }
}

TEST(TileLayout, SliceElementsAndLocate) {
  Blocked p = make({1, 4}, {2, 16}, {4, 1}, {1, 0});
  TileLayout rows{p, 1}; // a [64] tile, the row sums of [64, N]
  EXPECT_EQ(rows.numRegisters({64}), 8);
  EXPECT_EQ(rows.elementOf({64}, 0, 0, 0), Index({0}));
  EXPECT_EQ(rows.elementOf({64}, 16, 0, 0), Index({1}));
  EXPECT_EQ(rows.elementOf({64}, 0, 1, 0), Index({2}));
  EXPECT_EQ(rows.elementOf({64}, 0, 0, 1), Index({8}));
  unsigned lane;
  int64_t reg;
  rows.locate({64}, {9}, lane, reg);
  EXPECT_EQ(lane, 16u);
  EXPECT_EQ(reg, 1);
  EXPECT_EQ(rows.str(), "#tile.slice<dim = 1, parent = <spt = [1, 4], tpw = [2, "
                        "16], wpc = [4, 1], order = [1, 0]>>");
}

TEST(TileLayout, Equivalent) {
  // x[None, :]'s operand: the slice of a row-major 2-D layout along dim 0
  // places a 128-element row exactly like the 1-D default layout.
  TileLayout slice{make({1, 4}, {1, 32}, {4, 1}, {1, 0}), 0};
  TileLayout flat{make({4}, {32}, {4}, {0}), -1};
  EXPECT_TRUE(equivalent(slice, flat, {128}, 4));
  EXPECT_TRUE(equivalent(flat, flat, {512}, 4));
  TileLayout one{make({1}, {32}, {4}, {0}), -1};
  EXPECT_FALSE(equivalent(flat, one, {512}, 4));
  // Different attributes, same placement: warps beyond the tile replicate.
  TileLayout w2{make({2}, {32}, {2}, {0}), -1}, w4{make({2}, {32}, {4}, {0}), -1};
  EXPECT_TRUE(equivalent(w2, w4, {64}, 4));
  EXPECT_FALSE(equivalent(w2, w4, {256}, 4));
}

// The placement the header documents, computed digit by digit: the
// reference that elementOf and equivalent (which compute it faster) must
// agree with.
Index documentedElement(const Blocked &l, const Shape &shape, unsigned lane, unsigned warp,
                        int64_t reg) {
  int64_t within = 1;
  for (unsigned s : l.sizePerThread)
    within *= s;
  int64_t inside = reg % within, rep = reg / within;
  Index e(l.rank());
  for (unsigned d : l.order) {
    int64_t laneD = lane % l.threadsPerWarp[d], warpD = warp % l.warpsPerCTA[d];
    int64_t withinD = inside % l.sizePerThread[d], reps = std::max<int64_t>(1, shape[d] / l.ctaTile(d));
    int64_t repD = rep % reps;
    lane /= l.threadsPerWarp[d];
    warp /= l.warpsPerCTA[d];
    inside /= l.sizePerThread[d];
    rep /= reps;
    e[d] = ((warpD * l.threadsPerWarp[d] + laneD) * l.sizePerThread[d] + repD * l.ctaTile(d) +
            withinD) % shape[d];
  }
  return e;
}

// Powers of two of product `total` over `rank` dimensions, from `seed`.
std::vector<unsigned> split(unsigned total, unsigned rank, unsigned &seed) {
  std::vector<unsigned> out(rank, 1);
  for (unsigned bit = 1; bit < total; bit *= 2) {
    seed = seed * 1103515245u + 12345u;
    out[(seed >> 16) % rank] *= 2;
  }
  return out;
}

// Layouts of rank 1 to 3 on 1 to 8 warps, some of them slices, over
// shapes smaller and larger than their CTA tiles.
TEST(TileLayout, FastPlacementMatchesTheDocumentedOne) {
  unsigned seed = 7;
  int compared = 0, same = 0;
  for (int trial = 0; trial < 400; ++trial) {
    unsigned rank = 1 + trial % 3, warps = 1u << (trial / 3 % 4);
    auto layoutOf = [&](int sliceDim) {
      std::vector<unsigned> order(rank);
      for (unsigned d = 0; d < rank; ++d)
        order[d] = (d + seed) % rank;
      std::vector<unsigned> spt(rank);
      for (unsigned d = 0; d < rank; ++d) {
        seed = seed * 1103515245u + 12345u;
        spt[d] = 1u << ((seed >> 16) % 3);
      }
      return TileLayout{make(spt, split(32, rank, seed), split(warps, rank, seed), order), sliceDim};
    };
    Shape parent(rank);
    for (unsigned d = 0; d < rank; ++d) {
      seed = seed * 1103515245u + 12345u;
      parent[d] = int64_t(1) << ((seed >> 16) % 7);
    }
    int sliceDim = rank > 1 && trial % 4 == 0 ? int(trial / 4 % rank) : -1;
    Shape shape = parent;
    if (sliceDim >= 0)
      shape.erase(shape.begin() + sliceDim);
    // A pair that places alike now and then: the same layout, or one whose
    // only difference is the warps beyond the tile.
    TileLayout a = layoutOf(sliceDim), b = trial % 5 == 0 ? a : layoutOf(sliceDim);
    for (const TileLayout *l : {&a, &b}) {
      Shape ps = l->parentShape(shape);
      std::vector<int64_t> regs = l->parentRegisters(shape);
      for (unsigned warp = 0; warp < warps; ++warp)
        for (unsigned lane = 0; lane < 32; ++lane)
          for (size_t r = 0; r < regs.size(); ++r) {
            Index want = documentedElement(l->blocked, ps, lane, warp, regs[r]);
            if (sliceDim >= 0)
              want.erase(want.begin() + sliceDim);
            ASSERT_EQ(l->elementOf(shape, lane, warp, int64_t(r)), want) << l->str();
          }
    }
    bool alike = a.numRegisters(shape) == b.numRegisters(shape);
    for (unsigned warp = 0; alike && warp < warps; ++warp)
      for (unsigned lane = 0; alike && lane < 32; ++lane)
        for (int64_t r = 0; alike && r < a.numRegisters(shape); ++r)
          alike = a.elementOf(shape, lane, warp, r) == b.elementOf(shape, lane, warp, r);
    EXPECT_EQ(equivalent(a, b, shape, warps), alike) << a.str() << " vs " << b.str();
    ++compared;
    same += alike;
  }
  // Both answers were seen.
  EXPECT_GT(same, 20);
  EXPECT_LT(same, compared - 20);
}

// Check a plan by simulating it: every result register of every thread
// receives its element from a lane of its own warp.
void expectPlanCorrect(const TileLayout &src, const TileLayout &dst,
                       const Shape &shape, unsigned numWarps,
                       const ShufflePlan &plan) {
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < dst.numRegisters(shape); ++r) {
        Index e = dst.elementOf(shape, lane, warp, r);
        unsigned from;
        int64_t reg;
        src.locate(shape, e, from, reg);
        auto &s = plan.sources[r];
        ASSERT_NE(std::find(s.begin(), s.end(), reg), s.end());
        EXPECT_EQ(src.elementOf(shape, from, warp, reg), e);
      }
}

TEST(TileLayout, WarpShufflePlans) {
  // Lanes reordered (row-major vs column-major within the warp), warps on
  // the columns in both: one shuffle per register, same register.
  TileLayout rowMajor{make({1, 1}, {4, 8}, {1, 4}, {1, 0}), -1};
  TileLayout colMajor{make({1, 1}, {4, 8}, {1, 4}, {0, 1}), -1};
  auto plan = planWarpShuffles(rowMajor, colMajor, {32, 32}, 4);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->numShuffles, 8);
  for (int64_t r = 0; r < 8; ++r)
    EXPECT_EQ(plan->sources[r], std::vector<int64_t>({r}));
  expectPlanCorrect(rowMajor, colMajor, {32, 32}, 4, *plan);

  // 4 elements per thread to 2: the same 2 rows per warp, but lanes of odd
  // parity want the upper half of a neighbour's vector: two shuffles each.
  TileLayout v4{make({1, 4}, {2, 16}, {4, 1}, {1, 0}), -1};
  TileLayout v2{make({1, 2}, {2, 16}, {4, 1}, {1, 0}), -1};
  plan = planWarpShuffles(v4, v2, {64, 64}, 4);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->sources[0], std::vector<int64_t>({0, 2}));
  EXPECT_EQ(plan->numShuffles, 64);
  expectPlanCorrect(v4, v2, {64, 64}, 4, *plan);

  // Different warps hold element 40: shared memory.
  TileLayout a{make({4}, {32}, {4}, {0}), -1}, b{make({1}, {32}, {4}, {0}), -1};
  EXPECT_FALSE(planWarpShuffles(a, b, {512}, 4));

  // A slice to its 1-D twin: every register from itself, same lane.
  TileLayout slice{make({1, 4}, {1, 32}, {4, 1}, {1, 0}), 0};
  plan = planWarpShuffles(slice, a, {128}, 4);
  ASSERT_TRUE(plan);
  expectPlanCorrect(slice, a, {128}, 4, *plan);
}

TEST(BlockedLayout, ReductionKeysAreCompact) {
  struct Case {
    Blocked l;
    Shape shape;
    unsigned dim;
    int64_t keys;
  } cases[] = {
      // Column sums of [128, 128]: 4 warps along the axis, 32 lanes across.
      {make({1, 4}, {1, 32}, {4, 1}, {1, 0}), {128, 128}, 0, 32},
      // A 1-D tile to a scalar: every thread has the one key.
      {make({4}, {32}, {4}, {0}), {1024}, 0, 1},
      // Axis bits in the middle of the lane and warp ids.
      {make({1, 1}, {4, 8}, {2, 4}, {0, 1}), {64, 64}, 1, 8},
  };
  for (auto &c : cases) {
    SCOPED_TRACE(c.l.str());
    EXPECT_EQ(c.l.numReductionKeys(c.shape, c.dim), c.keys);
    unsigned laneBits = 0, warpBits = 0;
    for (unsigned m : c.l.laneXorMasks(c.shape, c.dim))
      laneBits |= m;
    for (unsigned m : c.l.warpXorMasks(c.shape, c.dim))
      warpBits |= m;
    std::map<unsigned, std::pair<unsigned, unsigned>> byKey;
    for (unsigned warp = 0; warp < c.l.numWarps(); ++warp)
      for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned key = c.l.reductionKey(c.shape, c.dim, lane, warp);
        ASSERT_LT(int64_t(key), c.keys);
        std::pair<unsigned, unsigned> rest{lane & ~laneBits, warp & ~warpBits};
        auto [it, fresh] = byKey.emplace(key, rest);
        // One key per group of threads that differ only in axis bits.
        EXPECT_EQ(it->second, rest) << "key " << key;
      }
    EXPECT_EQ(int64_t(byKey.size()), c.keys);
  }
}

} // namespace

namespace {

// The dot layout puts the mma.sync m16n8 accumulator fragment in each warp:
// lane l holds rows l / 4 and l / 4 + 8 (of a 16-row block) and columns
// 2 (l mod 4) and the next (of an 8-column block), in the PTX order c0..c3.
TEST(DotLayout, HoldsTheMmaAccumulatorFragment) {
  auto l = dotLayout(32, 64, 4);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->warpsPerCTA, (std::vector<unsigned>{1, 4})); // warps along N first
  Shape shape{32, 64};
  expectExactCover(*l, shape);
  for (unsigned warp = 0; warp < 4; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      // register 0 and 1: row lane / 4, columns of block `warp`
      Index e0 = l->elementOf(shape, lane, warp, 0), e1 = l->elementOf(shape, lane, warp, 1);
      EXPECT_EQ(e0[0], lane / 4);
      EXPECT_EQ(e0[1], int64_t(warp * 8 + 2 * (lane % 4)));
      EXPECT_EQ(e1[1], e0[1] + 1);
      EXPECT_EQ(e1[0], e0[0]);
    }
}

TEST(DotLayout, SplitsWarpsAlongMWhenNIsNarrow) {
  auto l = dotLayout(64, 16, 8);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->warpsPerCTA, (std::vector<unsigned>{4, 2}));
  EXPECT_TRUE(isDotLayout(*l, 64, 16));
  expectExactCover(*l, Shape{64, 16});
  // The kernel-wide cap: as few warps along N as the narrowest dot allows.
  auto capped = dotLayout(64, 256, 8, nullptr, 2);
  ASSERT_TRUE(capped);
  EXPECT_EQ(capped->warpsPerCTA, (std::vector<unsigned>{4, 2}));
  // Never more than 8 along N (the lowering's chunk arithmetic).
  auto wide = dotLayout(32, 256, 16);
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->warpsPerCTA, (std::vector<unsigned>{2, 8}));
}

TEST(DotLayout, RejectsShapesTheWarpsCannotTile) {
  std::string why;
  EXPECT_FALSE(dotLayout(8, 64, 4, &why));
  EXPECT_NE(why.find("16 x 8 blocks"), std::string::npos) << why;
  EXPECT_FALSE(dotLayout(16, 8, 4, &why));
  EXPECT_NE(why.find("too small for 4 warps"), std::string::npos) << why;
  EXPECT_FALSE(isDotLayout(make({1, 4}, {8, 4}, {1, 4}, {1, 0}), 32, 64));
  EXPECT_FALSE(isDotLayout(*dotLayout(32, 64, 4), 32, 16)); // 4 warps along N need N >= 32
}

// trans moves nothing: thread t's register r holds (j, i) of the transposed
// tile where the source holds (i, j).
TEST(Transposed, SameRegistersSwappedIndices) {
  Blocked src = make({1, 8}, {4, 8}, {4, 1}, {1, 0});
  Blocked t = transposed(src);
  EXPECT_EQ(t, make({8, 1}, {8, 4}, {1, 4}, {0, 1}));
  Shape shape{64, 32}, tshape{32, 64};
  for (unsigned warp = 0; warp < 4; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < src.numRegisters(shape); ++r) {
        Index a = src.elementOf(shape, lane, warp, r), b = t.elementOf(tshape, lane, warp, r);
        EXPECT_EQ(a[0], b[1]);
        EXPECT_EQ(a[1], b[0]);
      }
  EXPECT_EQ(transposed(t), src);
}

} // namespace
