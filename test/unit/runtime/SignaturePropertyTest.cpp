//===- SignaturePropertyTest.cpp - prepare() against the model, at random -===//
//
// For each kernel: thousands of seeded random launches, half of them with one
// mistake, each checked by SignatureProperty.h's check(): the runtime refuses
// exactly what the model refuses (with an ArgError naming the kernel), and
// where both accept, the grid, block, variant and packed bytes agree. The
// kernels are TestManifests.h's, and with $MEGAC_MANIFESTS_DIR set, every
// kernel of every manifest (*.json) there: ctest `signature_property_kernels`
// points it at the manifests of kernels-dsl/.
//
//===----------------------------------------------------------------------===//
#include "ManifestDir.h"
#include "SignatureProperty.h"
#include "TestManifests.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

using namespace megac::rt;

namespace {

constexpr int kLaunches = 4000;

/// Runs `launches` launches of `kernel`; returns how many both accepted and how
/// many both refused, failing the test on the first disagreements.
void checkKernel(const KernelInfo &kernel, uint64_t seed, int launches, int &accepted, int &refused) {
  KernelSignature sig(kernel);
  model::Model m(sig.info());
  std::mt19937_64 rng(seed);
  model::Draw draw = [&](uint64_t n) { return n ? rng() % n : 0; };
  int failures = 0;
  for (int i = 0; i < launches && failures < 5; ++i) {
    model::Launch l = model::drawLaunch(m, draw);
    if (i % 2)
      model::breakLaunch(l, draw);
    bool both = false;
    std::string error = model::check(sig, m, l, both);
    if (!error.empty()) {
      ADD_FAILURE() << error;
      ++failures;
    }
    (both ? accepted : refused) += error.empty();
  }
}

/// A kernel with a scalar of every scalar dtype, tensors of several dtypes,
/// a grid and conditions that can fail to evaluate, a variant with a grid
/// and warps of its own, and accesses whose bounds hold or not, or fail to
/// evaluate.
KernelInfo everyDtypeKernel() {
  KernelInfo k;
  k.name = "every_dtype";
  k.numWarps = 2;
  k.grid = {"cdiv(n, d)", "s16 + 1", "u16 % 3 + 1"};
  for (DType t : {DType::i1, DType::i8, DType::u8, DType::i16, DType::u16, DType::i32, DType::u32,
                  DType::i64, DType::u64, DType::f16, DType::bf16, DType::f32, DType::f64}) {
    std::string name = "s_" + std::string(dtypeName(t));
    k.params.push_back({name, ParamKind::Scalar, t, 1, {}, 1});
  }
  k.params.push_back({"n", ParamKind::Scalar, DType::i32, 1, {}, 8});
  k.params.push_back({"d", ParamKind::Scalar, DType::i64, 1, {}, 1});
  k.params.push_back({"s16", ParamKind::Scalar, DType::i16, 1, {}, 1});
  k.params.push_back({"u16", ParamKind::Scalar, DType::u16, 1, {}, 1});
  k.params.push_back({"t_bf16", ParamKind::Tensor, DType::bf16, 16, {"n", "_"}, 1});
  k.params.push_back({"t_f8", ParamKind::Tensor, DType::f8e4m3, 4, {"2 * d", "n / 8"}, 1});
  k.params.push_back({"t_f4", ParamKind::Tensor, DType::f4e2m1x2, 1, {"n"}, 1});
  k.params.push_back({"t_one", ParamKind::Tensor, DType::i32, 8, {}, 1});
  VariantInfo wide{"wide", "every_dtype__wide", 0, 0, "ctas > 4 * sms && early && l2_mb >= 40", 8, {"n", "1", "1"}, {}, {}};
  VariantInfo odd{"odd", "every_dtype__odd", 0, 0, "n / (d - 1) > 2", 0, {}, {}, {}};
  odd.bounds = {{"t_f8", "load", "k.mega:3:9", "", "0", "16 / (d - 2) - 1", "", ""}};
  VariantInfo base{"default", "every_dtype", 0, 0, "", 0, {}, {}, {}};
  base.bounds = {{"t_one", "load", "k.mega:1:5", "", "0", "0", "", ""},
                 {"t_bf16", "store", "k.mega:2:5", "s_i8 > 0", "s_i8 - 1", "(grid_x - 1) * 8 + s_i8", "", ""},
                 {"t_f4", "atomic", "", "", "-s_i16", "grid_y", "", ""}};
  k.variants = {wide, odd, base};
  return k;
}

TEST(SignatureProperty, TestKernelsAgreeWithTheModel) {
  for (const KernelInfo &k : {test::vectorAddKernel(), test::gdnCoreKernel(), everyDtypeKernel()}) {
    // Ten times as many: each scalar's range is hit at its bounds.
    int accepted = 0, refused = 0;
    checkKernel(k, 1, 10 * kLaunches, accepted, refused);
    // Both outcomes must be common, or the test says little.
    EXPECT_GT(accepted, kLaunches) << k.name;
    EXPECT_GT(refused, kLaunches) << k.name;
  }
}

TEST(SignatureProperty, ManifestKernelsAgreeWithTheModel) {
  const char *dir = std::getenv("MEGAC_MANIFESTS_DIR");
  if (!dir)
    GTEST_SKIP() << "MEGAC_MANIFESTS_DIR is not set (ctest signature_property_kernels sets it)";
  std::vector<KernelInfo> kernels = test::manifestKernels(dir);
  ASSERT_GT(kernels.size(), 20u);
  for (const KernelInfo &k : kernels) {
    int accepted = 0, refused = 0;
    checkKernel(k, std::hash<std::string>()(k.name), kLaunches, accepted, refused);
    EXPECT_GT(accepted, kLaunches / 50) << k.name;
    EXPECT_GT(refused, kLaunches / 10) << k.name;
  }
}

} // namespace
