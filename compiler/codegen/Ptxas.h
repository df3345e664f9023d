// Runs ptxas on PTX to get a cubin and the resource report (registers,
// spills, stack, shared memory) per kernel.
#ifndef MEGAC_CODEGEN_PTXAS_H
#define MEGAC_CODEGEN_PTXAS_H

#include <map>
#include <optional>
#include <string>

namespace megac {

struct KernelResources {
  int registers = 0;
  int spillStores = 0; // bytes
  int spillLoads = 0;  // bytes
  int stack = 0;       // bytes
  int shared = 0;      // bytes
  int spills() const { return spillStores + spillLoads; }
};

struct PtxasResult {
  bool ok = false;
  std::string log;   // ptxas's own output (errors, warnings, -v report)
  std::string cubin; // the assembled image when ok
  std::map<std::string, KernelResources> kernels;
};

/// ptxas from $MEGAC_PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin or PATH;
/// std::nullopt when there is none.
std::optional<std::string> findPtxas();

PtxasResult runPtxas(const std::string &ptxasPath, const std::string &ptx,
                     const std::string &arch);

/// Parses ptxas -v output (exposed for unit tests).
std::map<std::string, KernelResources> parsePtxasReport(const std::string &log);

} // namespace megac

#endif
