//===- DriverTest.cpp - Driver absence, and launches on a GPU -------------===//
//
// The CI machine has no driver: there the GPU tests skip and the absence test
// checks the message; ctest `runtime_tests_fake_driver` runs the GPU tests
// (and FakeDriver.*, which only the stand-in can answer) again on the
// stand-in driver of fake_cuda/. On a GPU machine the same binary launches
// real kernels.
//
//===----------------------------------------------------------------------===//
#include "megac/runtime/driver.h"
#include "megac/runtime/error.h"
#include "megac/runtime/module.h"

#include "cuda_driver.h"
#include "fake_cuda/FakeLaunch.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace megac::rt;

namespace {

// A GPU test skips without a driver, but fails where one is required
// (MEGAC_TEST_REQUIRE_DRIVER: the ctest entry that runs them on the stand-in
// driver of fake_cuda/, which must not pass by skipping).
bool driverRequired() { return std::getenv("MEGAC_TEST_REQUIRE_DRIVER") != nullptr; }

// Skips the test, saying `why`, or fails it where a driver is required.
#define SKIP_UNLESS_REQUIRED(why)                                              \
  do {                                                                         \
    if (driverRequired())                                                      \
      FAIL() << why;                                                           \
    GTEST_SKIP() << why;                                                       \
  } while (0)

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    std::string why_;                                                          \
    if (!driverAvailable(&why_))                                               \
      SKIP_UNLESS_REQUIRED(why_.substr(why_.find("no CUDA driver")));          \
  } while (0)

// FakeDriver.*: what only the stand-in driver shows (fakeLastLaunch, below).
#define REQUIRE_FAKE_DRIVER()                                                  \
  do {                                                                         \
    REQUIRE_GPU();                                                             \
    if (!fakeLastLaunch())                                                     \
      SKIP_UNLESS_REQUIRED("a real driver: this test needs fake_cuda's stand-in"); \
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
  k.variants = {{"default", "fill", 0, 0, "", 0, {}, {}, {}}};
  b.manifest.kernels = {k};
  b.manifest.images = {{"sm_90", ImageKind::Ptx, 1, {}}};
  b.blobs = {kFillPtx};
  return b;
}

