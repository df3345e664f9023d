// The shared-memory layouts of the algebra: offsets, bank conflicts and the
// choice of a layout per conversion (plain C++).
#include "Tile/Layout/SharedLayout.h"

#include <gtest/gtest.h>

#include <set>

using namespace megac::layout;

namespace {

TileLayout blocked(std::vector<unsigned> spt, std::vector<unsigned> tpw, std::vector<unsigned> wpc,
                   std::vector<unsigned> order) {
  return TileLayout{Blocked{std::move(spt), std::move(tpw), std::move(wpc), std::move(order)}, -1};
}

// Every element of `shape` gets its own offset inside the allocation.
void expectBijective(const SharedLayout &s, const Shape &shape) {
  SCOPED_TRACE(s.str());
  std::set<int64_t> seen;
  int64_t count = 0;
  Index index(shape.size(), 0);
  while (true) {
    int64_t off = s.offsetOf(shape, index);
    EXPECT_GE(off, 0);
    EXPECT_LT(off, s.allocationElems(shape));
    seen.insert(off);
    ++count;
    size_t d = shape.size();
    while (d-- > 0 && ++index[d] == shape[d])
      index[d] = 0;
    if (d == size_t(-1))
      break;
  }
  EXPECT_EQ(int64_t(seen.size()), count);
}

// 32x32: lanes along the rows (one column per warp and register) and lanes
// along the columns.
const Shape k32x32 = {32, 32};
const TileLayout kLanesDownColumns = blocked({1, 1}, {32, 1}, {1, 4}, {0, 1});
const TileLayout kLanesAlongRows = blocked({1, 1}, {1, 32}, {4, 1}, {1, 0});

} // namespace

TEST(SharedLayout, OffsetsAreBijective) {
  for (const Shape &shape :
       {Shape{32, 32}, Shape{16, 128}, Shape{128, 8}, Shape{4, 8, 16}, Shape{512}})
    for (unsigned vec : {1u, 2u, 4u, 8u})
      for (unsigned perPhase : {1u, 2u, 4u})
        for (unsigned maxPhase : {1u, 2u, 8u, 32u}) {
          std::vector<unsigned> order;
          for (unsigned k = 0; k < shape.size(); ++k)
            order.push_back(unsigned(shape.size()) - 1 - k);
          expectBijective(SharedLayout::swizzled(vec, perPhase, maxPhase, order), shape);
          std::reverse(order.begin(), order.end());
          expectBijective(SharedLayout::swizzled(vec, perPhase, maxPhase, order), shape);
        }
  for (unsigned interval : {4u, 32u, 128u})
    for (unsigned padding : {1u, 4u}) {
      expectBijective(SharedLayout::padded(interval, padding, {1, 0}), {32, 32});
      expectBijective(SharedLayout::padded(interval, padding, {0, 1}), {16, 64});
    }
}

TEST(SharedLayout, OffsetsByHand) {
  auto swz = SharedLayout::swizzled(4, 1, 8, {1, 0});
  // Row 3, column 9: chunk 2 xor phase 3 = chunk 1, +1 within.
  EXPECT_EQ(swz.offsetOf(k32x32, {3, 9}), 3 * 32 + 1 * 4 + 1);
  // Column-major order: column 9 is the row of the buffer.
  auto colMajor = SharedLayout::swizzled(1, 1, 1, {0, 1});
  EXPECT_EQ(colMajor.offsetOf(k32x32, {3, 9}), 9 * 32 + 3);
  auto pad = SharedLayout::padded(32, 1, {1, 0});
  EXPECT_EQ(pad.offsetOf(k32x32, {3, 9}), 3 * 33 + 9);
  EXPECT_EQ(pad.allocationElems(k32x32), 1024 + 31);
  // A phase count larger than the row allows wraps onto the chunks there are.
  auto wide = SharedLayout::swizzled(8, 1, 32, {1, 0});
  EXPECT_EQ(wide.offsetOf(Shape{8, 16}, {1, 0}), 16 + 8);
}

TEST(SharedLayout, Validate) {
  EXPECT_EQ(SharedLayout::swizzled(4, 1, 8, {1, 0}).validate(), "");
  EXPECT_NE(SharedLayout::swizzled(3, 1, 8, {1, 0}).validate(), "");
  EXPECT_NE(SharedLayout::swizzled(4, 1, 8, {1, 1}).validate(), "");
  EXPECT_EQ(SharedLayout::padded(32, 1, {0}).validate(), "");
  EXPECT_NE(SharedLayout::padded(24, 1, {0}).validate(), "");
  EXPECT_NE(SharedLayout::padded(32, 0, {0}).validate(), "");
}

TEST(SharedLayout, StrMatchesAttributeSyntax) {
  EXPECT_EQ(SharedLayout::swizzled(4, 2, 8, {1, 0}).str(),
            "#tile.swizzled_shared<vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]>");
  EXPECT_EQ(SharedLayout::padded(32, 1, {0, 1}).str(),
            "#tile.padded_shared<interval = 32, padding = 1, order = [0, 1]>");
}

