//===- module.h - A loaded bundle and launching its kernels -----*- C++ -*-===//
//
// A Module owns a bundle and loads its best image into each CUDA context that
// launches from it (the device's primary context by default, which PyTorch
// shares). Kernel::launch checks the arguments, then calls cuLaunchKernel
// (cuLaunchKernelEx for a variant compiled to be launched early) on the
// caller's stream: no allocation and no synchronization, so launches can be
// captured in CUDA graphs.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_MODULE_H
#define MEGAC_RUNTIME_MODULE_H

#include "megac/runtime/args.h"
#include "megac/runtime/bundle.h"
#include "megac/runtime/signature.h"

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace megac::rt {

struct LoadOptions {
  /// Device ordinal; -1: the current context's device, else device 0.
  int device = -1;
  /// Whether PTX may be JIT-compiled when no cubin fits the device.
  bool allowPtxJit = true;
  /// Whether variants compiled to be launched early (launchesEarly) are
  /// launched with programmatic stream serialization (cuLaunchKernelEx): such
  /// a launch may start while the prior kernel on the stream runs, and the
  /// kernel waits for it itself, at entry or at its wait_prior_kernel()
  /// (docs/runtime.md). Off: every launch waits for the prior kernel to end,
  /// as cuLaunchKernel does.
  bool earlyLaunch = true;
  /// Choose variants (and evaluate grids that read `sms`) as on a device of
  /// these facts instead of the one the module runs on: to run, on one card,
  /// the variants another card would launch (a test of an H200's variants on
  /// an H100). Every launch still runs on this device. Module::load refuses
  /// facts with sms < 1 or l2Mb < 0.
  std::optional<DeviceFacts> chooseVariantsAs;
};

/// Throws ArgError, naming `module`, where `facts` are no device's (sms < 1 or
/// l2Mb < 0): what Module::load checks of LoadOptions::chooseVariantsAs.
void checkChooseVariantsAs(const DeviceFacts &facts, const std::string &module);

class Module;
struct ContextEntry; // CUDA handles per context; defined in module.cpp

class Kernel {
public:
  const KernelSignature &signature() const { return signature_; }
  const std::string &name() const { return signature_.name(); }

  /// Checks `args` (signature.h), then launches on `stream` (a CUstream; null
  /// is the legacy default stream) in the current context, or in the primary
  /// context of the module's device when none is current. A grid with a zero
  /// dimension launches nothing. Throws ArgError or DriverError naming the
  /// kernel.
  void launch(const Arg *args, size_t count, void *stream,
              const Grid *grid = nullptr) const;
  void launch(std::initializer_list<Arg> args, void *stream,
              const Grid *grid = nullptr) const {
    launch(args.begin(), args.size(), stream, grid);
  }

private:
  friend class Module;
  Kernel(const Module &module, KernelInfo info, size_t firstFunction)
      : module_(&module), signature_(std::move(info)),
        firstFunction_(firstFunction) {}

  const Module *module_;
  KernelSignature signature_;
  /// Index of variant 0 in a context's function table.
  size_t firstFunction_;
};

class Module {
public:
  /// Loads `bundle` (named `source` in messages) into the current context, or
  /// the primary context of options.device. Throws DriverError (no driver, no
  /// fitting image, JIT or load failure) or ManifestError.
  static std::shared_ptr<Module> load(Bundle bundle, std::string source,
                                      LoadOptions options = {});
  static std::shared_ptr<Module> loadFile(const std::string &path,
                                          LoadOptions options = {});
  static std::shared_ptr<Module> loadMemory(const void *data, size_t size,
                                            std::string_view source,
                                            LoadOptions options = {});
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const Manifest &manifest() const { return bundle_.manifest; }
  /// Throws Error "megac: module 'M' has no kernel 'K' (kernels: ...)".
  const Kernel &kernel(std::string_view name) const;
  /// The image loaded for the current context, e.g. "cubin sm_90a".
  std::string loadedImage() const;

  struct State; // CUDA handles; defined in module.cpp

private:
  Module(Bundle bundle, std::string source, LoadOptions options);
  friend class Kernel;
  /// The module as loaded in `context` (a CUcontext), loading it on first use.
  const ContextEntry &entryFor(void *context) const;
  /// The same for the current context; a thread without one adopts the
  /// primary context. `who` names the caller in errors.
  const ContextEntry &entryForCurrent(std::string_view who) const;
  /// The entry of the context with this id (cuCtxGetId), if loaded there.
  const ContextEntry *findEntry(unsigned long long contextId) const;

  Bundle bundle_;
  std::string source_;
  LoadOptions options_;
  std::vector<Kernel> kernels_;
  std::unique_ptr<State> state_;
};

} // namespace megac::rt

#endif // MEGAC_RUNTIME_MODULE_H