// "" when the n floats at `out` all equal `want` (after the work before on
// the current context's legacy stream), else what is wrong.
std::string filledWith(const CudaDriver &api, CUdeviceptr out, uint32_t n, float want) {
  std::vector<float> host(n);
  if (api.cuMemcpyDtoH(host.data(), out, n * 4) != CUDA_SUCCESS)
    return "cannot read the result back";
  for (uint32_t i = 0; i < n; ++i)
    if (host[i] != want)
      return "element " + std::to_string(i) + " is " + std::to_string(host[i]) + ", not " +
             std::to_string(want);
  return "";
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
  EXPECT_EQ(filledWith(api, out, n, 2.5f), "");
  api.cuMemFree(out);
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

// Driver calls the runtime does not make, looked up in the library it opened.
template <typename Fn> Fn driverSymbol(const char *name) {
  void *lib = dlopen(kDriverLibrary, RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<Fn>(dlsym(lib, name)) : nullptr;
}

// What the context tests share: the fill module, loaded, and the driver's
// context calls the runtime does not make (under the names cuda.h maps them
// to, as the runtime's table does).
struct FillModule {
  const CudaDriver &api = cudaDriver();
  decltype(&::cuCtxCreate) ctxCreate = driverSymbol<decltype(&::cuCtxCreate)>("cuCtxCreate_v4");
  decltype(&::cuCtxDestroy) ctxDestroy =
      driverSymbol<decltype(&::cuCtxDestroy)>("cuCtxDestroy_v2");
  std::string bytes = writeBundle(fillBundle());
  std::shared_ptr<Module> module = Module::loadMemory(bytes.data(), bytes.size(), "fill.mgb");
  const Kernel &fill = module->kernel("fill");
  CUdevice dev = 0;

  // Whether the driver has the context calls, and device 0 (into `dev`).
  bool ready() {
    return ctxCreate && ctxDestroy && api.cuDeviceGet(&dev, 0) == CUDA_SUCCESS;
  }

  // Fills n floats with `value` in the current context and reads them back:
  // "" when every one is right, else what is wrong (a launch's error too).
  std::string fillAndRead(uint32_t n, float value) const {
    CUdeviceptr out;
    if (api.cuMemAlloc(&out, n * 4) != CUDA_SUCCESS)
      return "cannot allocate";
    std::string wrong;
    try {
      fill.launch({Arg::tensor(out, DType::f32, {n}), Arg::scalar(DType::f32, value)}, nullptr);
      wrong = filledWith(api, out, n, value);
    } catch (const std::exception &e) {
      wrong = e.what();
    }
    api.cuMemFree(out);
    return wrong;
  }
};

// A context destroyed before a module loaded in it: the module must not
// touch it when it dies (its handle dangles, or names a newer context, which
// this test creates on purpose in case the driver reuses the handle), and
// the module still launches in the contexts that live.
TEST(Gpu, ModuleOutlivesAContextItWasLoadedIn) {
  REQUIRE_GPU();
  FillModule m;
  ASSERT_TRUE(m.ready());
  auto fillAndRead = [&](float value) { return m.fillAndRead(4096, value); };
  CUcontext first = nullptr, second = nullptr, popped;
  ASSERT_EQ(m.ctxCreate(&first, nullptr, 0, m.dev), CUDA_SUCCESS); // current now
  EXPECT_EQ(fillAndRead(1.5f), "");                             // loads the module into it
  ASSERT_EQ(m.ctxDestroy(first), CUDA_SUCCESS);
  ASSERT_EQ(m.ctxCreate(&second, nullptr, 0, m.dev), CUDA_SUCCESS);
  EXPECT_EQ(fillAndRead(2.5f), ""); // a context of its own, maybe at the old handle
  m.api.cuCtxPopCurrent(&popped);
  EXPECT_EQ(fillAndRead(3.5f), ""); // the primary context
  m.module.reset();                 // skips `first`, unloads from `second` and the primary
  ASSERT_EQ(m.ctxDestroy(second), CUDA_SUCCESS);
}

// The driver may give a new context the handle of one destroyed before it.
// A module loaded in the old context must then load itself into the new one
// rather than launch the old context's function (unloaded with it). Contexts
// are created and destroyed until the driver reuses a handle; each one the
// module was loaded in is launched in and checked.
TEST(Gpu, ContextHandleReusedByANewContext) {
  REQUIRE_GPU();
  FillModule m;
  ASSERT_TRUE(m.ready());
  auto fillAndRead = [&](float value) { return m.fillAndRead(4096, value); };
  int reused = 0, attempts = 0;
  for (; attempts < 50 && reused < 3; ++attempts) {
    CUcontext old = nullptr, fresh = nullptr;
    ASSERT_EQ(m.ctxCreate(&old, nullptr, 0, m.dev), CUDA_SUCCESS); // current now
    ASSERT_EQ(fillAndRead(float(attempts)), "") << "attempt " << attempts;
    ASSERT_EQ(m.ctxDestroy(old), CUDA_SUCCESS);
    ASSERT_EQ(m.ctxCreate(&fresh, nullptr, 0, m.dev), CUDA_SUCCESS);
    if (fresh == old) {
      ++reused;
      EXPECT_EQ(fillAndRead(1000.0f + float(attempts)), "") << "attempt " << attempts;
    }
    ASSERT_EQ(m.ctxDestroy(fresh), CUDA_SUCCESS);
  }
  std::printf("[ reuse    ] the driver reused a destroyed context's handle %d times in %d\n",
              reused, attempts);
  if (reused == 0)
    SKIP_UNLESS_REQUIRED("the driver reused no context handle in " << attempts << " tries");
}

// A module serves up to 64 live contexts; a destroyed context's entry is
// given to a new one. Seventy contexts, one after the other, each launched
// in and checked, then destroyed.
TEST(Gpu, ContextsComeAndGoPastTheModulesEntries) {
  REQUIRE_GPU();
  FillModule m;
  ASSERT_TRUE(m.ready());
  for (int i = 0; i < 70; ++i) {
    CUcontext ctx = nullptr;
    ASSERT_EQ(m.ctxCreate(&ctx, nullptr, 0, m.dev), CUDA_SUCCESS);
    EXPECT_EQ(m.fillAndRead(256, float(i)), "") << "context " << i;
    ASSERT_EQ(m.ctxDestroy(ctx), CUDA_SUCCESS);
  }
}

// The stand-in driver's record of this thread's last launch; null on a real
// driver, which shows no such thing.
const FakeLaunch *fakeLastLaunch() {
  auto last = driverSymbol<const FakeLaunch *(*)()>("megacFakeLastLaunch");
  return last ? last() : nullptr;
}

// What a launch hands the driver: the manifest's grid for the arguments,
// num_warps * 32 threads, the stream given; an early-launch kernel goes
// through cuLaunchKernelEx with programmatic stream serialization allowed,
// unless the variant chosen launches plainly or the module was loaded with
// early launch off. Only the stand-in driver shows a launch's configuration.
TEST(FakeDriver, LaunchConfiguration) {
  REQUIRE_FAKE_DRIVER();
  Bundle b = fillBundle();
  KernelInfo &k = b.manifest.kernels[0];
  k.earlyLaunch = true;
  // First whose `when` holds: `small` for n < 64, on 2 warps, launched plainly.
  k.variants.insert(k.variants.begin(), {"small", "fill", 0, 0, "n < 64", 2, {}, false, {}});
  std::string bytes = writeBundle(b);
  const CudaDriver &api = cudaDriver();
  CUdeviceptr out;
  ASSERT_EQ(api.cuMemAlloc(&out, 4096 * 4), CUDA_SUCCESS);
  auto launch = [&](const Module &m, uint32_t n, CUstream stream) {
    m.kernel("fill").launch({Arg::tensor(out, DType::f32, {n}), Arg::scalar(DType::f32, float(n))},
                            stream);
    return *fakeLastLaunch();
  };
  auto early = Module::loadMemory(bytes.data(), bytes.size(), "fill.mgb");
  CUstream stream = reinterpret_cast<CUstream>(0x5a);
  FakeLaunch big = launch(*early, 1000, stream);
  EXPECT_TRUE(big.ex && big.programmatic);
  EXPECT_EQ(std::vector<unsigned>(big.grid, big.grid + 3), (std::vector<unsigned>{8, 1, 1}));
  EXPECT_EQ(std::vector<unsigned>(big.block, big.block + 3), (std::vector<unsigned>{128, 1, 1}));
  EXPECT_EQ(big.stream, stream);
  EXPECT_EQ(big.sharedBytes, 0u);
  EXPECT_EQ(filledWith(api, out, 1000, 1000.0f), "");
  FakeLaunch small = launch(*early, 32, nullptr);
  EXPECT_FALSE(small.ex);
  EXPECT_EQ(std::vector<unsigned>(small.block, small.block + 3), (std::vector<unsigned>{64, 1, 1}));
  EXPECT_EQ(small.stream, nullptr);
  LoadOptions plain;
  plain.earlyLaunch = false;
  auto off = Module::loadMemory(bytes.data(), bytes.size(), "fill.mgb", plain);
  FakeLaunch offBig = launch(*off, 1000, stream);
  EXPECT_FALSE(offBig.ex);
  EXPECT_EQ(std::vector<unsigned>(offBig.grid, offBig.grid + 3), (std::vector<unsigned>{8, 1, 1}));
  api.cuMemFree(out);
}

// A module leaves no image loaded and no witness allocated behind (one a
// context: docs/runtime.md, Threads): not when its load fails partway (a
// kernel's symbol missing from the image), and not in any context that lives
// when it is destroyed. Only the stand-in driver counts them.
TEST(FakeDriver, NoModuleLeftLoaded) {
  REQUIRE_FAKE_DRIVER();
  auto loaded = driverSymbol<int (*)()>("megacFakeLoadedModules");
  auto allocated = driverSymbol<int (*)()>("megacFakeLiveAllocations");
  ASSERT_TRUE(loaded && allocated);
  int allocatedBefore = allocated();
  FillModule m;
  ASSERT_TRUE(m.ready());
  int before = loaded(); // m's, in the context current at its load
  EXPECT_EQ(allocated(), allocatedBefore + 1); // its witness there
  Bundle bad = fillBundle();
  bad.manifest.kernels[0].variants[0].symbol = "nope";
  EXPECT_THROW(Module::load(bad, "bad.mgb"), DriverError);
  EXPECT_EQ(loaded(), before);
  EXPECT_EQ(allocated(), allocatedBefore + 1);
  CUcontext own = nullptr, popped;
  ASSERT_EQ(m.ctxCreate(&own, nullptr, 0, m.dev), CUDA_SUCCESS);
  EXPECT_EQ(m.fillAndRead(256, 1.0f), ""); // loads the module into `own`
  EXPECT_EQ(loaded(), before + 1);
  EXPECT_EQ(allocated(), allocatedBefore + 2);
  m.api.cuCtxPopCurrent(&popped);
  m.module.reset();
  EXPECT_EQ(loaded(), before - 1);
  EXPECT_EQ(allocated(), allocatedBefore);
  ASSERT_EQ(m.ctxDestroy(own), CUDA_SUCCESS);
}

// fill with two variants by the device: first whose `when` holds, two warps
// where the device has more than 120 SMs and 55 MiB of L2 (many_sms), one
// where it has 50 to 55 MiB (small_l2), each with the grid its CTA size
// needs; an L2 size left unread (0) takes neither.
static Bundle fillBundleByDevice() {
  Bundle b = fillBundle();
  std::vector<VariantInfo> &variants = b.manifest.kernels[0].variants;
  variants.insert(variants.begin(),
                  {"many_sms", "fill", 0, 0, "sms > 120 && l2_mb > 55", 2, {"cdiv(n, 64)", "1", "1"}, {}, {}});
  variants.insert(variants.begin() + 1,
                  {"small_l2", "fill", 0, 0, "l2_mb >= 50 && l2_mb < 55", 1, {"cdiv(n, 32)", "1", "1"}, {}, {}});
  return b;
}

// One module on two devices (docs/runtime.md: a launch runs in the current
// context): loaded for device 1, it launches in device 1's primary context
// and, once device 0's is current, loads itself there and launches too; each
// context chooses the variant by its own device's SM count and L2 size. A
// one-GPU machine skips; the stand-in driver has two devices (132 SMs and
// 60 MiB of L2, 114 and 50), and there the launches show which variant ran.
TEST(Gpu, OneModuleOnTwoDevices) {
  REQUIRE_GPU();
  const CudaDriver &api = cudaDriver();
  CUdevice dev0, dev1;
  ASSERT_EQ(api.cuDeviceGet(&dev0, 0), CUDA_SUCCESS);
  if (api.cuDeviceGet(&dev1, 1) != CUDA_SUCCESS) {
    if (fakeLastLaunch())
      FAIL() << "the stand-in driver has two devices";
    GTEST_SKIP() << "one device";
  }
  std::string bytes = writeBundle(fillBundleByDevice());
  LoadOptions onDevice1;
  onDevice1.device = 1;
  auto module = Module::loadMemory(bytes.data(), bytes.size(), "fill.mgb", onDevice1);
  const uint32_t n = 1000;
  // Fills in `ctx` (a device's primary context) with `value`: what is wrong,
  // and the block the launch had where the driver shows it (else 0).
  auto fillIn = [&](CUcontext ctx, float value, unsigned &block) {
    EXPECT_EQ(api.cuCtxPushCurrent(ctx), CUDA_SUCCESS);
    CUdeviceptr out;
    std::string wrong = "cannot allocate";
    if (api.cuMemAlloc(&out, n * 4) == CUDA_SUCCESS) {
      module->kernel("fill").launch({Arg::tensor(out, DType::f32, {n}), Arg::scalar(DType::f32, value)},
                                    nullptr);
      wrong = filledWith(api, out, n, value);
      api.cuMemFree(out);
    }
    block = fakeLastLaunch() ? fakeLastLaunch()->block[0] : 0;
    CUcontext popped;
    api.cuCtxPopCurrent(&popped);
    return wrong;
  };
  CUcontext primary0, primary1;
  ASSERT_EQ(api.cuDevicePrimaryCtxRetain(&primary1, dev1), CUDA_SUCCESS);
  ASSERT_EQ(api.cuDevicePrimaryCtxRetain(&primary0, dev0), CUDA_SUCCESS);
  unsigned block1 = 0, block0 = 0;
  EXPECT_EQ(fillIn(primary1, 1.0f, block1), "");
  EXPECT_EQ(fillIn(primary0, 2.0f, block0), "");
  EXPECT_EQ(fillIn(primary1, 3.0f, block1), "");
  if (fakeLastLaunch()) {
    EXPECT_EQ(block0, 64u); // 132 SMs, 60 MiB: many_sms
    EXPECT_EQ(block1, 32u); // 114 SMs, 50 MiB: small_l2
  }
  module.reset();
  api.cuDevicePrimaryCtxRelease(dev0);
  api.cuDevicePrimaryCtxRelease(dev1);
}

// LoadOptions::chooseVariantsAs: the launches run the variants a device of
// the facts given would (an H200's variants tested on an H100, say), not this
// device's, with the grids those variants give; and the fill is right either
// way. The stand-in driver's device 0 has 132 SMs and 60 MiB of L2; there the
// launches show which variant ran.
TEST(Gpu, VariantsChosenAsOnAnotherDevice) {
  REQUIRE_GPU();
  const CudaDriver &api = cudaDriver();
  std::string bytes = writeBundle(fillBundleByDevice());
  const uint32_t n = 1000;
  // The block of a launch of a module loaded with `facts` (0 on a real
  // driver, which does not show it), after checking what it wrote. The load
  // makes the primary context current, where the buffer is allocated.
  auto blockAs = [&](DeviceFacts facts, float value) {
    LoadOptions options;
    options.chooseVariantsAs = facts;
    auto m = Module::loadMemory(bytes.data(), bytes.size(), "fill.mgb", options);
    CUdeviceptr out;
    EXPECT_EQ(api.cuMemAlloc(&out, n * 4), CUDA_SUCCESS);
    m->kernel("fill").launch({Arg::tensor(out, DType::f32, {n}), Arg::scalar(DType::f32, value)}, nullptr);
    EXPECT_EQ(filledWith(api, out, n, value), "") << facts.sms << " SMs, " << facts.l2Mb << " MiB";
    api.cuMemFree(out);
    return fakeLastLaunch() ? fakeLastLaunch()->block[0] : 0u;
  };
  unsigned h200 = blockAs({132, 60}, 1.0f), h100 = blockAs({132, 50}, 2.0f), small = blockAs({16, 4}, 3.0f);
  if (fakeLastLaunch()) {
    EXPECT_EQ(h200, 64u);   // many_sms, as the device itself would choose
    EXPECT_EQ(h100, 32u);   // small_l2, which this device never launches itself
    EXPECT_EQ(small, 128u); // neither: the default's 4 warps
  }
}

// Facts no device has are refused at load, before the driver is asked for
// anything: the test runs without one.
TEST(Driver, VariantsChosenAsOnNoDeviceAreRefused) {
  Bundle b = fillBundle();
  for (DeviceFacts facts : {DeviceFacts{0, 60}, DeviceFacts{132, -1}}) {
    LoadOptions options;
    options.chooseVariantsAs = facts;
    try {
      Module::load(b, "fill.mgb", options);
      FAIL() << "loaded with " << facts.sms << " SMs, " << facts.l2Mb << " MiB";
    } catch (const ArgError &e) {
      EXPECT_EQ(std::string(e.what()),
                "megac: module 'fill': variants chosen as on a device of sms = " + std::to_string(facts.sms) +
                    ", l2_mb = " + std::to_string(facts.l2Mb) + ": no such device (sms >= 1, l2_mb >= 0)");
    }
  }
}

// One module, many threads at once (docs/runtime.md, Threads): half of them
// adopt the device's primary context (a new thread has none current) and
// launch on the legacy stream; the others each create a context of their
// own, so that their first launches load the module into four contexts
// concurrently while the first half launches. Each thread fills a buffer of
// its own 200 times with values of its own, then checks the last.
TEST(Gpu, ThreadsShareAModule) {
  REQUIRE_GPU();
  FillModule m;
  const CudaDriver &api = m.api;
  const Kernel &fill = m.fill;
  auto streamCreate = driverSymbol<decltype(&::cuStreamCreate)>("cuStreamCreate");
  ASSERT_TRUE(m.ctxCreate && m.ctxDestroy && streamCreate);

  constexpr int kThreads = 8, kLaunches = 200;
  const uint32_t n = 1 << 16;
  std::atomic<int> ready{0};
  std::mutex failuresMutex;
  std::vector<std::string> failures;
  auto fail = [&](int t, const std::string &what) {
    std::lock_guard<std::mutex> lock(failuresMutex);
    failures.push_back("thread " + std::to_string(t) + ": " + what);
  };
  auto work = [&](int t) {
    CUcontext own = nullptr; // destroyed after the module, with its stream
    CUstream stream = nullptr;
    bool ownContext = t % 2 == 1;
    bool readyToLaunch = true;
    if (ownContext) {
      CUdevice dev;
      readyToLaunch = api.cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
                        m.ctxCreate(&own, nullptr, 0, dev) == CUDA_SUCCESS &&
                        streamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
    }
    // Every thread launches at once, the first launches of the new contexts
    // among them.
    ready.fetch_add(1);
    while (ready.load() < kThreads)
      std::this_thread::yield();
    if (!readyToLaunch)
      return fail(t, "cannot create a context and a stream");
    try {
      if (!ownContext) {
        // A launch of nothing still makes the primary context current, as
        // any launch from a thread without a context does.
        fill.launch({Arg::tensor(0, DType::f32, {0}), Arg::scalar(DType::f32, 0.0)}, nullptr);
        CUcontext current = nullptr;
        if (api.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current)
          return fail(t, "no context current after a launch");
      }
      CUdeviceptr out = 0;
      if (api.cuMemAlloc(&out, n * 4) != CUDA_SUCCESS)
        return fail(t, "cannot allocate");
      for (int i = 0; i < kLaunches; ++i)
        fill.launch({Arg::tensor(out, DType::f32, {n}), Arg::scalar(DType::f32, float(t * 1000 + i))},
                    stream);
      if (api.cuStreamSynchronize(stream) != CUDA_SUCCESS)
        return fail(t, "cannot synchronize the stream");
      std::string wrong = filledWith(api, out, n, float(t * 1000 + kLaunches - 1));
      api.cuMemFree(out);
      if (!wrong.empty())
        return fail(t, wrong);
    } catch (const std::exception &e) {
      fail(t, e.what());
    }
  };
  std::vector<CUcontext> created(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      work(t);
      if (t % 2 == 1)
        api.cuCtxGetCurrent(&created[size_t(t)]); // the thread's own context
    });
  for (std::thread &th : threads)
    th.join();
  for (const std::string &f : failures)
    ADD_FAILURE() << f;
  // The module first, then the contexts (the other order has a test of its
  // own: Gpu.ModuleOutlivesAContextItWasLoadedIn).
  m.module.reset();
  for (CUcontext ctx : created)
    if (ctx)
      m.ctxDestroy(ctx); // its stream with it
}

} // namespace
