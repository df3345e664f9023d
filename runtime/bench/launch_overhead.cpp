//===- launch_overhead.cpp - Host cost of one megac kernel launch ---------===//
//
// megac-launch-bench [-n N] [BUNDLE KERNEL [name=value ...]]
//
// Launches N times (default 100000) on one stream and prints, as JSON, the host
// microseconds per launch: through Kernel::launch (argument checks included)
// and through a bare cuLaunchKernel of the same function, for comparison. The
// stream is synchronized only at the end. Without a bundle, an empty sm_90a
// kernel embedded below is used. With one, scalars come from name=value and
// tensors are allocated (zeroed) from the manifest's shapes.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"
#include "megac/runtime/error.h"
#include "megac/runtime/module.h"

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
  k.variants = {{"default", "megac_empty", 0, 0, ""}};
  b.manifest.kernels = {k};
  b.manifest.images = {{"sm_90a", ImageKind::Ptx, 1, {}}};
  b.blobs = {kEmptyPtx};
  return b;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int run(int argc, char **argv) {
  long n = 100000;
  int argi = 1;
  if (argi + 1 < argc && std::strcmp(argv[argi], "-n") == 0) {
    n = std::atol(argv[argi + 1]);
    argi += 2;
  }
  std::shared_ptr<Module> module;
  std::string kernelName = "empty", source = "embedded";
  if (argi < argc) {
    if (argi + 1 >= argc) {
      std::fprintf(stderr,
                   "usage: %s [-n N] [BUNDLE KERNEL [name=value ...]]\n",
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

  // Warm up (the first launch loads the module in this context).
  for (int i = 0; i < 100; ++i)
    kernel.launch(args.data(), args.size(), nullptr);
  checkCuda(api.cuStreamSynchronize(nullptr), "cuStreamSynchronize", "bench");

  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i)
    kernel.launch(args.data(), args.size(), nullptr);
  double launchHost = secondsSince(start);
  checkCuda(api.cuStreamSynchronize(nullptr), "cuStreamSynchronize", "bench");
  double launchTotal = secondsSince(start);

  // The same launch without megac (embedded kernel only): prepared once,
  // then a bare cuLaunchKernel, to show what the checks add.
  LaunchConfig c;
  kernel.signature().prepare(args.data(), args.size(), 132, nullptr, c);
  double rawHost = -1;
  if (source == "embedded") {
    CUmodule raw = nullptr;
    CUfunction fn = nullptr;
    checkCuda(api.cuModuleLoadData(&raw, kEmptyPtx), "cuModuleLoadData",
              "bench");
    checkCuda(api.cuModuleGetFunction(&fn, raw, "megac_empty"),
              "cuModuleGetFunction", "bench");
    start = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i)
      api.cuLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2], c.block[0],
                         c.block[1], c.block[2], 0, nullptr, c.params, nullptr);
    rawHost = secondsSince(start);
    checkCuda(api.cuStreamSynchronize(nullptr), "cuStreamSynchronize", "bench");
    api.cuModuleUnload(raw);
  }

  start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i)
    kernel.signature().prepare(args.data(), args.size(), 132, nullptr, c);
  double checkHost = secondsSince(start);

  std::printf("{\"bundle\": \"%s\", \"kernel\": \"%s\", \"image\": \"%s\", "
              "\"launches\": %ld, \"us_per_launch\": %.4f, "
              "\"us_per_launch_incl_sync\": %.4f, "
              "\"us_per_raw_cuLaunchKernel\": %.4f, "
              "\"us_per_arg_check\": %.4f}\n",
              source.c_str(), kernelName.c_str(), module->loadedImage().c_str(),
              n, 1e6 * launchHost / double(n), 1e6 * launchTotal / double(n),
              rawHost < 0 ? -1.0 : 1e6 * rawHost / double(n),
              1e6 * checkHost / double(n));
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
