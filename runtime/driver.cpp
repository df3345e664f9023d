//===- driver.cpp - The CUDA driver, opened at run time -------------------===//
#include "megac/runtime/driver.h"

#include "cuda_driver.h"
#include "megac/runtime/error.h"

#include <dlfcn.h>

namespace megac::rt {

namespace {

#define MEGAC_STRINGIFY_EXPANDED(x) MEGAC_STRINGIFY(x)
#define MEGAC_STRINGIFY(x) #x

std::string openError(const char *soname, const char *why) {
  return "megac: no CUDA driver: " + std::string(soname) +
         " could not be opened (" + (why ? why : "unknown error") + ")";
}

struct DriverState {
  CudaDriver api;
  std::string error; // empty when the driver is usable
};

DriverState openDriver() {
  DriverState s;
  void *lib = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    s.error = openError(kDriverLibrary, dlerror());
    return s;
  }
#define MEGAC_LOAD_CUDA(fn)                                                    \
  s.api.fn = reinterpret_cast<decltype(s.api.fn)>(                             \
      dlsym(lib, MEGAC_STRINGIFY_EXPANDED(fn)));                               \
  if (!s.api.fn) {                                                             \
    s.error = "megac: CUDA driver " + std::string(kDriverLibrary) +            \
              " lacks " MEGAC_STRINGIFY_EXPANDED(fn) " (driver too old?)";     \
    return s;                                                                  \
  }
  MEGAC_CUDA_FUNCTIONS(MEGAC_LOAD_CUDA)
#undef MEGAC_LOAD_CUDA
  CUresult r = s.api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr, *text = nullptr;
    s.api.cuGetErrorName(r, &name);
    s.api.cuGetErrorString(r, &text);
    s.error = "megac: no usable CUDA device: cuInit failed: " +
              std::string(name ? name : "?") + " (" +
              std::string(text ? text : "?") + ")";
  }
  // The library stays loaded for the life of the process: modules and
  // functions obtained from it may outlive any owner we could give it.
  return s;
}

const DriverState &state() {
  static const DriverState s = openDriver();
  return s;
}

} // namespace

const CudaDriver &cudaDriver() {
  const DriverState &s = state();
  if (!s.error.empty())
    throw DriverError(s.error);
  return s.api;
}

void requireDriver() { cudaDriver(); }

bool driverAvailable(std::string *reason) {
  const DriverState &s = state();
  if (reason)
    *reason = s.error;
  return s.error.empty();
}

std::string probeDriverLibrary(const char *soname) {
  void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return openError(soname, dlerror());
  dlclose(lib);
  return "";
}

std::string cudaErrorText(CUresult result) {
  const CudaDriver &api = cudaDriver();
  const char *name = nullptr, *text = nullptr;
  if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  if (api.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "?";
  return std::string(name) + " (" + text + ")";
}

void throwCudaError(CUresult result, const char *call,
                    std::string_view subject) {
  throw DriverError("megac: " + std::string(subject) + ": " + call +
                    " failed: " + cudaErrorText(result));
}

} // namespace megac::rt
