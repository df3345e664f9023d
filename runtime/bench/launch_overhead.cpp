//===- launch_overhead.cpp - Host cost of one megac kernel launch ---------===//
//
// megac-launch-bench [-n BATCHES] [-b BATCH] [BUNDLE KERNEL [name=value ...]]
//
// Prints, as JSON, the host microseconds that one launch call costs: through
// Kernel::launch (argument checks included) and through a bare cuLaunchKernel
// of the same function, their difference (megac's own cost per launch), and
// the argument checks alone (KernelSignature::prepare).
//
// Host cost, not GPU throughput: launches go in batches of BATCH (default 256,
// below the depth of the stream's launch queue, so that no call waits for the
// GPU to drain it), only the launch calls of a batch are timed, and the stream
// is synchronized between batches outside the timed region. BATCHES (default
// 400) batches of each kind alternate (megac, raw, megac, ...) so that clock
// drift hits both alike; the median, p10 and p90 over batches are reported.
// Without a bundle, an empty sm_90a kernel embedded below is used; with one,
// scalars come from name=value and tensors are allocated (zeroed) from the
// manifest's shapes, and the raw comparison is made with the embedded kernel
// (same launch shape as the bundle's, a null stream).
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"
#include "megac/runtime/error.h"
#include "megac/runtime/module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace megac::rt;

namespace {

constexpr const char *kEmptyPtx = R"ptx(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry megac_empty(.param .u64 x, .param .u32 n)
{
  ret;
}
)ptx";

Bundle emptyBundle() {
  Bundle b;
  b.manifest.module = "empty";
  KernelInfo k;
  k.name = "empty";
  k.numWarps = 4;
  k.grid = {"cdiv(n, 1024)", "1", "1"};
  k.params = {{"x", ParamKind::Tensor, DType::f32, 16, {"n"}, 1},
              {"n", ParamKind::Scalar, DType::i32, 1, {}, 16}};
  k.variants = {{"default", "megac_empty", 0, 0, "", 0, {}}};
  b.manifest.kernels = {k};
  b.manifest.images = {{"sm_90a", ImageKind::Ptx, 1, {}}};
  b.blobs = {kEmptyPtx};
  return b;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Stats {
  double median, p10, p90, min;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    double k = q * double(v.size() - 1);
    size_t lo = size_t(k), hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (k - double(lo));
  };
  return {at(0.5), at(0.1), at(0.9), v.front()};
}

std::string json(const char *key, const Stats &s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "\"%s\": {\"median\": %.4f, \"p10\": %.4f, \"p90\": %.4f, "
                "\"min\": %.4f}",
                key, s.median, s.p10, s.p90, s.min);
  return buf;
}

