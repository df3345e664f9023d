// parsePtxasReport on real `ptxas -v` output.
#include "codegen/Ptxas.h"

#include <gtest/gtest.h>

using megac::parsePtxasReport;

namespace {

// /usr/local/cuda/bin/ptxas -v -arch=sm_90a on the PTX megac emits for
//   @variant(small, maxnreg = 32) kernel total(...) { store(out, sum(load(x + offs))); }
//   kernel scale(...) { store(x + offs, load(x + offs) * k); }
// (CUDA 13.0, V13.0.88).
const char *kReal = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'scale' for 'sm_90a'
ptxas info    : Function properties for scale
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 0 barriers
ptxas info    : Compile time = 3.494 ms
ptxas info    : Compiling entry function 'total__small' for 'sm_90a'
ptxas info    : Function properties for total__small
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 2048 bytes smem
ptxas info    : Compile time = 7.367 ms
ptxas info    : Compiling entry function 'total' for 'sm_90a'
ptxas info    : Function properties for total
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 2048 bytes smem
ptxas info    : Compile time = 2.922 ms
)";

TEST(PtxasReport, RealOutput) {
  auto kernels = parsePtxasReport(kReal);
  ASSERT_EQ(kernels.size(), 3u);
  ASSERT_TRUE(kernels.count("scale"));
  ASSERT_TRUE(kernels.count("total"));
  ASSERT_TRUE(kernels.count("total__small"));
  EXPECT_EQ(kernels["scale"].registers, 14);
  EXPECT_EQ(kernels["scale"].shared, 0);
  EXPECT_EQ(kernels["scale"].spills(), 0);
  EXPECT_EQ(kernels["scale"].stack, 0);
  EXPECT_EQ(kernels["total"].registers, 14);
  EXPECT_EQ(kernels["total"].shared, 2048);
  EXPECT_EQ(kernels["total__small"].shared, 2048);
}

// A kernel capped hard enough to spill: same line format, non-zero frame.
TEST(PtxasReport, SpillsAndStack) {
  auto kernels = parsePtxasReport(
      "ptxas info    : Compiling entry function 'big__tight' for 'sm_100a'\n"
      "ptxas info    : Function properties for big__tight\n"
      "    48 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 1 barriers, 4096 bytes smem\n");
  ASSERT_EQ(kernels.size(), 1u);
  const auto &k = kernels["big__tight"];
  EXPECT_EQ(k.stack, 48);
  EXPECT_EQ(k.spillStores, 40);
  EXPECT_EQ(k.spillLoads, 36);
  EXPECT_EQ(k.spills(), 76);
  EXPECT_EQ(k.registers, 32);
  EXPECT_EQ(k.shared, 4096);
}

// Lines before the first entry function (gmem, warnings) belong to nobody.
TEST(PtxasReport, IgnoresLinesOutsideFunctions) {
  EXPECT_TRUE(parsePtxasReport("ptxas info    : 0 bytes gmem\n").empty());
  EXPECT_TRUE(parsePtxasReport("").empty());
  auto kernels = parsePtxasReport(
      "ptxas info    : Used 99 registers, 512 bytes smem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels["k"].registers, 0);
  EXPECT_EQ(kernels["k"].shared, 0);
}

} // namespace
