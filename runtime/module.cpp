//===- module.cpp - A loaded bundle and launching its kernels -------------===//
#include "megac/runtime/module.h"

#include "cuda_driver.h"
#include "megac/runtime/driver.h"
#include "megac/runtime/error.h"
#include "megac/runtime/image_select.h"

#include <array>
#include <atomic>
#include <mutex>

namespace megac::rt {

namespace {
// Above this, dynamic shared memory must be opted into per function.
// Contexts one module can serve: one per device is the common case.
constexpr int kMaxContexts = 64;
} // namespace

/// What a module holds in one CUDA context.
struct ContextEntry {
  // The context's process-unique id, 0 while the entry is being filled.
  // Launches find their entry by it: the driver reuses a destroyed context's
  // handle for a new context, never its id.
  std::atomic<unsigned long long> contextId{0};
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  // A byte allocated in the context, and the process-unique id the driver
  // gave its allocation: the allocation lives exactly as long as the context,
  // and the driver answers for any address, so whether the context lives is
  // asked of it, never of the context's handle (which dangles once the
  // context is destroyed: the driver was seen to crash on it).
  CUdeviceptr witness = 0;
  unsigned long long witnessId = 0;
  DeviceFacts device; // what variant conditions read of the context's device
  std::string image;
  std::vector<CUfunction> functions; // per kernel, per variant
};

struct Module::State {
  CUdevice device = 0;
  CUcontext primary = nullptr;
  // Entries are filled under `mutex` and published by their id (and `count`),
  // so launches read them without a lock. A live context's entry is never
  // changed; a destroyed context's may be refilled for a new one when all
  // are taken (no launch can find it: its id belongs to no live context).
  std::array<ContextEntry, kMaxContexts> entries;
  std::atomic<int> count{0};
  std::mutex mutex;
};

namespace {

/// Makes `ctx` current for a scope, restoring the previous one.
class ContextScope {
public:
  ContextScope(const CudaDriver &api, CUcontext ctx, std::string_view subject)
      : api_(api) {
    checkCuda(api.cuCtxPushCurrent(ctx), "cuCtxPushCurrent", subject);
  }
  ~ContextScope() {
    CUcontext popped;
    api_.cuCtxPopCurrent(&popped);
  }

private:
  const CudaDriver &api_;
};

int attribute(const CudaDriver &api, CUdevice_attribute attr, CUdevice dev,
              std::string_view subject) {
  int value = 0;
  checkCuda(api.cuDeviceGetAttribute(&value, attr, dev), "cuDeviceGetAttribute",
            subject);
  return value;
}

/// The process-unique id of the allocation at `ptr`, 0 if none is there.
unsigned long long allocationId(const CudaDriver &api, CUdeviceptr ptr) {
  unsigned long long id = 0;
  if (api.cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, ptr) != CUDA_SUCCESS)
    return 0;
  return id;
}

/// Whether the context an entry was filled for still lives: whether its
/// witness allocation does. A destroyed context's handle is never passed to
/// the driver (on the H200, cuCtxGetId of one segfaulted in about one run of
/// the context tests in five: results/runtime_ctxgetid_crash_41566bd.txt).
/// The witness's address may hold another allocation by now, under another
/// id.
bool contextLives(const CudaDriver &api, const ContextEntry &e) {
  return e.witness && allocationId(api, e.witness) == e.witnessId;
}

} // namespace

Module::Module(Bundle bundle, std::string source, LoadOptions options)
    : bundle_(std::move(bundle)), source_(std::move(source)), options_(options),
      state_(std::make_unique<State>()) {
  size_t functions = 0;
  kernels_.reserve(bundle_.manifest.kernels.size());
  for (const KernelInfo &k : bundle_.manifest.kernels) {
    kernels_.push_back(Kernel(*this, k, functions));
    functions += k.variants.size();
  }
}

void checkChooseVariantsAs(const DeviceFacts &facts, const std::string &module) {
  if (facts.sms < 1 || facts.l2Mb < 0)
    throw ArgError("megac: module '" + module +
                   "': variants chosen as on a device of sms = " +
                   std::to_string(facts.sms) + ", l2_mb = " +
                   std::to_string(facts.l2Mb) +
                   ": no such device (sms >= 1, l2_mb >= 0)");
}

