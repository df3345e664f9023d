//===- FakeCuda.cpp - A stand-in libcuda.so.1 for the runtime's GPU tests -===//
//
// Built as libcuda.so.1 in a directory of its own; the ctest entries
// `runtime_tests_fake_driver` and `python_fake_driver` put that directory on
// LD_LIBRARY_PATH, so the runtime's dlopen finds it and DriverTest's GPU tests
// and python/tests/test_fake_driver.py run on a machine without a GPU (CI's).
// It keeps what those tests depend on:
//   - two devices of compute capability 9.0, with 132 and 114 SMs;
//   - contexts with process-unique ids, a current-context stack per thread,
//     one primary context per device; a destroyed context's handle is given
//     to the next context created, as the real driver was seen to do
//     (results/checks_contexts_c99d20a.md);
//   - modules belong to the context current when they load; a function is
//     found by its `.entry` in the PTX; a launch of a function whose module
//     is not loaded in the current context fails with
//     CUDA_ERROR_INVALID_HANDLE, as the real driver's does;
//   - unloading a module its context took with it aborts the process (the
//     real driver segfaulted there, results/checks_threads_d557163.md), and so
//     does passing a destroyed context's handle (one no newer context was
//     given) to cuCtxGetId, cuCtxPushCurrent or cuCtxSetCurrent (cuCtxGetId
//     segfaulted there, results/runtime_ctxgetid_crash_41566bd.txt), but for
//     cuCtxGetId of one still current to the calling thread, which answers
//     CUDA_ERROR_CONTEXT_IS_DESTROYED as the real driver documents;
//   - allocations belong to the context current when they are made and go
//     with it; each has a process-unique id (CU_POINTER_ATTRIBUTE_BUFFER_ID),
//     and an address no allocation holds answers CUDA_ERROR_INVALID_VALUE;
//   - "device" memory is host memory, and a launch of a kernel named `fill`
//     (out: u64, value: f32, n: u32) fills out[0, n) with value; any other
//     kernel's launch does nothing;
//   - the last launch's configuration is kept for the tests, and they may
//     count the modules loaded and the allocations made in live contexts
//     (FakeLaunch.h).
// Streams are nominal: every launch completes before it returns.
//
//===----------------------------------------------------------------------===//
#include "FakeLaunch.h"

#include <cuda.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Context {
  bool alive = false;
  unsigned long long id = 0;
  CUdevice device = 0;
};

struct Module {
  Context *context = nullptr;
  unsigned long long contextId = 0;
  bool loaded = false;
  std::string image;
};

struct Function {
  Module *module = nullptr;
  std::string name;
};

constexpr int kDevices = 2;
constexpr int kSms[kDevices] = {132, 114};
constexpr int kL2Bytes[kDevices] = {60 << 20, 50 << 20}; // an H200's L2 and an H100's
constexpr int kContexts = 256;

std::mutex mutex;
// Slot d is device d's primary context; the others are created and destroyed.
std::array<Context, kContexts> contexts;
int primaryRefs[kDevices] = {};
unsigned long long nextId = 1;
std::vector<Module *> modules; // every module ever loaded

struct Allocation {
  Context *context = nullptr; // null: made with no current context
  unsigned long long id = 0;
};
std::map<CUdeviceptr, Allocation> allocations;
unsigned long long nextAllocationId = 1;
thread_local std::vector<CUcontext> stack;
thread_local FakeLaunch lastLaunch;

Context *of(CUcontext ctx) { return reinterpret_cast<Context *>(ctx); }
CUcontext handle(Context &c) { return reinterpret_cast<CUcontext>(&c); }

bool live(CUcontext ctx) {
  for (Context &c : contexts)
    if (handle(c) == ctx)
      return c.alive;
  return false;
}

Context *current() {
  if (stack.empty() || !live(stack.back()))
    return nullptr;
  return of(stack.back());
}

[[noreturn]] void misuse(const char *what) {
  std::fprintf(stderr, "fake libcuda: %s\n", what);
  std::abort();
}

// The real driver may crash on a destroyed context's handle: so does this one.
void requireLive(CUcontext ctx, const char *call) {
  if (!live(ctx))
    misuse((std::string(call) + " of a destroyed context's handle").c_str());
}

} // namespace