int run(int argc, char **argv) {
  long batches = 400, batch = 256;
  int argi = 1;
  while (argi + 1 < argc && argv[argi][0] == '-') {
    if (std::strcmp(argv[argi], "-n") == 0)
      batches = std::atol(argv[argi + 1]);
    else if (std::strcmp(argv[argi], "-b") == 0)
      batch = std::atol(argv[argi + 1]);
    else
      break;
    argi += 2;
  }
  if (batches < 1 || batch < 1 || (argi < argc && argv[argi][0] == '-')) {
    std::fprintf(stderr,
                 "usage: %s [-n BATCHES] [-b BATCH] [BUNDLE KERNEL "
                 "[name=value ...]]\n",
                 argv[0]);
    return 2;
  }
  std::shared_ptr<Module> module;
  std::string kernelName = "empty", source = "embedded";
  if (argi < argc) {
    if (argi + 1 >= argc) {
      std::fprintf(stderr,
                   "usage: %s [-n BATCHES] [-b BATCH] [BUNDLE KERNEL "
                   "[name=value ...]]\n",
                   argv[0]);
      return 2;
    }
    source = argv[argi];
    module = Module::loadFile(argv[argi]);
    kernelName = argv[argi + 1];
    argi += 2;
  } else {
    module = Module::load(emptyBundle(), "embedded");
  }
  const Kernel &kernel = module->kernel(kernelName);
  const KernelInfo &info = kernel.signature().info();
  const CudaDriver &api = cudaDriver();

  // Scalars: name=value from the command line (n=1024 for the empty kernel).
  std::vector<std::string> names(info.params.size() + 2);
  std::vector<int64_t> env(info.params.size() + 2, 0);
  for (size_t i = 0; i < info.params.size(); ++i)
    if (info.params[i].kind == ParamKind::Scalar)
      names[i] = info.params[i].name;
  if (source == "embedded")
    env[1] = 1024;
  for (; argi < argc; ++argi) {
    std::string kv = argv[argi];
    size_t eq = kv.find('=');
    bool found = false;
    for (size_t i = 0; eq != std::string::npos && i < names.size(); ++i)
      if (!names[i].empty() && names[i] == kv.substr(0, eq)) {
        env[i] = std::atoll(kv.c_str() + eq + 1);
        found = true;
      }
    if (!found)
      throw Error("megac-launch-bench: bad scalar binding '" + kv + "'");
  }
  std::vector<Arg> args;
  std::vector<CUdeviceptr> buffers;
  for (size_t i = 0; i < info.params.size(); ++i) {
    const ParamInfo &p = info.params[i];
    if (p.kind == ParamKind::Scalar) {
      args.push_back(isFloat(p.dtype) ? Arg::scalar(p.dtype, double(env[i]))
                                      : Arg::scalar(p.dtype, env[i]));
      continue;
    }
    int64_t shape[kMaxDims];
    int64_t bytes = int64_t(dtypeSize(p.dtype));
    for (size_t d = 0; d < p.shape.size(); ++d) {
      shape[d] = Expr::parse(p.shape[d], names).eval(env.data());
      bytes *= shape[d];
    }
    CUdeviceptr ptr = 0;
    checkCuda(api.cuMemAlloc(&ptr, size_t(bytes > 0 ? bytes : 1)), "cuMemAlloc",
              "bench");
    checkCuda(api.cuMemsetD8(ptr, 0, size_t(bytes > 0 ? bytes : 1)),
              "cuMemsetD8", "bench");
    buffers.push_back(ptr);
    args.push_back(Arg::tensor(ptr, p.dtype, shape, int(p.shape.size())));
  }

  // The same launch without megac: the embedded empty kernel, loaded by hand,
  // with the launch shape and parameter buffer megac computes for `kernel`
  // (prepared once, outside the timing). For a bundle kernel the parameter
  // list differs from the empty kernel's; cuLaunchKernel's host cost hardly
  // depends on it, and the empty kernel reads none of them.
  LaunchConfig c;
  const DeviceFacts h200{132, 60}; // the argument check's cost does not depend on it
  kernel.signature().prepare(args.data(), args.size(), h200, nullptr, c);
  CUmodule raw = nullptr;
  CUfunction fn = nullptr;
  checkCuda(api.cuModuleLoadData(&raw, kEmptyPtx), "cuModuleLoadData",
            "bench");
  checkCuda(api.cuModuleGetFunction(&fn, raw, "megac_empty"),
            "cuModuleGetFunction", "bench");
  // The empty kernel's own parameters (x, n) for the raw launches.
  CUdeviceptr rawX = buffers.empty() ? 0 : buffers[0];
  uint32_t rawN = 1024;
  void *rawParams[] = {&rawX, &rawN};
  const bool sameKernel = source == "embedded";
  void **params = sameKernel ? c.params : rawParams;

  auto sync = [&] {
    checkCuda(api.cuStreamSynchronize(nullptr), "cuStreamSynchronize",
              "bench");
  };
  auto megacBatch = [&] {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < batch; ++i)
      kernel.launch(args.data(), args.size(), nullptr);
    return secondsSince(t0);
  };
  auto rawBatch = [&] {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < batch; ++i) {
      CUresult r = api.cuLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2],
                                      c.block[0], c.block[1], c.block[2], 0,
                                      nullptr, params, nullptr);
      if (r != CUDA_SUCCESS)
        checkCuda(r, "cuLaunchKernel", "bench (raw)");
    }
    return secondsSince(t0);
  };

  // Warm up (the first launch loads the module in this context).
  for (int w = 0; w < 5; ++w) {
    megacBatch();
    sync();
    rawBatch();
    sync();
  }

  std::vector<double> megacUs, rawUs, diffUs, checkUs, ctxUs, ctxIdUs;
  for (long b = 0; b < batches; ++b) {
    double m = megacBatch();
    sync();
    double r = rawBatch();
    sync();
    megacUs.push_back(1e6 * m / double(batch));
    rawUs.push_back(1e6 * r / double(batch));
    diffUs.push_back(1e6 * (m - r) / double(batch));
  }
  // Host-only parts, no GPU work: the argument checks, and the context query
  // every launch makes.
  for (long b = 0; b < batches; ++b) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < batch; ++i)
      kernel.signature().prepare(args.data(), args.size(), h200, nullptr, c);
    checkUs.push_back(1e6 * secondsSince(t0) / double(batch));
    CUcontext ctx = nullptr;
    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < batch; ++i)
      api.cuCtxGetCurrent(&ctx);
    ctxUs.push_back(1e6 * secondsSince(t0) / double(batch));
    unsigned long long id = 0;
    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < batch; ++i)
      api.cuCtxGetId(ctx, &id);
    ctxIdUs.push_back(1e6 * secondsSince(t0) / double(batch));
  }
  sync();

  Stats sm = stats(megacUs), sr = stats(rawUs), sd = stats(diffUs);
  std::printf("{\"bundle\": \"%s\", \"kernel\": \"%s\", \"image\": \"%s\", "
              "\"raw_kernel\": \"%s\", \"batches\": %ld, \"batch\": %ld, "
              "\"us_per_launch\": %.4f, \"us_per_raw_cuLaunchKernel\": %.4f, "
              "\"us_megac_overhead\": %.4f, \"us_per_arg_check\": %.4f, "
              "\"us_per_cuCtxGetCurrent\": %.4f, \"us_per_cuCtxGetId\": %.4f, "
              "\"under_1us\": %s, %s, %s, %s, %s, %s, %s}\n",
              source.c_str(), kernelName.c_str(), module->loadedImage().c_str(),
              sameKernel ? "same" : "embedded empty kernel", batches, batch,
              sm.median, sr.median, sd.median, stats(checkUs).median,
              stats(ctxUs).median, stats(ctxIdUs).median, sm.median < 1.0 ? "true" : "false",
              json("launch", sm).c_str(), json("raw", sr).c_str(),
              json("overhead", sd).c_str(), json("arg_check", stats(checkUs)).c_str(),
              json("cuCtxGetCurrent", stats(ctxUs)).c_str(),
              json("cuCtxGetId", stats(ctxIdUs)).c_str());
  api.cuModuleUnload(raw);
  for (CUdeviceptr p : buffers)
    api.cuMemFree(p);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
