//===- error.h - Errors thrown by the megac runtime -------------*- C++ -*-===//
//
// Every refusal of the runtime is an exception whose message starts with
// "megac: " and names what was refused (file, kernel, parameter, slot) and why,
// so that a log line alone is enough to act on it. The subclasses let a binding
// (Python) map the kinds to its own exception types.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_ERROR_H
#define MEGAC_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace megac::rt {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// A bundle file that cannot be read: wrong magic, version, truncation, CRC.
class BundleError : public Error {
  using Error::Error;
};

/// A manifest that is not valid JSON or does not follow the schema.
class ManifestError : public Error {
  using Error::Error;
};

/// An expression that does not parse, or fails to evaluate.
class ExprError : public Error {
  using Error::Error;
};

/// Launch arguments that do not match the manifest.
class ArgError : public Error {
  using Error::Error;
};

/// libcuda missing, or a CUDA call that failed.
class DriverError : public Error {
  using Error::Error;
};

/// A slot plan that cannot be built (unknown slot, configuration
/// contradiction).
class SlotError : public Error {
  using Error::Error;
};

} // namespace megac::rt

#endif // MEGAC_RUNTIME_ERROR_H
