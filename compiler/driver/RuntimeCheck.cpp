//===- RuntimeCheck.cpp - Would the runtime load what megac wrote? --------===//
#include "RuntimeCheck.h"

#include "megac/runtime/error.h"
#include "megac/runtime/manifest.h"
#include "megac/runtime/signature.h"

namespace megac {

std::string runtimeRefusal(const std::string &manifestJson) {
  try {
    for (const rt::KernelInfo &k : rt::parseManifest(manifestJson, "the manifest").kernels)
      rt::KernelSignature signature(k);
  } catch (const rt::Error &e) {
    return e.what();
  }
  return "";
}

} // namespace megac
