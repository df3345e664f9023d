//===- ImageSelectTest.cpp - Choosing the image for a device --------------===//
#include "megac/runtime/error.h"
#include "megac/runtime/image_select.h"

#include <gtest/gtest.h>

using namespace megac::rt;

namespace {

Manifest withImages(std::vector<std::pair<ImageKind, std::string>> images) {
  Manifest m;
  m.module = "m";
  int section = 1;
  for (auto &[kind, target] : images)
    m.images.push_back({target, kind, section++, {}});
  return m;
}

constexpr ImageKind kPtx = ImageKind::Ptx, kCubin = ImageKind::Cubin;

TEST(ImageSelect, ExactCubinFirst) {
  Manifest m = withImages({{kPtx, "sm_90a"},
                           {kCubin, "sm_90"},
                           {kCubin, "sm_90a"},
                           {kCubin, "sm_100a"}});
  EXPECT_EQ(selectImage(m, 9, 0, true, "b"), 2u); // sm_90a over sm_90
  EXPECT_EQ(selectImage(m, 10, 0, true, "b"), 3u);
}

TEST(ImageSelect, PtxJitOfACompatibleTarget) {
  Manifest m = withImages(
      {{kPtx, "sm_80"}, {kPtx, "sm_90a"}, {kCubin, "sm_90a"}, {kPtx, "sm_89"}});
  EXPECT_EQ(selectImage(m, 8, 9, true, "b"), 3u);  // newest that fits
  EXPECT_EQ(selectImage(m, 10, 0, true, "b"), 3u); // sm_90a PTX is 9.0 only
  EXPECT_EQ(selectImage(m, 8, 6, true, "b"), 0u);
}

TEST(ImageSelect, FamilyTargets) {
  Manifest m = withImages({{kPtx, "sm_100f"}});
  EXPECT_EQ(selectImage(m, 10, 3, true, "b"), 0u);
  EXPECT_THROW(selectImage(m, 12, 0, true, "b"), DriverError);
}

TEST(ImageSelect, RefusalNamesDeviceAndImages) {
  Manifest m = withImages({{kPtx, "sm_90a"}, {kCubin, "sm_90a"}});
  try {
    selectImage(m, 8, 0, true, "k.mgb");
    FAIL() << "accepted";
  } catch (const DriverError &e) {
    EXPECT_STREQ(e.what(),
                 "megac: module 'm' (k.mgb): no image runs on this device "
                 "(sm_80): the bundle has ptx sm_90a, cubin sm_90a (cubins "
                 "need the exact architecture; PTX for sm_XYa runs only on "
                 "sm_XY)");
  }
  Manifest ptxOnly = withImages({{kPtx, "sm_80"}});
  try {
    selectImage(ptxOnly, 9, 0, false, "k.mgb");
    FAIL() << "accepted";
  } catch (const DriverError &e) {
    EXPECT_NE(std::string(e.what()).find("PTX JIT is disabled"),
              std::string::npos);
  }
}

} // namespace
