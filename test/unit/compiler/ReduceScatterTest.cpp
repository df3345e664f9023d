// Several lane reductions in one butterfly (Tile/Layout/ReduceScatter.h):
// the plan run on 32 simulated lanes gives every lane, bit for bit, what
// the plain butterflies give, in fewer shuffles (plain C++).
#include "Tile/Layout/ReduceScatter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace megac::layout;

namespace {

using Lanes = std::vector<std::vector<float>>; // [lane][partial]

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Values whose sums round differently in another order.
Lanes randomLanes(int n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  Lanes v(32, std::vector<float>(n));
  for (auto &lane : v)
    for (float &x : lane)
      x = std::ldexp(mantissa(rng), exponent(rng));
  return v;
}

Lanes plainButterflies(Lanes v, const std::vector<unsigned> &masks) {
  for (unsigned m : masks) {
    Lanes before = v;
    for (unsigned l = 0; l < 32; ++l)
      for (size_t j = 0; j < v[l].size(); ++j)
        v[l][j] = before[l][j] + before[l ^ m][j];
  }
  return v;
}

// As the lowering emits it: each lane picks what it sends and keeps, one
// xor shuffle a slot, then one index shuffle a result.
Lanes runPlan(const ReduceScatterPlan &plan, Lanes v) {
  for (const ReduceScatterPlan::Step &s : plan.steps) {
    Lanes before = v;
    for (unsigned l = 0; l < 32; ++l) {
      auto sent = [&](unsigned lane, const ReduceScatterPlan::Half &h) {
        bool high = lane & s.mask;
        return high || h.high < 0 ? before[lane][h.low] : before[lane][h.high];
      };
      if (s.halves.empty()) {
        v[l].assign(1, before[l][0] + before[l ^ s.mask][0]);
        continue;
      }
      std::vector<float> next;
      bool high = l & s.mask;
      for (const ReduceScatterPlan::Half &h : s.halves) {
        float kept = high && h.high >= 0 ? before[l][h.high] : before[l][h.low];
        next.push_back(kept + sent(l ^ s.mask, h));
      }
      v[l] = next;
    }
  }
  Lanes out(32, std::vector<float>(plan.slotOf.size()));
  for (unsigned l = 0; l < 32; ++l)
    for (size_t j = 0; j < plan.slotOf.size(); ++j) {
      unsigned from = plan.scatterBits ? (l & ~plan.scatterBits) | plan.codeOf[j] : l;
      out[l][j] = v[from][plan.slotOf[j]];
    }
  return out;
}

void expectSameBits(int n, const std::vector<unsigned> &masks, std::mt19937 &rng) {
  SCOPED_TRACE("partials " + std::to_string(n) + ", masks " + std::to_string(masks.size()) +
               " from " + std::to_string(masks.empty() ? 0 : masks[0]));
  Lanes v = randomLanes(n, rng);
  ReduceScatterPlan plan = planReduceScatter(n, masks);
  Lanes want = plainButterflies(v, masks), got = runPlan(plan, v);
  for (unsigned l = 0; l < 32; ++l)
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(bits(got[l][j]), bits(want[l][j])) << "lane " << l << ", partial " << j;
}

TEST(ReduceScatter, EveryLaneGetsThePlainButterfliesBits) {
  std::mt19937 rng(7);
  const std::vector<std::vector<unsigned>> maskSets = {
      {16, 8, 4, 2, 1}, {1, 2, 4, 8, 16}, {4, 8, 16}, {2, 8}, {1}, {16}, {}};
  for (const auto &masks : maskSets)
    for (int n = 1; n <= 40; ++n)
      for (int trial = 0; trial < 3; ++trial)
        expectSameBits(n, masks, rng);
}

TEST(ReduceScatter, CountsShuffles) {
  // gdn_core's narrow rows: five sums over 32 lanes, 3 + 2 + 1 + 1 + 1
  // shuffles and five reads instead of 25.
  ReduceScatterPlan five = planReduceScatter(5, {1, 2, 4, 8, 16});
  EXPECT_EQ(five.numShuffles(), 13);
  EXPECT_EQ(five.numPlainShuffles(), 25);
  EXPECT_EQ(five.scatterBits, 1u | 2u | 4u);
  EXPECT_EQ(five.numSelects(), 2 * (2 + 1 + 1));
  EXPECT_TRUE(five.worthIt());
  // Two partials over two lanes' masks gain nothing (2 + 2 against 4).
  ReduceScatterPlan two = planReduceScatter(2, {1, 2});
  EXPECT_EQ(two.numShuffles(), 4);
  EXPECT_EQ(two.numPlainShuffles(), 4);
  EXPECT_FALSE(two.worthIt());
  // Eight over two masks: 4 + 2 shuffles and 8 reads, 12 selects, against 16.
  ReduceScatterPlan eight = planReduceScatter(8, {1, 2});
  EXPECT_EQ(eight.numShuffles(), 14);
  EXPECT_EQ(eight.numSelects(), 12);
  EXPECT_FALSE(eight.worthIt());
  // Two rows a thread over 32 lanes: 5 + 2 and 2 selects against 10.
  EXPECT_TRUE(planReduceScatter(2, {1, 2, 4, 8, 16}).worthIt());
  // One partial: the plain butterfly, no reads.
  ReduceScatterPlan one = planReduceScatter(1, {1, 2, 4, 8, 16});
  EXPECT_EQ(one.numShuffles(), 5);
  EXPECT_EQ(one.scatterBits, 0u);
  EXPECT_FALSE(one.worthIt());
  // More partials than lanes can split: two slots a lane at the end.
  ReduceScatterPlan many = planReduceScatter(40, {1, 2, 4, 8, 16});
  EXPECT_EQ(many.steps.back().halves.size(), 2u);
  EXPECT_EQ(many.numShuffles(), 20 + 10 + 5 + 3 + 2 + 40);
}

} // namespace