TEST(SharedLayout, ConflictDegreeByHand) {
  auto rowMajor = SharedLayout::rowMajor(2);
  // Lanes along a row touch 32 consecutive words: one wavefront.
  auto rows = bankConflicts(kLanesAlongRows, k32x32, 4, rowMajor, 4);
  EXPECT_EQ(rows.ways, 1);
  EXPECT_EQ(rows.instructions, 4 * 8);
  EXPECT_EQ(rows.wavefronts, 4 * 8);
  // Lanes down a column: word 32 * lane + c, all in bank c: 32-way.
  auto cols = bankConflicts(kLanesDownColumns, k32x32, 4, rowMajor, 4);
  EXPECT_EQ(cols.ways, 32);
  EXPECT_EQ(cols.wavefronts, 4 * 8 * 32);
  // One word of padding per row spreads a column over every bank, and so
  // does an XOR of the column with the row.
  EXPECT_EQ(
      bankConflicts(kLanesDownColumns, k32x32, 4, SharedLayout::padded(32, 1, {1, 0}), 4).ways, 1);
  EXPECT_EQ(
      bankConflicts(kLanesDownColumns, k32x32, 4, SharedLayout::swizzled(1, 1, 32, {1, 0}), 4).ways,
      1);
  // 16-bit elements down a column: a row is 16 words, so lane l's word is
  // 16 l + c / 2: even lanes in one bank, odd lanes in another, 16-way.
  EXPECT_EQ(bankConflicts(kLanesDownColumns, k32x32, 4, rowMajor, 2).ways, 16);
  // 8-byte elements along a row: two phases of 16 lanes, each 128 bytes.
  auto wide = bankConflicts(kLanesAlongRows, k32x32, 4, rowMajor, 8);
  EXPECT_EQ(wide.ways, 1);
  EXPECT_EQ(wide.wavefronts, 4 * 8 * 2);
  // 16-byte vectors (4 x f32 per lane along a row): quarter-warp phases.
  auto vec4 = blocked({1, 4}, {4, 8}, {4, 1}, {1, 0});
  EXPECT_EQ(sharedAccessWidth(vec4, k32x32, rowMajor, 4), 4u);
  auto v = bankConflicts(vec4, k32x32, 4, rowMajor, 4);
  EXPECT_EQ(v.ways, 1);
  EXPECT_EQ(v.instructions, 4 * 2);
  EXPECT_EQ(v.wavefronts, 4 * 2 * 4);
  // A swizzle narrower than the thread's run limits the vector.
  EXPECT_EQ(sharedAccessWidth(vec4, k32x32, SharedLayout::swizzled(2, 1, 8, {1, 0}), 4), 2u);
}

TEST(SharedLayout, ClassifyConversion) {
  auto a = blocked({4}, {32}, {4}, {0}), b = blocked({1}, {32}, {4}, {0});
  EXPECT_EQ(classifyConversion(a, a, {512}, 4), ConversionKind::NoOp);
  EXPECT_EQ(classifyConversion(a, b, {512}, 4), ConversionKind::SharedMemory);
  auto r = blocked({1, 1}, {4, 8}, {1, 4}, {1, 0});
  auto c = blocked({1, 1}, {4, 8}, {1, 4}, {0, 1});
  EXPECT_EQ(classifyConversion(r, c, k32x32, 4), ConversionKind::WarpShuffles);
}

// The transpose of a 32x32 f32 tile on 4 warps: 16-byte vectors along the
// rows in, 4 registers down the columns out. A row-major buffer makes the
// reads 8-way; the chosen layout makes both sides conflict-free.
TEST(SharedLayout, ChosenLayoutMakesTransposeConflictFree) {
  auto src = blocked({1, 4}, {4, 8}, {4, 1}, {1, 0});
  auto dst = blocked({4, 1}, {8, 4}, {1, 4}, {0, 1});
  ASSERT_EQ(classifyConversion(src, dst, k32x32, 4), ConversionKind::SharedMemory);
  auto plain = planSharedConversion(src, dst, k32x32, 4, SharedLayout::rowMajor(2), 4);
  EXPECT_EQ(plain.write.ways, 1);
  EXPECT_EQ(plain.read.ways, 8);
  SharedPlan plan = chooseSharedLayout(src, dst, k32x32, 4, 4);
  SCOPED_TRACE(plan.layout.str());
  EXPECT_EQ(plan.write.ways, 1);
  EXPECT_EQ(plan.read.ways, 1);
  expectBijective(plan.layout, k32x32);
  // Only the side along the buffer's rows keeps its 16-byte vectors: 2 per
  // thread on 4 warps; the other reads its 8 registers one by one.
  EXPECT_EQ(plan.write.instructions + plan.read.instructions, 4 * 2 + 4 * 8);
}

// Lanes down the columns on one side, along the rows on the other, scalars.
TEST(SharedLayout, ChosenLayoutFixesScalarColumnReads) {
  SharedPlan plan = chooseSharedLayout(kLanesAlongRows, kLanesDownColumns, k32x32, 4, 4);
  SCOPED_TRACE(plan.layout.str());
  EXPECT_EQ(plan.write.ways, 1);
  EXPECT_EQ(plan.read.ways, 1);
}

// A conversion that a row-major buffer already serves keeps it.
TEST(SharedLayout, ConflictFreeConversionKeepsRowMajor) {
  auto a = blocked({4}, {32}, {4}, {0}), b = blocked({1}, {32}, {4}, {0});
  SharedPlan plan = chooseSharedLayout(a, b, {512}, 4, 4);
  EXPECT_EQ(plan.layout, SharedLayout::rowMajor(1));
  EXPECT_EQ(plan.write.ways, 1);
  EXPECT_EQ(plan.read.ways, 1);
}