CUresult CUDAAPI cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  switch (error) {
  case CUDA_SUCCESS: *pStr = "CUDA_SUCCESS"; break;
  case CUDA_ERROR_INVALID_VALUE: *pStr = "CUDA_ERROR_INVALID_VALUE"; break;
  case CUDA_ERROR_INVALID_DEVICE: *pStr = "CUDA_ERROR_INVALID_DEVICE"; break;
  case CUDA_ERROR_INVALID_CONTEXT: *pStr = "CUDA_ERROR_INVALID_CONTEXT"; break;
  case CUDA_ERROR_CONTEXT_IS_DESTROYED: *pStr = "CUDA_ERROR_CONTEXT_IS_DESTROYED"; break;
  case CUDA_ERROR_INVALID_HANDLE: *pStr = "CUDA_ERROR_INVALID_HANDLE"; break;
  case CUDA_ERROR_NOT_FOUND: *pStr = "CUDA_ERROR_NOT_FOUND"; break;
  case CUDA_ERROR_OUT_OF_MEMORY: *pStr = "CUDA_ERROR_OUT_OF_MEMORY"; break;
  default: *pStr = "CUDA_ERROR_UNKNOWN"; break;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
  switch (error) {
  case CUDA_ERROR_INVALID_HANDLE: *pStr = "invalid resource handle"; break;
  case CUDA_ERROR_NOT_FOUND: *pStr = "named symbol not found"; break;
  case CUDA_ERROR_CONTEXT_IS_DESTROYED: *pStr = "context is destroyed"; break;
  default: *pStr = "fake driver error"; break;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= kDevices)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  if (dev < 0 || dev >= kDevices)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = kSms[dev]; break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *pi = kL2Bytes[dev]; break;
  default: *pi = 0; break;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  std::lock_guard<std::mutex> lock(mutex);
  if (dev < 0 || dev >= kDevices)
    return CUDA_ERROR_INVALID_DEVICE;
  // A primary context lives as long as the process here (the real one
  // resets when its last retain is released).
  Context &primary = contexts[size_t(dev)];
  if (!primary.alive)
    primary = Context{true, nextId++, dev};
  ++primaryRefs[dev];
  *pctx = handle(primary);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  std::lock_guard<std::mutex> lock(mutex);
  if (dev < 0 || dev >= kDevices || primaryRefs[dev] == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --primaryRefs[dev];
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, CUctxCreateParams *, unsigned int, CUdevice dev) {
  std::lock_guard<std::mutex> lock(mutex);
  if (dev < 0 || dev >= kDevices)
    return CUDA_ERROR_INVALID_DEVICE;
  // The first free slot: a destroyed context's handle goes to the next one.
  for (int i = kDevices; i < kContexts; ++i)
    if (!contexts[size_t(i)].alive) {
      contexts[size_t(i)] = Context{true, nextId++, dev};
      *pctx = handle(contexts[size_t(i)]);
      stack.push_back(*pctx);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!live(ctx) || of(ctx) < &contexts[kDevices]) // not a primary context
    return CUDA_ERROR_INVALID_CONTEXT;
  of(ctx)->alive = false; // its modules and allocations go with it
  for (auto it = allocations.begin(); it != allocations.end();)
    if (it->second.context == of(ctx)) {
      std::free(reinterpret_cast<void *>(it->first));
      it = allocations.erase(it);
    } else {
      ++it;
    }
  if (!stack.empty() && stack.back() == ctx)
    stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) {
  *pctx = stack.empty() ? nullptr : stack.back();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  std::lock_guard<std::mutex> lock(mutex);
  if (ctx)
    requireLive(ctx, "cuCtxSetCurrent");
  if (!stack.empty())
    stack.pop_back();
  if (ctx)
    stack.push_back(ctx);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) {
  std::lock_guard<std::mutex> lock(mutex);
  requireLive(ctx, "cuCtxPushCurrent");
  stack.push_back(ctx);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx) {
  if (stack.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx)
    *pctx = stack.back();
  stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device) {
  std::lock_guard<std::mutex> lock(mutex);
  Context *c = current();
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = c->device;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!ctx) {
    if (stack.empty())
      return CUDA_ERROR_INVALID_CONTEXT;
    ctx = stack.back();
  }
  // A context destroyed while current to this thread stays current to it
  // and answers with an error, as the real driver documents; any other
  // destroyed handle may crash the real driver.
  if (!live(ctx) && std::find(stack.begin(), stack.end(), ctx) != stack.end())
    return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  requireLive(ctx, "cuCtxGetId");
  *ctxId = of(ctx)->id;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  std::lock_guard<std::mutex> lock(mutex);
  Context *c = current();
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  // Never freed: a stale handle stays recognizable as unloaded.
  auto *m = new Module{c, c->id, true, static_cast<const char *>(image)};
  modules.push_back(m);
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int,
                                    CUjit_option *, void **) {
  return cuModuleLoadData(module, image);
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  auto *m = reinterpret_cast<Module *>(hmod);
  if (!m || !m->loaded)
    return CUDA_ERROR_INVALID_HANDLE;
  if (m->image.find(".entry " + std::string(name) + "(") == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  *hfunc = reinterpret_cast<CUfunction>(new Function{m, name});
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  std::lock_guard<std::mutex> lock(mutex);
  auto *m = reinterpret_cast<Module *>(hmod);
  if (!m->loaded)
    misuse("cuModuleUnload of a module unloaded already");
  if (!m->context->alive || m->context->id != m->contextId)
    misuse("cuModuleUnload of a module whose context was destroyed");
  m->loaded = false;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }

namespace {

CUresult launch(CUfunction f, void **kernelParams, const FakeLaunch &config) {
  std::lock_guard<std::mutex> lock(mutex);
  Context *c = current();
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  auto *fn = reinterpret_cast<Function *>(f);
  if (!fn->module->loaded || !fn->module->context->alive || fn->module->contextId != c->id)
    return CUDA_ERROR_INVALID_HANDLE;
  lastLaunch = config;
  std::snprintf(lastLaunch.function, sizeof lastLaunch.function, "%s", fn->name.c_str());
  if (fn->name == "fill") {
    auto *out = reinterpret_cast<float *>(*static_cast<CUdeviceptr *>(kernelParams[0]));
    float value = *static_cast<float *>(kernelParams[1]);
    uint32_t n = *static_cast<uint32_t *>(kernelParams[2]);
    for (uint32_t i = 0; i < n; ++i)
      out[i] = value;
  }
  return CUDA_SUCCESS;
}

} // namespace

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **) {
  FakeLaunch config{{gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ}, sharedMemBytes,
                    hStream, false, false, ""};
  return launch(f, kernelParams, config);
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **kernelParams,
                                  void **) {
  FakeLaunch config{{c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ},
                    c->sharedMemBytes, c->hStream, true, false, ""};
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
      config.programmatic = c->attrs[i].value.programmaticStreamSerializationAllowed != 0;
  return launch(f, kernelParams, config);
}

