//===- driver.h - The CUDA driver, opened at run time -----------*- C++ -*-===//
//
// libcuda.so.1 is dlopen'ed on first use, never linked, so that the runtime
// (and everything that links it) loads on machines without a GPU. Only the
// soname libcuda.so.1 is tried: the toolkit's link stubs must never be loaded.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_DRIVER_H
#define MEGAC_RUNTIME_DRIVER_H

#include <string>

namespace megac::rt {

constexpr const char *kDriverLibrary = "libcuda.so.1";

/// Opens libcuda.so.1 and calls cuInit once per process. Throws DriverError
/// "megac: no CUDA driver: libcuda.so.1 could not be opened (DLERROR)" or a
/// cuInit failure.
void requireDriver();

/// Whether requireDriver() succeeds; `reason` receives its message otherwise.
bool driverAvailable(std::string *reason = nullptr);

/// Tries to dlopen `soname` the way the runtime opens the driver; returns ""
/// or the runtime's error message. Does not keep the library loaded.
std::string probeDriverLibrary(const char *soname);

} // namespace megac::rt

#endif // MEGAC_RUNTIME_DRIVER_H
