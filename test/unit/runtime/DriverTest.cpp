//===- DriverTest.cpp - Driver absence and launches on a real GPU ---------===//
//
// The CI machine has no driver: there the GPU tests skip and the absence test
// checks the message. On a GPU machine the same binary launches real kernels.
//
//===----------------------------------------------------------------------===//
#include "megac/runtime/driver.h"
#include "megac/runtime/error.h"
#include "megac/runtime/module.h"

#include "cuda_driver.h"

#include <gtest/gtest.h>

#include <vector>

using namespace megac::rt;

namespace {

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    std::string why;                                                           \
    if (!driverAvailable(&why))                                                \
      GTEST_SKIP() << why.substr(why.find("no CUDA driver"));                  \
  } while (0)

TEST(Driver, MissingLibraryIsAClearError) {
  EXPECT_EQ(probeDriverLibrary("libcuda-does-not-exist.so.1"),
            "megac: no CUDA driver: libcuda-does-not-exist.so.1 could not be "
            "opened (libcuda-does-not-exist.so.1: cannot open shared object "
            "file: No such file or directory)");
}

TEST(Driver, AbsentDriverFailsLoadingWithTheReason) {
  std::string why;
  if (driverAvailable(&why))
    GTEST_SKIP() << "a CUDA driver is present";
  EXPECT_EQ(why.rfind("megac: no ", 0), 0u) << why;
  // Either libcuda.so.1 is missing, or it opened and cuInit failed.
  std::string probe = probeDriverLibrary(kDriverLibrary);
  if (!probe.empty())
    EXPECT_EQ(why, probe);
  else
    EXPECT_EQ(why.rfind("megac: no usable CUDA device: cuInit failed: ", 0),
              0u);
  Bundle b;
  b.manifest.module = "m";
  try {
    Module::load(b, "m.mgb");
    FAIL() << "loaded without a driver";
  } catch (const DriverError &e) {
    EXPECT_EQ(std::string(e.what()), why);
  }
}

// out[i] = value for i < n; generic sm_90 PTX so any Hopper or later JITs it.
constexpr const char *kFillPtx = R"ptx(
.version 7.8
.target sm_90
.address_size 64
.visible .entry fill(.param .u64 out, .param .f32 value, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.f32 %f1, [value];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.f32 [%rd2], %f1;
DONE:
  ret;
}
)ptx";

Bundle fillBundle() {
  Bundle b;
  b.manifest.module = "fill";
  KernelInfo k;
  k.name = "fill";
  k.numWarps = 4;
  k.grid = {"cdiv(n, 128)", "1", "1"};
  k.params = {{"out", ParamKind::Tensor, DType::f32, 16, {"n"}, 1},
              {"value", ParamKind::Scalar, DType::f32, 1, {}, 1},
              {"n", ParamKind::Scalar, DType::u32, 1, {}, 1}};
  k.variants = {{"default", "fill", 0, 0, "", 0, {}}};
  b.manifest.kernels = {k};
  b.manifest.images = {{"sm_90", ImageKind::Ptx, 1, {}}};
  b.blobs = {kFillPtx};
  return b;
}

TEST(Gpu, LaunchesAKernelFromMemory) {
  REQUIRE_GPU();
  std::string bytes = writeBundle(fillBundle());
  auto module = Module::loadMemory(bytes.data(), bytes.size(), "fill.mgb");
  EXPECT_EQ(module->loadedImage(), "ptx sm_90");
  const CudaDriver &api = cudaDriver();
  const uint32_t n = 1000;
  CUdeviceptr out;
  ASSERT_EQ(api.cuMemAlloc(&out, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(api.cuMemsetD8(out, 0, n * 4), CUDA_SUCCESS);
  module->kernel("fill").launch(
      {Arg::tensor(out, DType::f32, {n}), Arg::scalar(DType::f32, 2.5)},
      nullptr);
  std::vector<float> host(n);
  ASSERT_EQ(api.cuMemcpyDtoH(host.data(), out, n * 4), CUDA_SUCCESS);
  api.cuMemFree(out);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(host[i], 2.5f) << i;
}

TEST(Gpu, LaunchErrorsNameTheKernel) {
  REQUIRE_GPU();
  Bundle b = fillBundle();
  b.manifest.kernels[0].variants[0].symbol = "nope";
  try {
    Module::load(b, "bad.mgb");
    FAIL() << "loaded";
  } catch (const DriverError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "kernel 'fill' (variant 'default'): "
                  "cuModuleGetFunction(\"nope\") failed: CUDA_ERROR_NOT_FOUND"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