extern "C" const FakeLaunch *megacFakeLastLaunch() { return &lastLaunch; }

extern "C" int megacFakeLoadedModules() {
  std::lock_guard<std::mutex> lock(mutex);
  int n = 0;
  for (const Module *m : modules)
    n += m->loaded && m->context->alive && m->context->id == m->contextId;
  return n;
}

extern "C" int megacFakeLiveAllocations() {
  std::lock_guard<std::mutex> lock(mutex);
  return int(allocations.size()); // a destroyed context's went with it
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int) {
  *phStream = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  std::lock_guard<std::mutex> lock(mutex);
  void *p = std::aligned_alloc(256, (bytesize + 255) / 256 * 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = reinterpret_cast<CUdeviceptr>(p);
  allocations[*dptr] = Allocation{current(), nextAllocationId++};
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.find(dptr);
  if (it == allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void *>(dptr));
  allocations.erase(it);
  return CUDA_SUCCESS;
}

// Only the attribute the runtime asks for; the address must be an
// allocation's start, which is all the runtime passes.
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(mutex);
  if (attribute != CU_POINTER_ATTRIBUTE_BUFFER_ID)
    return CUDA_ERROR_NOT_SUPPORTED;
  auto it = allocations.find(ptr);
  if (it == allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  *static_cast<unsigned long long *>(data) = it->second.id;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  std::memcpy(reinterpret_cast<void *>(dstDevice), srcHost, ByteCount);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  std::memcpy(dstHost, reinterpret_cast<const void *>(srcDevice), ByteCount);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  std::memset(reinterpret_cast<void *>(dstDevice), uc, N);
  return CUDA_SUCCESS;
}
