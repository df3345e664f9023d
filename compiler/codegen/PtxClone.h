#pragma once
// PTX of a kernel's register-cap variants, made from the kernel's own PTX.
//
// A variant that differs from its kernel only in `.maxnreg` / `.minnctapersm`
// (`@variant(cap168, maxnreg = 168, min_ctas_per_sm = 3, ...)`) is the same
// function under another name: the emitter optimizes it once (PTXEmitter.cpp)
// and, rather than running NVPTX's code generator on a copy (10 of gdn_core's
// 51 ms), copies the kernel's PTX text: renamed, with the variant's
// directives, at the place LLVM would have put it, and with every function's
// branch labels ($L__BB<function>_<block>) numbered as LLVM numbers them (the
// functions in order). The result is the PTX LLVM emits for the copied
// function, byte for byte.

#include <string>
#include <vector>

namespace megac {

struct PtxCopy {
  std::string name;   // the variant's entry
  std::string of;     // the kernel whose PTX it copies
  std::string before; // the entry it goes before; empty: after the last entry
  unsigned minCtasPerSm = 0, maxnreg = 0; // 0: no directive
};

// `ptx` (NVPTX's output for a module) with the copies added, in order (a
// copy's `before` must be an entry of `ptx` or an earlier copy), and labels
// renumbered. Returns an empty string when an entry it needs is not there.
std::string addPtxCopies(const std::string &ptx, const std::vector<PtxCopy> &copies);

// One module's PTX from the PTX of its parts, each NVPTX's output for a module
// of some of its kernels (compiled on threads of their own, PTXEmitter.cpp):
// the first part's header, every part's entries in `entryOrder` (the module's
// order), the comments NVPTX prints before the first entry (each shared
// global demoted into its kernel, in `globalOrder`, the module's order of
// globals), and labels numbered by the entries' places. The result is the PTX
// NVPTX emits for the whole module, byte for byte. Returns an empty string
// when a part is not a header and entries only, when the headers differ (a
// module-level declaration), or when an entry or global is not in the orders.
std::string mergePtxModules(const std::vector<std::string> &parts,
                            const std::vector<std::string> &entryOrder,
                            const std::vector<std::string> &globalOrder);

} // namespace megac