std::shared_ptr<Module> Module::load(Bundle bundle, std::string source,
                                     LoadOptions options) {
  if (options.chooseVariantsAs)
    checkChooseVariantsAs(*options.chooseVariantsAs, bundle.manifest.module);
  const CudaDriver &api = cudaDriver();
  std::shared_ptr<Module> m(
      new Module(std::move(bundle), std::move(source), options));
  std::string subject = "module '" + m->manifest().module + "'";
  CUcontext current = nullptr;
  checkCuda(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent", subject);
  State &s = *m->state_;
  if (options.device >= 0)
    checkCuda(api.cuDeviceGet(&s.device, options.device), "cuDeviceGet",
              subject);
  else if (current)
    checkCuda(api.cuCtxGetDevice(&s.device), "cuCtxGetDevice", subject);
  else
    checkCuda(api.cuDeviceGet(&s.device, 0), "cuDeviceGet", subject);
  checkCuda(api.cuDevicePrimaryCtxRetain(&s.primary, s.device),
            "cuDevicePrimaryCtxRetain", subject);
  // As the CUDA runtime does on its first call: a thread without a context
  // adopts the device's primary context, so the caller's own driver calls
  // (allocations, copies) work after loading.
  if (!current)
    checkCuda(api.cuCtxSetCurrent(s.primary), "cuCtxSetCurrent", subject);
  // Load now where launches will most likely happen, so that a bad image is
  // reported at load time rather than at the first launch.
  m->entryFor(current && options.device < 0 ? current : s.primary);
  return m;
}

std::shared_ptr<Module> Module::loadFile(const std::string &path,
                                         LoadOptions options) {
  return load(readBundleFile(path), path, options);
}

std::shared_ptr<Module> Module::loadMemory(const void *data, size_t size,
                                           std::string_view source,
                                           LoadOptions options) {
  return load(readBundle(data, size, source), std::string(source), options);
}

Module::~Module() {
  std::string reason;
  if (!driverAvailable(&reason))
    return;
  const CudaDriver &api = cudaDriver();
  // Errors are ignored: at process exit the contexts may already be gone.
  // A context its creator destroyed unloaded the module with it: its handle
  // (dangling, or another context's by now) is not touched.
  for (int i = 0; i < state_->count.load(); ++i) {
    ContextEntry &e = state_->entries[size_t(i)];
    if (!contextLives(api, e))
      continue;
    if (api.cuCtxPushCurrent(e.context) == CUDA_SUCCESS) {
      api.cuModuleUnload(e.module);
      api.cuMemFree(e.witness);
      CUcontext popped;
      api.cuCtxPopCurrent(&popped);
    }
  }
  if (state_->primary)
    api.cuDevicePrimaryCtxRelease(state_->device);
}

const Kernel &Module::kernel(std::string_view name) const {
  for (const Kernel &k : kernels_)
    if (k.name() == name)
      return k;
  std::string names;
  for (const Kernel &k : kernels_)
    names += (names.empty() ? "" : ", ") + k.name();
  throw Error("megac: module '" + manifest().module + "' has no kernel '" +
              std::string(name) + "' (kernels: " + names + ")");
}

const ContextEntry *Module::findEntry(unsigned long long contextId) const {
  const State &s = *state_;
  int n = s.count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (s.entries[size_t(i)].contextId.load(std::memory_order_acquire) == contextId)
      return &s.entries[size_t(i)];
  return nullptr;
}

const ContextEntry &Module::entryForCurrent(std::string_view who) const {
  const CudaDriver &api = cudaDriver();
  CUcontext ctx = nullptr;
  checkCuda(api.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent", who);
  if (!ctx) {
    // As the CUDA runtime does: a thread without a context uses the device's
    // primary context.
    ctx = state_->primary;
    checkCuda(api.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", who);
  }
  return entryFor(ctx);
}

const ContextEntry &Module::entryFor(void *ctxHandle) const {
  auto ctx = static_cast<CUcontext>(ctxHandle);
  State &s = *state_;
  const CudaDriver &api = cudaDriver();
  std::string subject = "module '" + manifest().module + "'";
  unsigned long long id = 0;
  checkCuda(api.cuCtxGetId(ctx, &id), "cuCtxGetId", subject);
  if (const ContextEntry *e = findEntry(id))
    return *e;

  std::lock_guard<std::mutex> lock(s.mutex);
  if (const ContextEntry *e = findEntry(id))
    return *e;
  int n = s.count.load(std::memory_order_relaxed);
  ContextEntry *slot = n < kMaxContexts ? &s.entries[size_t(n)] : nullptr;
  for (int i = 0; !slot && i < n; ++i)
    if (!contextLives(api, s.entries[size_t(i)]))
      slot = &s.entries[size_t(i)];
  if (!slot)
    throw DriverError("megac: " + subject + ": loaded in " +
                      std::to_string(kMaxContexts) +
                      " live contexts already; no more are supported");

  ContextScope scope(api, ctx, subject);
  ContextEntry &e = *slot;
  e.contextId.store(0, std::memory_order_relaxed);
  e.context = ctx;
  e.module = nullptr;
  e.witness = 0;
  e.witnessId = 0;
  e.functions.clear();
  CUdevice dev;
  checkCuda(api.cuCtxGetDevice(&dev), "cuCtxGetDevice", subject);
  int major = attribute(api, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev,
                        subject);
  int minor = attribute(api, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev,
                        subject);
  e.device.sms =
      attribute(api, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev, subject);
  e.device.l2Mb =
      attribute(api, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev, subject) >> 20;
  if (options_.chooseVariantsAs)
    e.device = *options_.chooseVariantsAs;
  const ImageInfo &img = manifest().images[selectImage(
      manifest(), major, minor, options_.allowPtxJit, source_)];
  e.image = std::string(imageKindName(img.kind)) + " " + img.target;
  const std::string &data = bundle_.imageData(img);
  if (img.kind == ImageKind::Cubin) {
    checkCuda(api.cuModuleLoadData(&e.module, data.data()),
              ("cuModuleLoadData (cubin " + img.target + ")").c_str(), subject);
  } else {
    // PTX must be NUL-terminated; std::string guarantees it.
    char log[8192] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
    CUresult r =
        api.cuModuleLoadDataEx(&e.module, data.c_str(), 2, opts, values);
    if (r != CUDA_SUCCESS)
      throw DriverError("megac: " + subject + ": cuModuleLoadDataEx (ptx " +
                        img.target + " JIT) failed: " + cudaErrorText(r) +
                        (log[0] ? std::string("\nJIT log:\n") + log : ""));
  }
  try {
    checkCuda(api.cuMemAlloc(&e.witness, 1), "cuMemAlloc (the context's witness)", subject);
    e.witnessId = allocationId(api, e.witness);
    if (!e.witnessId)
      throw DriverError("megac: " + subject +
                        ": the driver gives no allocation id (CU_POINTER_ATTRIBUTE_BUFFER_ID)");
    for (const Kernel &k : kernels_) {
      const KernelInfo &info = k.signature().info();
      for (const VariantInfo &v : info.variants) {
        std::string who = "kernel '" + info.name + "' (variant '" + v.name + "')";
        CUfunction fn = nullptr;
        checkCuda(api.cuModuleGetFunction(&fn, e.module, v.symbol.c_str()),
                  ("cuModuleGetFunction(\"" + v.symbol + "\")").c_str(), who);
        e.functions.push_back(fn);
      }
    }
  } catch (...) {
    // The entry is not published; the image and the witness go too.
    api.cuModuleUnload(e.module);
    e.module = nullptr;
    if (e.witness)
      api.cuMemFree(e.witness);
    e.witness = 0;
    throw;
  }
  e.contextId.store(id, std::memory_order_release);
  if (slot == &s.entries[size_t(n)])
    s.count.store(n + 1, std::memory_order_release);
  return e;
}

std::string Module::loadedImage() const {
  const CudaDriver &api = cudaDriver();
  CUcontext ctx = nullptr;
  checkCuda(api.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent",
            "module '" + manifest().module + "'");
  return entryFor(ctx ? ctx : state_->primary).image;
}

void Kernel::launch(const Arg *args, size_t count, void *stream,
                    const Grid *grid) const {
  const CudaDriver &api = cudaDriver();
  // One driver call finds the current context's entry by its id; the first
  // launch in a context, or from a thread with none, takes the slow path.
  // The kernel's name is formatted only there: the launch path must not
  // allocate.
  unsigned long long ctxId = 0;
  const ContextEntry *found =
      api.cuCtxGetId(nullptr, &ctxId) == CUDA_SUCCESS ? module_->findEntry(ctxId) : nullptr;
  const ContextEntry &e = found ? *found : module_->entryForCurrent("kernel '" + name() + "'");
  LaunchConfig c;
  // `early` in a variant's condition: whether this module launches
  // early-launch variants early (a variant may be chosen for that).
  signature_.prepare(args, count, e.device, grid, c, module_->options_.earlyLaunch);
  if (c.empty())
    return;
  CUfunction fn = e.functions[firstFunction_ + size_t(c.variant)];
  bool early = launchesEarly(signature_.info(), size_t(c.variant)) && module_->options_.earlyLaunch;
  CUresult r;
  if (early) {
    // Programmatic stream serialization: the launch may begin once the prior
    // kernel on the stream has passed its griddepcontrol.launch_dependents
    // (or ended); the kernel's griddepcontrol.wait holds it until that
    // kernel has ended and its writes are visible. Stream capture records it
    // as a programmatic edge of the graph.
    CUlaunchAttribute attr = {};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {};
    config.gridDimX = c.grid[0];
    config.gridDimY = c.grid[1];
    config.gridDimZ = c.grid[2];
    config.blockDimX = c.block[0];
    config.blockDimY = c.block[1];
    config.blockDimZ = c.block[2];
    config.sharedMemBytes = c.sharedBytes;
    config.hStream = static_cast<CUstream>(stream);
    config.attrs = &attr;
    config.numAttrs = 1;
    r = api.cuLaunchKernelEx(&config, fn, c.params, nullptr);
  } else {
    r = api.cuLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1],
                           c.block[2], c.sharedBytes, static_cast<CUstream>(stream), c.params,
                           nullptr);
  }
  if (r != CUDA_SUCCESS)
    throwCudaError(r, early ? "cuLaunchKernelEx" : "cuLaunchKernel",
                   "kernel '" + name() + "' (variant '" +
                       signature_.info().variants[size_t(c.variant)].name +
                       "')");
}

} // namespace megac::rt
