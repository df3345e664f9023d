//===- cuda_driver.h - Function table of the dlopen'ed driver ---*- C++ -*-===//
//
// Internal: includes cuda.h for its types only. Each entry is declared with
// the prototype cuda.h gives its name and looked up under the symbol cuda.h
// maps it to (cuMemAlloc -> cuMemAlloc_v2), so versions always match.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_CUDA_DRIVER_H
#define MEGAC_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include <string>
#include <string_view>

namespace megac::rt {

#define MEGAC_CUDA_FUNCTIONS(X)                                                \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxGetId)                                                                \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleUnload)                                                            \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuStreamSynchronize)                                                       \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD8)                                                                \
  X(cuPointerGetAttribute)

struct CudaDriver {
#define MEGAC_DECLARE_CUDA(fn) decltype(&::fn) fn = nullptr;
  MEGAC_CUDA_FUNCTIONS(MEGAC_DECLARE_CUDA)
#undef MEGAC_DECLARE_CUDA
};

/// The process-wide table; throws DriverError as requireDriver() does.
const CudaDriver &cudaDriver();

/// "CUDA_ERROR_INVALID_VALUE (invalid argument)".
std::string cudaErrorText(CUresult result);

/// Throws DriverError "megac: SUBJECT: CALL failed: NAME (STRING)" unless
/// `result` is CUDA_SUCCESS. `subject` names the kernel or module.
inline void checkCuda(CUresult result, const char *call,
                      std::string_view subject);
[[noreturn]] void throwCudaError(CUresult result, const char *call,
                                 std::string_view subject);

inline void checkCuda(CUresult result, const char *call,
                      std::string_view subject) {
  if (result != CUDA_SUCCESS)
    throwCudaError(result, call, subject);
}

} // namespace megac::rt

#endif // MEGAC_RUNTIME_CUDA_DRIVER_H
